import type { CapabilitiesBody } from '../../../src/contract/dashboard.ts';
import { creditsForDuration } from '../../../src/domain/credits.ts';
import { signedInAdmin } from '../api.ts';
import { bytes, clock } from '../format.ts';

/** A chosen file, with what the browser measured of it and where its submission stands. */
export interface Chosen {
  file: File;
  /** Seconds, from the file's metadata; null while unknown (or unreadable). */
  duration: number | null;
  /** Why this file cannot be a job here (too large, too long, too short), found before uploading. */
  refused: string | null;
}

/** What the server's limits say of a file, before any byte is sent. */
export function refusal(file: File, duration: number | null, limits: CapabilitiesBody['limits']): string | null {
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
export function EstimatedCost({
  files,
  caps,
  pace,
  remote,
}: {
  files: Chosen[];
  caps: CapabilitiesBody;
  /** Processing seconds per audio second for the chosen tier. */
  pace: number | undefined;
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
  const usable = files.filter((f) => !f.refused);
  if (usable.length === 0) return null;
  const known = usable.filter((f) => f.duration !== null);
  const credits = known.reduce((n, f) => n + creditsForDuration(f.duration!) * caps.creditsPerAudioSecond, 0);
  const seconds = known.reduce((n, f) => n + f.duration!, 0);
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
      {pace !== undefined && seconds > 0 && (
        <> Processing takes about {clock(Math.max(1, seconds * pace))} once started.</>
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
