import { useState } from 'preact/hooks';
import type { CreateDashboardJobRequestBody, DashboardJobCreatedBody } from '../../../src/contract/dashboard.ts';
import { api, messageOf } from '../api.ts';
import { bytes } from '../format.ts';
import { navigate } from '../router.ts';
import { uploadFile } from '../upload.ts';

type Source = 'file' | 'url' | 'video' | 'track';
type Task = 'stem' | 'denoise';

const OUTPUT_TYPES: [string, string][] = [
  ['BOTH', 'Vocals + instrumental'],
  ['VOCALS', 'Vocals only'],
  ['INSTRUMENTAL', 'Instrumental only'],
  ['FOUR_STEMS', 'Four stems (vocals, drums, bass, other)'],
  ['SIX_STEMS', 'Six stems (+ guitar, piano)'],
];

export function NewJob() {
  const [source, setSource] = useState<Source>('file');
  const [task, setTask] = useState<Task>('stem');
  const [file, setFile] = useState<File | null>(null);
  const [dragging, setDragging] = useState(false);
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const pick = (files: FileList | null | undefined) => {
    if (files?.[0]) setFile(files[0]);
  };

  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    const opt = (name: string) => String(form.get(name) ?? '');
    const options = {
      outputType: opt('outputType') as 'BOTH',
      quality: opt('quality') as 'BEST',
      outputFormat: opt('outputFormat') as 'MP3',
    };
    setError('');
    setBusy(true);
    try {
      let body: CreateDashboardJobRequestBody;
      if (source === 'file') {
        if (!file) throw new Error('Choose an audio file first.');
        setProgress(0);
        const uploadKey = await uploadFile(file, setProgress);
        body =
          task === 'denoise'
            ? { kind: 'denoise', uploadKey, fileName: file.name, outputFormat: options.outputFormat }
            : { kind: 'stem', uploadKey, fileName: file.name, ...options, denoiseVocals: form.has('denoiseVocals') };
      } else if (source === 'url') {
        body = { kind: 'stem', sourceUrl: opt('address'), ...options, denoiseVocals: form.has('denoiseVocals') };
      } else if (source === 'video') {
        body = { kind: 'video', videoUrl: opt('address'), ...options };
      } else {
        body = { kind: 'track', trackUrl: opt('address') };
      }
      const created = await api<DashboardJobCreatedBody>('POST', '/jobs', body);
      navigate(`/jobs/${encodeURIComponent(created.id)}`);
    } catch (err) {
      setError(messageOf(err));
      setBusy(false);
    }
  };

  const denoise = source === 'file' && task === 'denoise';
  const addressLabel = {
    url: 'Audio file address (https://…)',
    video: 'Video address',
    track: 'Track address (soundcloud.com/…)',
    file: '',
  }[source];

  return (
    <>
      <h1>New job</h1>
      <form class="stack" onSubmit={submit}>
        <fieldset class="card">
          <legend>Source</legend>
          <div class="choices">
            {(
              [
                ['file', 'Upload a file'],
                ['url', 'Remote address'],
                ['video', 'Video site'],
                ['track', 'Track site'],
              ] as [Source, string][]
            ).map(([v, l]) => (
              <label class="inline" key={v}>
                <input type="radio" name="source" value={v} checked={source === v} onChange={() => setSource(v)} /> {l}
              </label>
            ))}
          </div>
          {source === 'file' ? (
            <>
              <label
                class={dragging ? 'drop dragging' : 'drop'}
                onDragOver={(e) => {
                  e.preventDefault();
                  setDragging(true);
                }}
                onDragLeave={() => setDragging(false)}
                onDrop={(e) => {
                  e.preventDefault();
                  setDragging(false);
                  pick(e.dataTransfer?.files);
                }}
              >
                <span>Drop an audio file here, or choose one</span>
                <input
                  type="file"
                  name="file"
                  accept="audio/*,video/*,.mp3,.wav,.flac,.m4a,.ogg"
                  onChange={(e) => pick((e.target as HTMLInputElement).files)}
                />
                {file && (
                  <span class="file-name">
                    {file.name} ({bytes(file.size)})
                  </span>
                )}
              </label>
              {progress !== null && (
                <label class="stack">
                  Upload progress
                  <progress max={1} value={progress}>
                    {Math.round(progress * 100)}%
                  </progress>
                  <span class="muted">{Math.round(progress * 100)}%</span>
                </label>
              )}
            </>
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
                <input type="radio" name="task" checked={task === 'denoise'} onChange={() => setTask('denoise')} />{' '}
                Clean a voice recording (denoise)
              </label>
            </div>
          </fieldset>
        )}

        <fieldset class="card options">
          <legend>Options</legend>
          {!denoise && source !== 'track' && (
            <label>
              Output type
              <select name="outputType">
                {OUTPUT_TYPES.filter(([v]) => source !== 'video' || !v.endsWith('_STEMS')).map(([v, l]) => (
                  <option key={v} value={v}>
                    {l}
                  </option>
                ))}
              </select>
            </label>
          )}
          {!denoise && source !== 'track' && (
            <label>
              Quality
              <select name="quality">
                <option value="FAST">Fast</option>
                <option value="BALANCED">Balanced</option>
                <option value="BEST" selected>
                  Best
                </option>
              </select>
            </label>
          )}
          {source !== 'track' && (
            <label>
              Format
              <select name="outputFormat">
                <option value="MP3">MP3</option>
                <option value="WAV">WAV</option>
                <option value="FLAC">FLAC</option>
              </select>
            </label>
          )}
          {!denoise && (source === 'file' || source === 'url') && (
            <label class="inline">
              <input type="checkbox" name="denoiseVocals" /> Clean the vocals stem (denoiseVocals)
            </label>
          )}
          {source === 'track' && <p class="muted">Track jobs produce vocals, instrumental and the full audio.</p>}
        </fieldset>

        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <div>
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Starting…' : 'Start job'}
          </button>
        </div>
      </form>
    </>
  );
}
