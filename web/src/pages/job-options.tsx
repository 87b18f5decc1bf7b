import type { CapabilitiesBody } from '../../../src/contract/dashboard.ts';
import { OUTPUT_TYPE_WORDS, QUALITY_WORDS } from '../words.ts';

export type Source = 'file' | 'url' | 'video' | 'track';

/** The New-job form's choices, as strings from its selects. */
export interface OptionValues {
  outputType: string;
  quality: string;
  format: string;
  /** '': the server's choice. */
  model: string;
  denoiseVocals: boolean;
}

type Caps = CapabilitiesBody;

/** What the server offers for the form's source and task (`GET /capabilities`, filtered by the page). */
export interface Offered {
  types: Caps['outputTypes'];
  tiers: Caps['outputTypes'][number]['tiers'];
  models: Caps['models'];
  missing: Caps['outputTypes'];
  cleaning: boolean;
}

/** The Options fieldset of the New-job form: output type, tier, model, format, vocal cleaning. */
export function JobOptions({
  source,
  denoise,
  caps,
  offered,
  value,
  onChange,
}: {
  source: Source;
  denoise: boolean;
  caps: Caps | null | undefined;
  offered: Offered;
  value: OptionValues;
  onChange: (change: Partial<OptionValues>) => void;
}) {
  return (
    <fieldset class="card options">
      <legend>Options</legend>
      {!denoise && source !== 'track' && (
        <label>
          Output type
          <select
            name="outputType"
            value={value.outputType}
            onChange={(e) => onChange({ outputType: (e.target as HTMLSelectElement).value })}
          >
            {offered.types.map((t) => (
              <option key={t.outputType} value={t.outputType}>
                {OUTPUT_TYPE_WORDS[t.outputType] ?? t.outputType}
              </option>
            ))}
          </select>
        </label>
      )}
      {!denoise && source !== 'track' && (
        <label>
          Quality
          <select
            name="quality"
            value={value.quality}
            onChange={(e) => onChange({ quality: (e.target as HTMLSelectElement).value })}
          >
            {offered.tiers.map((q) => (
              <option key={q} value={q}>
                {QUALITY_WORDS[q] ?? q}
              </option>
            ))}
          </select>
        </label>
      )}
      {!denoise && (source === 'file' || source === 'url') && offered.models.length > 0 && (
        <label>
          Model
          <select
            name="model"
            value={value.model}
            onChange={(e) => onChange({ model: (e.target as HTMLSelectElement).value })}
          >
            <option value="">The server's choice</option>
            {offered.models.map((m) => (
              <option key={m.name} value={m.name}>
                {m.name} ({m.family})
              </option>
            ))}
          </select>
        </label>
      )}
      {source !== 'track' && (
        <label>
          Format
          <select
            name="outputFormat"
            value={value.format}
            onChange={(e) => onChange({ format: (e.target as HTMLSelectElement).value })}
          >
            {(caps?.formats ?? ['MP3']).map((f) => (
              <option key={f} value={f}>
                {f}
              </option>
            ))}
          </select>
        </label>
      )}
      {!denoise && offered.cleaning && (source === 'file' || source === 'url') && (
        <label class="inline">
          <input
            type="checkbox"
            name="denoiseVocals"
            checked={value.denoiseVocals}
            onChange={(e) => onChange({ denoiseVocals: (e.target as HTMLInputElement).checked })}
          />{' '}
          Clean the vocals stem
        </label>
      )}
      {source === 'track' && <p class="muted">Track jobs produce vocals, instrumental and the full audio.</p>}
      {!denoise && source !== 'track' && offered.missing.length > 0 && (
        <p class="muted not-offered">
          Not offered here:{' '}
          {offered.missing
            .map((t) => `${OUTPUT_TYPE_WORDS[t.outputType] ?? t.outputType} (needs the ${t.model} model)`)
            .join('; ')}
          .
        </p>
      )}
    </fieldset>
  );
}
