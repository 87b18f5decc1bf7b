import type { CapabilitiesBody } from '../../../src/contract/dashboard.ts';
import { creditsForDuration } from '../../../src/domain/credits.ts';
import { signedInAdmin } from '../api.ts';
import { bytes, clock } from '../format.ts';

/** A chosen file, with what the browser measured of it and where its submission stands. */
export interface Chosen {
  file: File;
  /** Seconds, from the file's metadata; null while unknown (or unreadable). */
  duration: number | null;
  /** Why this file cannot be a job here (not audio, too large, too long, too short), found before uploading. */
  refused: string | null;
  /** Still being read and decoded. */
  checking?: boolean;
}

/**
 * The one rounding rule, said one way: a file counts its whole seconds rounded up (what the server
 * bills, `creditsForDuration`), and lengths shown beside credits are the sum of those.
 */
export const billedSeconds = (duration: number) => creditsForDuration(duration);

/** What the server's limits say of a file (and whether it decodes), before any byte is sent. */
export function refusal(
  file: File,
  duration: number | null,
  limits: CapabilitiesBody['limits'],
  decodes: boolean | null = null,
): string | null {
  if (decodes === false) return 'this is not audio this browser can read (a damaged file, or another format)';
  if (file.size > limits.maxFileSizeBytes) return `larger than the ${bytes(limits.maxFileSizeBytes)} limit`;
  if (duration !== null && duration > limits.maxDurationSeconds)
    return `longer than the ${clock(limits.maxDurationSeconds)} limit`;
  if (duration !== null && duration < limits.minDurationSeconds)
    return `shorter than the ${limits.minDurationSeconds} s minimum`;
  return null;
}

/**
 * "Estimated cost …" before Start: credits are seconds of audio rounded up per file (the server's
 * own rule, `creditsForDuration`), from the lengths the browser reads; the server bills the length
 * it decodes, so this is an estimate. With the balance after, and the processing time at this
 * server's pace for the tier.
 */
/** What the chosen files cost, and whether the balance covers them (null: metering off, or nothing known). */
export function costOf(files: Chosen[], caps: CapabilitiesBody) {
  const usable = files.filter((f) => !f.refused);
  const known = usable.filter((f) => f.duration !== null);
  const seconds = known.reduce((n, f) => n + billedSeconds(f.duration!), 0);
  const credits = seconds * caps.creditsPerAudioSecond;
  return { usable, known, seconds, credits, covered: !caps.metering || credits <= caps.balanceSeconds };
}

/**
 * How long the chosen files take once the first starts: each `perJobSeconds + perAudioSecond x its
 * length` at the tier's measured pace, run `workers` at a time in order (what the server's queue does).
 */
export function batchSeconds(lengths: number[], pace: CapabilitiesBody['pace'][string], workers: number): number {
  const slots = Array.from({ length: Math.max(1, workers) }, () => 0);
  for (const length of lengths) {
    slots.sort((a, b) => a - b);
    slots[0] = slots[0]! + pace.perJobSeconds + pace.perAudioSecond * length;
  }
  return Math.max(...slots);
}

export function EstimatedCost({
  files,
  caps,
  pace,
  remote,
}: {
  files: Chosen[];
  caps: CapabilitiesBody;
  /** The chosen tier's pace on this server. */
  pace: CapabilitiesBody['pace'][string] | undefined;
  /** A remote address, a video or a track: the length is known only once the server reads it. */
  remote: boolean;
}) {
  if (!caps.metering) {
    return (
      <p class="cost" aria-live="polite">
        Metering is off on this server: jobs cost no credits.
      </p>
    );
  }
  if (remote) {
    return (
      <p class="cost" aria-live="polite">
        Estimated cost: 1 credit per second of audio, known once the server reads the address. Your balance is{' '}
        {caps.balanceSeconds} credits.
      </p>
    );
  }
  const { usable, known, seconds, credits } = costOf(files, caps);
  if (usable.length === 0) return null;
  const unknown = usable.length - known.length;
  const after = caps.balanceSeconds - credits;
  return (
    <p class="cost" aria-live="polite" data-credits={credits}>
      Estimated cost: <strong>{credits} credits</strong> for {clock(seconds)} of audio
      {usable.length > 1 ? ` in ${usable.length} files` : ''}
      {unknown > 0 ? `, plus the length of ${unknown} file${unknown > 1 ? 's' : ''} this browser cannot read` : ''}.{' '}
      {after >= 0 ? (
        <>
          Your balance after: {after} of {caps.balanceSeconds} credits.
        </>
      ) : (
        <>
          <span class="error">Your balance ({caps.balanceSeconds} credits) does not cover this.</span>
          <GrantHint needed={credits - caps.balanceSeconds} />
        </>
      )}
      {pace !== undefined && known.length > 0 && (
        <>
          {' '}
          {known.length > 1 ? `The ${known.length} jobs take` : 'Processing takes'} about{' '}
          {clock(
            batchSeconds(
              known.map((f) => f.duration!),
              pace,
              caps.workerConcurrency,
            ),
          )}{' '}
          once {known.length > 1 ? 'the first starts' : 'started'}
          {pace.measuredJobs > 0 ? ' (at the pace measured on this server)' : ''}.
        </>
      )}
    </p>
  );
}

/**
 * Not enough credit, seen by an admin (who runs this server): where to grant it, on the Admin pages
 * or with the command line. Others read only that the balance does not cover the job.
 */
export function GrantHint({ needed }: { needed: number }) {
  const admin = signedInAdmin();
  if (!admin) return null;
  return (
    <span class="grant-hint">
      {' '}
      As an admin, <a href={`/admin/accounts/${encodeURIComponent(admin.id)}`}>grant yourself credit</a> or run{' '}
      <code>
        stemforge credits grant --account {admin.id} --seconds {Math.max(1, needed)}
      </code>
      .
    </span>
  );
}
