import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROMTOOL } from './helpers/prometheus.ts';

const repo = join(import.meta.dirname, '..');
const RULES = join(repo, 'docs', 'alerts.yml');
const RULE_TESTS = join(repo, 'test', 'fixtures', 'alert-rules.test.yml');

const promtool = (...args: string[]) => {
  const r = spawnSync(PROMTOOL, args, { encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
};

/**
 * Issue 40, alerts you can act on: the shipped rules (docs/alerts.yml) are valid Prometheus rules,
 * and their unit tests (test/fixtures/alert-rules.test.yml: an idle fleet fires nothing; each alert
 * fires on its fault, with its labels and text) pass under Debian's promtool.
 */
describe('alert rules (promtool)', () => {
  it('promtool check rules accepts docs/alerts.yml: the six alerts', () => {
    const { status, output } = promtool('check', 'rules', RULES);
    expect(output).toContain('SUCCESS: 6 rules found');
    expect(status).toBe(0);
  });

  it('promtool test rules passes their unit tests', () => {
    const { status, output } = promtool('test', 'rules', RULE_TESTS);
    expect(output).toContain('SUCCESS');
    expect(status).toBe(0);
  });

  it('the unit tests do fail a wrong rule: a failure-ratio threshold of one half misses the 39 % case', () => {
    const dir = mkdtempSync(join(tmpdir(), 'stemforge-alerts-'));
    const docs = join(dir, 'docs');
    const fixtures = join(dir, 'test', 'fixtures');
    for (const d of [docs, fixtures]) mkdirSync(d, { recursive: true });
    const rules = readFileSync(RULES, 'utf8');
    expect(rules).toContain('> 0.25');
    writeFileSync(join(docs, 'alerts.yml'), rules.replace('> 0.25', '> 0.5'));
    writeFileSync(join(fixtures, 'alert-rules.test.yml'), readFileSync(RULE_TESTS, 'utf8'));
    const { status, output } = promtool('test', 'rules', join(fixtures, 'alert-rules.test.yml'));
    rmSync(dir, { recursive: true, force: true });
    expect(output).toContain('alertname: StemforgeJobFailureRatio');
    expect(status).not.toBe(0);
  });
});
