import { useEffect, useRef, useState } from 'preact/hooks';
import type {
  CapabilitiesBody,
  CreateDashboardJobRequestBody,
  DashboardJobCreatedBody,
} from '../../../src/contract/dashboard.ts';
import { api, messageOf } from '../api.ts';
import { decodesAsAudio, fileDuration } from '../file-duration.ts';
import { navigate } from '../router.ts';
import { uploadFile } from '../upload.ts';
import { useData } from '../use-data.ts';
import { BatchList, type Submitted } from './batch.tsx';
import { type Chosen, costOf, EstimatedCost, refusal } from './cost.tsx';
import { FilePicker } from './file-picker.tsx';
import { JobOptions, type Source } from './job-options.tsx';

type Task = 'stem' | 'denoise';
type Options = { outputType: 'BOTH'; quality: 'BEST'; outputFormat: 'MP3'; denoiseVocals: boolean };

const SOURCES: [Source, string][] = [
  ['file', 'Upload files'],
  ['url', 'Remote address'],
  ['video', 'Video site'],
  ['track', 'Track site'],
];

/**
 * The New-job form offers only what this server can do now (GET /capabilities: output types whose
 * model is installed, their tiers, voice cleaning, the limits), says what it will cost before Start,
 * and makes one job per file chosen. Each file is uploaded once per visit of the page: a retry after
 * a refusal reuses the upload.
 */
