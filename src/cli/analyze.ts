import { existsSync } from 'node:fs';
import { loadConfig } from '../config.ts';
import { withChosenFfmpeg } from './tool-check.ts';
import { analyzeAudioDetailed } from '../analysis/analyze-audio.ts';
import { parseCommandArgs, UsageError } from './args.ts';

const USAGE = 'stemforge analyze <file> [--json] [--drums FILE] [--bass FILE] [--harmonic FILE ...]';

/**
 * `stemforge analyze <file> [--json]`: tempo, key, beats, downbeats and chords of an audio file.
 * With --json prints the fields of `GET /v1/jobs/{id}/analysis` (but `jobId`) and the Camelot code:
 * `{"bpm":126,"key":"Eb major","camelot":"5B","tempoConfidence":0.71,"keyConfidence":0.64,
 * "beatsPerBar":4,"beats":[0.512,...],"downbeats":[...],"beatConfidence":0.9,"chords":[...]}`
 * (nulls when undetectable, empty lists without a pulse). Stems from
 * `stemforge separate` may be passed to analyse the way a stem job does.
 */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    args,
    {
      json: { type: 'boolean' },
      drums: { type: 'string' },
      bass: { type: 'string' },
      harmonic: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
    USAGE,
  );
  if (values.help) {
    process.stdout.write(`usage: ${USAGE}\n`);
    return 0;
  }
  const [mixPath] = positionals;
  if (positionals.length !== 1 || mixPath === undefined)
    throw new UsageError(`expected one input file\nusage: ${USAGE}`);
  const files = [mixPath, values.drums, values.bass, ...(values.harmonic ?? [])].filter((f): f is string => !!f);
  for (const f of files) if (!existsSync(f)) throw new UsageError(`no such file: ${f}`);

  const config = await withChosenFfmpeg(loadConfig());
  const result = await analyzeAudioDetailed({
    mixPath,
    drumsPath: values.drums,
    bassPath: values.bass,
    harmonicPaths: values.harmonic,
    tools: config.ffmpeg,
  });
  if (values.json) {
    process.stdout.write(
      `${JSON.stringify({
        bpm: result.bpm,
        key: result.key,
        camelot: result.camelot,
        tempoConfidence: result.tempoConfidence,
        keyConfidence: result.keyConfidence,
        beatsPerBar: result.beatsPerBar,
        beats: result.beats,
        downbeats: result.downbeats,
        beatConfidence: result.beatConfidence,
        chords: result.chords,
      })}\n`,
    );
  } else {
    const bpm = result.bpm === null ? 'unknown (no steady pulse)' : result.bpm.toFixed(1);
    const key = result.key === null ? 'unknown (no tonal content)' : `${result.key} (Camelot ${result.camelot})`;
    const beats = result.beatsPerBar
      ? `${result.beats.length} beats, ${result.beatsPerBar} a bar, first downbeat at ${result.downbeats[0] ?? result.beats[0]} s`
      : 'none found';
    const chords = result.chords.filter((c) => c.chord !== 'N').map((c) => c.chord);
    const shown =
      chords.length > 16 ? `${chords.slice(0, 16).join(' ')} ... (${chords.length} in all)` : chords.join(' ');
    process.stdout.write(`BPM     ${bpm}\nKey     ${key}\nBeats   ${beats}\nChords  ${shown || 'none found'}\n`);
  }
  return 0;
}
