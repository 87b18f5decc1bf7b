import type { JobPeaksBody, JobViewBody } from '../../../src/contract/dashboard.ts';
import type { JobAnalysisBody } from '../../../src/contract/practice.ts';
import { ApiError } from '../api.ts';
import { bpmKey, bytes, dateTime, duration, KIND_LABEL } from '../format.ts';
import { shortId } from '../job-label.tsx';
import { NotifyButton, useJobEndNotifications } from '../notify.tsx';
import { StemPlayer, type Stem } from '../player/stem-player.tsx';
import { useData } from '../use-data.ts';
import { failureWords, OUTPUT_TYPE_WORDS, QUALITY_WORDS } from '../words.ts';
import { JobActions } from './job-actions.tsx';
import { isRunning, JobProgress, usePolling } from './job-status.tsx';
import { credits } from './jobs.tsx';

const LABELS: Record<string, string> = { fullAudio: 'Full audio', input: 'Original' };
const label = (name: string) => LABELS[name] ?? name.charAt(0).toUpperCase() + name.slice(1);

export function JobDetail({ id }: { id: string }) {
  const path = `/jobs/${encodeURIComponent(id)}`;
  const { data: job, error, reload } = useData<JobViewBody>(path);
  usePolling(job ? isRunning(job.status) : false, reload);
  useJobEndNotifications(job ? [job] : []);
  const peaks = useData<JobPeaksBody>(job?.status === 'COMPLETED' ? `${path}/peaks` : null);
  // Beats and chords for the practice controls (separations only; a denoise job has none).
  const analysis = useData<JobAnalysisBody>(
    job?.status === 'COMPLETED' && job.kind !== 'denoise' ? `${path}/analysis` : null,
  );

  if (error instanceof ApiError && error.status === 404) {
    return (
      <>
        <h1>Job not found</h1>
        <p>
          No job with this id belongs to your account. <a href="/jobs">Back to the jobs</a>.
        </p>
      </>
    );
  }
  if (error && !job) {
    return (
      <>
        <h1>Job</h1>
        <p class="error" role="alert">
          {error.message}
        </p>
      </>
    );
  }
  if (!job) return <h1>Loading job…</h1>;

  const outputs = Object.entries(job.outputs);
  const p = peaks.data?.outputs ?? {};
  const stem = (name: string, o: { url: string; fileName: string }): Stem => ({
    name,
    label: label(name),
    url: o.url,
    fileName: o.fileName,
    peaks: p[name]?.peaks,
    duration: p[name]?.duration,
  });
  const stems = outputs.filter(([name]) => name !== 'fullAudio').map(([name, o]) => stem(name, o));
  const full = job.outputs.fullAudio;
  const ready =
    job.status === 'COMPLETED' &&
    stems.length > 0 &&
    peaks.data !== null &&
    (job.kind === 'denoise' || analysis.data !== null || analysis.error !== null);
  const abStems =
    job.kind === 'denoise' && job.input.url
      ? [stem('input', { url: job.input.url, fileName: `original-${job.title}` }), ...stems]
      : null;

  const o = job.options;
  return (
    <>
      <h1>{job.title}</h1>
      <JobActions job={job} reload={reload} />
      <div class="job-head">
        {job.thumbnail && <img class="thumb" src={job.thumbnail} alt={`Thumbnail of ${job.title}`} />}
        <dl class="facts">
          <dt>Job</dt>
          <dd>
            {KIND_LABEL[job.kind] ?? job.kind} <span class="muted">{shortId(job.id)}</span>
          </dd>
          <dt>Status</dt>
          <dd class="job-status">
            <JobProgress job={job} />
            {isRunning(job.status) && <NotifyButton />}
          </dd>
          <dt>Duration</dt>
          <dd>{duration(job.durationSeconds)}</dd>
          <dt>Credits</dt>
          <dd>{credits(job)}</dd>
          <dt>BPM / key</dt>
          <dd class="bpm-key">{bpmKey(job.bpm, job.key, { tempo: job.tempoConfidence, key: job.keyConfidence })}</dd>
          <dt>Options</dt>
          <dd>
            {job.kind === 'denoise'
              ? `Voice cleaning, ${o.outputFormat}`
              : `${OUTPUT_TYPE_WORDS[o.outputType ?? ''] ?? o.outputType}, ${QUALITY_WORDS[o.quality ?? ''] ?? o.quality} quality, ${o.outputFormat}${
                  o.denoiseVocals ? ', vocals cleaned' : ''
                }`}
          </dd>
          <dt>Created</dt>
          <dd>{dateTime(job.createdAt)}</dd>
          <dt>{job.status === 'FAILED' ? 'Ended' : 'Completed'}</dt>
          <dd>{dateTime(job.completedAt)}</dd>
          {job.status === 'COMPLETED' && (job.kept || job.expiresAt) && (
            <>
              <dt>Files kept</dt>
              <dd class="kept-until">
                {job.kept
                  ? 'Kept by you: not deleted until you un-keep it'
                  : `Until ${dateTime(job.expiresAt)} (then deleted)`}
              </dd>
            </>
          )}
          {job.sourceUrl && (
            <>
              <dt>Source</dt>
              <dd>
                <a href={job.sourceUrl} rel="noopener noreferrer" target="_blank">
                  {job.sourceUrl}
                </a>
              </dd>
            </>
          )}
        </dl>
      </div>
      {job.status === 'FAILED' && (
        <div class={job.errorCode === 'JOB_CANCELLED' ? 'notice' : 'error'} role="alert">
          <p>{failureWords(job.errorCode)}</p>
          {job.errorMessage && job.errorCode !== 'JOB_CANCELLED' && (
            <details>
              <summary>What the server reported</summary>
              <p class="mono">{job.errorMessage}</p>
            </details>
          )}
        </div>
      )}
      {job.status === 'COMPLETED' && peaks.error && (
        <p class="error" role="alert">
          Waveforms unavailable: {peaks.error.message}
        </p>
      )}
      {ready && abStems && (
        <>
          <h2>Original vs cleaned</h2>
          <StemPlayer stems={abStems} mode="ab" />
        </>
      )}
      {ready && !abStems && (
        <>
          <h2>Stems</h2>
          <StemPlayer stems={stems} jobId={job.id} analysis={analysis.data} />
        </>
      )}
      {full && (
        <>
          <h2>Full audio</h2>
          <p class="full-audio">
            {/* biome-ignore lint/a11y/useMediaCaption: music without speech to caption */}
            <audio controls preload="none" src={full.url} aria-label="Full audio" />
            <a href={full.url} download={full.fileName}>
              Download full audio {bytes(full.sizeBytes)}
            </a>
          </p>
        </>
      )}
      {outputs.length > 0 && (
        <>
          <h2>Files</h2>
          <p class="actions">
            <a class="button primary" href={`/dashboard/api${path}/outputs.zip`} download>
              Download all (ZIP)
            </a>
            {job.expiresAt && !job.kept && (
              <span class="muted">Kept until {dateTime(job.expiresAt)}, then deleted.</span>
            )}
          </p>
          <ul class="files">
            {outputs.map(([name, o]) => (
              <li key={name}>
                <a href={o.url} download={o.fileName}>
                  {o.fileName}
                </a>{' '}
                <span class="muted">
                  {o.format} {bytes(o.sizeBytes)}
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}