export function NewJob() {
  const caps = useData<CapabilitiesBody>('/capabilities').data;
  const [source, setSource] = useState<Source>('file');
  const [task, setTask] = useState<Task>('stem');
  const [files, setFiles] = useState<Chosen[]>([]);
  const [outputType, setOutputType] = useState('BOTH');
  const [quality, setQuality] = useState('BEST');
  const [format, setFormat] = useState('MP3');
  const [denoiseVocals, setDenoiseVocals] = useState(false);
  // '': the server's choice; else an installed model that serves the output type (GET /capabilities).
  const [model, setModel] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [submitted, setSubmitted] = useState<Submitted[]>([]);
  /** The options the list below was started with: other options start new jobs for every file. */
  const [submittedWith, setSubmittedWith] = useState('');
  const uploads = useRef(new Map<File, Promise<string>>());

  const types = (caps?.outputTypes ?? []).filter(
    (t) => t.installed && (source !== 'video' || !t.outputType.endsWith('_STEMS')),
  );
  const missing = (caps?.outputTypes ?? []).filter((t) => !t.installed);
  const tiers = types.find((t) => t.outputType === outputType)?.tiers ?? [];
  const cleaning = caps?.voiceCleaning.installed ?? false;
  const models = (caps?.models ?? []).filter((m) => m.outputTypes.includes(outputType as 'BOTH'));
  const chosenModel = models.some((m) => m.name === model) ? { model } : {};
  // Keep the choices inside what is offered when the offer changes.
  useEffect(() => {
    if (types.length && !types.some((t) => t.outputType === outputType)) setOutputType(types[0]!.outputType);
  }, [types.map((t) => t.outputType).join()]);
  useEffect(() => {
    if (tiers.length && !tiers.includes(quality as 'BEST')) setQuality(tiers[tiers.length - 1]!);
  }, [tiers.join()]);

  const pick = async (list: FileList | null | undefined) => {
    const picked = [...(list ?? [])];
    if (!picked.length || !caps) return;
    setSubmitted([]);
    setFiles(picked.map((file) => ({ file, duration: null, refused: null, checking: true })));
    const measured = await Promise.all(
      picked.map(async (file) => {
        const [duration, decodes] = await Promise.all([fileDuration(file), decodesAsAudio(file)]);
        return { file, duration, refused: refusal(file, duration, caps.limits, decodes), checking: false };
      }),
    );
    setFiles(measured);
  };

  const denoise = source === 'file' && task === 'denoise';
  const options: Options = {
    outputType: outputType as 'BOTH',
    quality: quality as 'BEST',
    outputFormat: format as 'MP3',
    denoiseVocals: cleaning && denoiseVocals,
  };
  const usable = files.filter((f) => !f.refused);
  const optionsKey = JSON.stringify({ denoise, ...options });
  // The same options as the list below: Start retries only the files refused there (each upload is
  // reused); other options, or nothing left to retry: new jobs for every file, said on the button.
  const retrying = submitted.length > 0 && submittedWith === optionsKey && submitted.some((s) => !s.jobId && s.error);
  const toStart = retrying ? submitted.filter((s) => !s.jobId).length : usable.length;
  const cost = caps ? costOf(files, caps) : null;
  const checking = files.some((f) => f.checking);

  const createFor = (file: File, uploadKey: string): CreateDashboardJobRequestBody =>
    denoise
      ? { kind: 'denoise', uploadKey, fileName: file.name, outputFormat: options.outputFormat }
      : { kind: 'stem', uploadKey, fileName: file.name, ...options, ...chosenModel };

  const submitFiles = async () => {
    let state: Submitted[] = usable.map((f, i) => ({
      name: f.file.name,
      upload: null,
      jobId: retrying ? (submitted[i]?.jobId ?? null) : null,
      error: null,
    }));
    setSubmittedWith(optionsKey);
    const update = (i: number, patch: Partial<Submitted>) => {
      state = state.map((s, j) => (j === i ? { ...s, ...patch } : s));
      setSubmitted(state);
    };
    setSubmitted(state);
    // One file at a time: each upload gets the whole connection, and the first job starts soonest.
    for (const [i, { file }] of usable.entries()) {
      if (state[i]!.jobId) continue;
      try {
        let key = uploads.current.get(file);
        if (!key) {
          key = uploadFile(file, (fraction) => update(i, { upload: fraction }));
          uploads.current.set(file, key);
          key.catch(() => uploads.current.delete(file));
        }
        const uploadKey = await key;
        update(i, { upload: 1 });
        const created = await api<DashboardJobCreatedBody>('POST', '/jobs', createFor(file, uploadKey));
        update(i, { jobId: created.id });
      } catch (err) {
        update(i, { error: messageOf(err) });
      }
    }
    return state;
  };

  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    const address = String(new FormData(e.target as HTMLFormElement).get('address') ?? '');
    setError('');
    setBusy(true);
    try {
      if (source === 'file') {
        if (usable.length === 0) throw new Error('Choose one or more audio files first.');
        const done = await submitFiles();
        // One file: its page, as before; several: stay on the one progress list.
        if (done.length === 1 && done[0]!.jobId) navigate(`/jobs/${encodeURIComponent(done[0]!.jobId)}`);
        setBusy(false);
        return;
      }
      const { denoiseVocals: dv, ...separation } = options;
      const body: CreateDashboardJobRequestBody =
        source === 'url'
          ? { kind: 'stem', sourceUrl: address, ...separation, denoiseVocals: dv, ...chosenModel }
          : source === 'video'
            ? { kind: 'video', videoUrl: address, ...separation }
            : { kind: 'track', trackUrl: address };
      const created = await api<DashboardJobCreatedBody>('POST', '/jobs', body);
      navigate(`/jobs/${encodeURIComponent(created.id)}`);
    } catch (err) {
      setError(messageOf(err));
      setBusy(false);
    }
  };

  const addressLabel = {
    url: 'Audio file address (https://…)',
    video: 'Video address',
    track: 'Track address (soundcloud.com/…)',
    file: '',
  }[source];
  const startLabel =
    source !== 'file'
      ? 'Start job'
      : retrying
        ? `Retry ${toStart === 1 ? 'the refused file' : `the ${toStart} refused files`}`
        : usable.length > 1
          ? `Start ${usable.length} jobs`
          : 'Start job';
  // Too little credit for what is chosen: Start waits (the cost line says why) instead of starting
  // some jobs and refusing the rest.
  const short = source === 'file' && cost !== null && !cost.covered;

  return (
    <>
      <h1>New job</h1>
      {!caps && <p class="muted">Reading what this server can do…</p>}
      <form class="stack" onSubmit={submit}>
        <fieldset class="card">
          <legend>Source</legend>
          <div class="choices">
            {SOURCES.map(([v, l]) => (
              <label class="inline" key={v}>
                <input type="radio" name="source" value={v} checked={source === v} onChange={() => setSource(v)} /> {l}
              </label>
            ))}
          </div>
          {source === 'file' ? (
            <FilePicker files={files} onPick={(list) => void pick(list)} />
          ) : (
            <label>
              {addressLabel}
              <input name="address" type="text" inputMode="url" required autocomplete="off" />
            </label>
          )}
        </fieldset>

        {source === 'file' && (
          <fieldset class="card">
            <legend>What to do</legend>
            <div class="choices">
              <label class="inline">
                <input type="radio" name="task" checked={task === 'stem'} onChange={() => setTask('stem')} /> Separate
                into stems
              </label>
              <label class="inline">
                <input
                  type="radio"
                  name="task"
                  disabled={!cleaning}
                  checked={task === 'denoise'}
                  onChange={() => setTask('denoise')}
                />{' '}
                Clean a voice recording (denoise)
              </label>
            </div>
            {caps && !cleaning && (
              <p class="muted">
                Voice cleaning needs the {caps.voiceCleaning.model} model, which is not installed on this server.
              </p>
            )}
          </fieldset>
        )}

        <JobOptions
          source={source}
          denoise={denoise}
          caps={caps}
          offered={{ types, tiers, models, missing, cleaning }}
          value={{ outputType, quality, format, model, denoiseVocals }}
          onChange={(c) => {
            if (c.outputType !== undefined) setOutputType(c.outputType);
            if (c.quality !== undefined) setQuality(c.quality);
            if (c.format !== undefined) setFormat(c.format);
            if (c.model !== undefined) setModel(c.model);
            if (c.denoiseVocals !== undefined) setDenoiseVocals(c.denoiseVocals);
          }}
        />

        {caps && (
          <EstimatedCost
            files={files}
            caps={caps}
            pace={caps.pace[denoise ? 'DENOISE' : quality]}
            remote={source !== 'file'}
          />
        )}
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <div>
          <button
            type="submit"
            class="primary"
            disabled={busy || !caps || short || checking}
            aria-describedby={short ? 'start-why' : undefined}
          >
            {busy ? 'Starting…' : startLabel}
          </button>
          {short && (
            <p id="start-why" class="muted">
              Start is off: the balance does not cover these files. Choose fewer or shorter files, or get more credit.
            </p>
          )}
        </div>
      </form>
      {submitted.length > 0 && <BatchList items={submitted} />}
    </>
  );
}
