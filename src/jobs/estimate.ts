import { JOB_KINDS, kindSpec, kindsInStage } from '../domain/job-kinds.ts';
import { queueAhead } from '../store/job-edits.ts';
import type { JobDeps } from './deps.ts';
import type { Db, DbOrTx, JobKind } from '../store/schema.ts';
import { recentCompletedJobs, type JobRow } from '../store/jobs.ts';
import { presenterOf } from './present/job-presenters.ts';
import { readJob } from './read-job.ts';

/**
 * How long a job of a tier takes, as this deployment has measured it: a fixed part per job (loading
 * the model, encoding, storing) plus a part per second of audio. A per-audio-second rate alone
 * was off 2-3x both ways: a short clip's fixed part made the rate high, which then overestimated a
 * long song (and the other way round).
 */
export interface Pace {
  perJobSeconds: number;
  perAudioSecond: number;
  /** How many finished jobs of the tier it was measured on (0: the defaults). */
  measuredJobs: number;
}

/**
 * Before this deployment has finished a job of a tier: the separation benchmark on a 2-core CPU
 * (docs/separation.md) for the rate, and a few seconds for the model and the encoders.
 */
const DEFAULT_PACE: Record<string, Omit<Pace, 'measuredJobs'>> = {
  FAST: { perJobSeconds: 6, perAudioSecond: 0.35 },
  BALANCED: { perJobSeconds: 6, perAudioSecond: 0.5 },
  BEST: { perJobSeconds: 8, perAudioSecond: 0.6 },
  DENOISE: { perJobSeconds: 2, perAudioSecond: 0.1 },
};
const FALLBACK = { perJobSeconds: 8, perAudioSecond: 0.6 };

/** Jobs of each tier the pace is measured on (the most recent), and how long a measurement is reused. */
const SAMPLE = 20;
const CACHE_MS = 15_000;

/** Seconds a job of `pace` takes for `audioSeconds` of audio. */
export function jobSeconds(pace: Omit<Pace, 'measuredJobs'>, audioSeconds: number): number {
  return pace.perJobSeconds + pace.perAudioSecond * audioSeconds;
}

/**
 * The pace of one tier from its finished jobs' (audio seconds, processing seconds). With lengths
 * that differ enough, a least-squares line (the fixed part kept between 0 and the fastest job);
 * otherwise the default line scaled to go through them (the median ratio), which predicts a job
 * as long as those measured exactly as they ran.
 */
export function fitPace(tier: string, points: { audio: number; seconds: number }[]): Pace {
  const prior = DEFAULT_PACE[tier] ?? FALLBACK;
  if (points.length === 0) return { ...prior, measuredJobs: 0 };
  const audios = points.map((p) => p.audio);
  if (points.length >= 3 && Math.max(...audios) >= 1.5 * Math.min(...audios)) {
    const n = points.length;
    const mx = audios.reduce((a, b) => a + b, 0) / n;
    const my = points.reduce((a, p) => a + p.seconds, 0) / n;
    const sxx = points.reduce((a, p) => a + (p.audio - mx) ** 2, 0);
    const sxy = points.reduce((a, p) => a + (p.audio - mx) * (p.seconds - my), 0);
    const slope = sxy / sxx;
    const fixed = Math.min(Math.max(0, my - slope * mx), Math.min(...points.map((p) => p.seconds)));
    if (slope > 0) return { perJobSeconds: fixed, perAudioSecond: (my - fixed) / mx, measuredJobs: n };
  }
  const ratios = points.map((p) => p.seconds / jobSeconds(prior, p.audio)).sort((a, b) => a - b);
  const k = ratios[Math.floor(ratios.length / 2)]!;
  return {
    perJobSeconds: prior.perJobSeconds * k,
    perAudioSecond: prior.perAudioSecond * k,
    measuredJobs: points.length,
  };
}

/** Kinds whose start-to-end time is processing alone (one stage): a download stage's wait is not the tier's pace. */
const MEASURED_KINDS = JOB_KINDS.filter((k) => kindSpec(k).stages.length === 1) as [JobKind, ...JobKind[]];

const cache = new WeakMap<object, { at: number; paces: Promise<Map<string, Pace>> }>();

