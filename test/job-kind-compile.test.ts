import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Adding a kind to the catalog alone must not compile: its payload schemas, its presenter and its
 * stage handlers are maps the type system requires to be complete. The server's program is checked
 * as it is and with one catalog entry added in memory (the file on disk is untouched).
 */
const root = resolve(import.meta.dirname, '..');
const catalogPath = resolve(root, 'src/domain/job-kinds.ts');

function checkSrc(catalogText?: string, old?: ts.Program): { errors: Map<string, string[]>; program: ts.Program } {
  const config = ts.getParsedCommandLineOfConfigFile(
    resolve(root, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('tsconfig.json did not parse');
  const roots = config.fileNames.filter((f) => relative(root, f).startsWith('src/'));
  const host = ts.createCompilerHost(config.options);
  const read = host.getSourceFile;
  host.getSourceFile = (fileName, language, ...rest) =>
    catalogText !== undefined && resolve(fileName) === catalogPath
      ? ts.createSourceFile(fileName, catalogText, language)
      : read(fileName, language, ...rest);
  // The first program's parsed files are reused by the second: only the catalog differs.
  const program = ts.createProgram(roots, config.options, host, old);
  const errors = new Map<string, string[]>();
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const file = d.file ? relative(root, d.file.fileName) : '(global)';
    errors.set(file, [...(errors.get(file) ?? []), ts.flattenDiagnosticMessageText(d.messageText, '\n')]);
  }
  return { errors, program };
}

describe('a job kind added to the catalog alone', () => {
  it('fails to compile until its payloads, presenter, stage handlers, cancel route, dashboard body and creator, and estimate tiers exist', () => {
    const asIs = checkSrc();
    expect(asIs.errors).toEqual(new Map());

    const catalog = readFileSync(catalogPath, 'utf8');
    const denoiseEntry = /^ {2}denoise: \{.*\},$/m;
    expect(catalog).toMatch(denoiseEntry);
    const withPitchShift = catalog.replace(
      denoiseEntry,
      (line) =>
        `${line}\n  'pitch-shift': { label: 'Pitch shift', stages: ['inference'], attempts: 3, timeoutMs: SIX_HOURS, emitsEvents: true },`,
    );
    const { errors } = checkSrc(withPitchShift, asIs.program);
    // Every per-kind table is keyed by the catalog, so the compiler names each file a new kind needs.
    for (const file of [
      'src/jobs/payloads.ts',
      'src/jobs/present/job-presenters.ts',
      'src/worker/stage-handlers.ts',
      'src/http/routes/cancel.ts',
      'src/contract/dashboard.ts',
      'src/dashboard/routes/jobs.ts',
      'src/jobs/capabilities.ts',
    ]) {
      expect(errors.get(file)?.join('\n'), file).toContain('pitch-shift');
    }
  });
});