async function measurePaces(db: DbOrTx): Promise<Map<string, Pace>> {
  const rows = await recentCompletedJobs(db, MEASURED_KINDS, SAMPLE * 8);
  const byTier = new Map<string, { audio: number; seconds: number }[]>();
  for (const row of rows) {
    if (!row.started_at || !row.completed_at || !row.duration_seconds) continue;
    const job = readJob(row);
    const tier = presenterOf(job).paceTier(job);
    const points = byTier.get(tier) ?? [];
    if (points.length >= SAMPLE) continue;
    points.push({
      audio: row.duration_seconds,
      seconds: (Date.parse(row.completed_at) - Date.parse(row.started_at)) / 1000,
    });
    byTier.set(tier, points);
  }
  const tiers = new Set([...Object.keys(DEFAULT_PACE), ...byTier.keys()]);
  return new Map([...tiers].map((t) => [t, fitPace(t, byTier.get(t) ?? [])]));
}

/** Every tier's pace on this deployment (measured on its recent jobs, re-read every 15 s at most). */
export async function paces(db: Db | DbOrTx): Promise<Map<string, Pace>> {
  const hit = cache.get(db);
  if (hit && Date.now() - hit.at < CACHE_MS) return hit.paces;
  const fresh = measurePaces(db);
  cache.set(db, { at: Date.now(), paces: fresh });
  fresh.catch(() => cache.delete(db));
  return fresh;
}

/** The pace of `tier` (the fallback for a tier never seen). */
export function paceOf(all: Map<string, Pace>, tier: string): Pace {
  return all.get(tier) ?? { ...FALLBACK, measuredJobs: 0 };
}

/** Seconds a whole job of this row takes at its tier's pace. */
export function rowSeconds(all: Map<string, Pace>, row: JobRow): number {
  const job = readJob(row);
  return jobSeconds(paceOf(all, presenterOf(job).paceTier(job)), row.duration_seconds ?? job.input.billedSeconds);
}

/** Below this much progress the elapsed time says too little about the rest. */
const MIN_PROGRESS_FOR_PACE = 5;

/**
 * Seconds left of a running job: its tier's estimate less the time it has run, blended, as it
 * progresses, with what its own pace so far says (elapsed x rest / done). Progress is not linear in
 * time (the model loads at the start), so the elapsed pace alone misled early on.
 */
export function runningSecondsLeft(all: Map<string, Pace>, row: JobRow, now = Date.now()): number {
  const elapsed = row.started_at ? Math.max(0, (now - Date.parse(row.started_at)) / 1000) : 0;
  const byModel = Math.max(0, rowSeconds(all, row) - elapsed);
  const p = row.progress;
  if (p < MIN_PROGRESS_FOR_PACE || elapsed === 0) return Math.max(1, byModel);
  const byPace = (elapsed * (100 - p)) / p;
  return Math.max(1, (1 - p / 100) * byModel + (p / 100) * byPace);
}

/**
 * When each waiting job (in queue order, by the seconds each takes) would be done, in seconds from
 * now: `workers` workers, each free when its running job is (`runningLeft`), take the waiting jobs
 * in order, each on the first worker free. The times add up: a job never starts before one ahead
 * of it, and ends its own length after it starts.
 */
export function schedule(runningLeft: number[], waiting: number[], workers: number): number[] {
  const busy = [...runningLeft].sort((a, b) => a - b);
  const slots = Array.from({ length: Math.max(1, workers) }, (_, i) => busy[i] ?? 0);
  // More running than workers (another process's, or a lower setting now): the extra end first.
  for (const extra of busy.slice(slots.length)) {
    slots.sort((a, b) => a - b);
    slots[0] = Math.max(slots[0]!, extra);
  }
  return waiting.map((seconds) => {
    slots.sort((a, b) => a - b);
    slots[0] = slots[0]! + seconds;
    return slots[0];
  });
}

/**
 * Seconds until a job not yet created, of `audioSeconds` at `tier`, would be done: behind every
 * job waiting and running in the inference stage now (`schedule`).
 */
export async function estimateSeconds(
  deps: Pick<JobDeps, 'db' | 'config'>,
  audioSeconds: number,
  tier: string,
): Promise<number> {
  const [all, queue] = await Promise.all([
    paces(deps.db),
    queueAhead(deps.db, { kinds: kindsInStage('inference'), stage: 'inference', before: null }),
  ]);
  const times = schedule(
    queue.running.map((r) => runningSecondsLeft(all, r)),
    [...queue.waiting.map((r) => rowSeconds(all, r)), jobSeconds(paceOf(all, tier), audioSeconds)],
    deps.config.workers.concurrency,
  );
  return Math.max(1, Math.ceil(times.at(-1) ?? 1));
}
