import { useState } from 'preact/hooks';

/**
 * A secret the server shows once: the value, a copy button and the warning. `kept` says what the
 * server keeps of it, which differs: an API key's hash only, a webhook's secret itself (to sign).
 */
export function ShownOnce({
  title,
  value,
  kept,
  onDone,
}: {
  title: string;
  value: string;
  kept: string;
  onDone: () => void;
}) {
  const [copied, setCopied] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('Copied.');
    } catch {
      setCopied('Copying is blocked here: select the text and copy it.');
    }
  };
  return (
    <section class="card secret" aria-label={title}>
      <h2>{title}</h2>
      <p class="warning" role="status">
        Copy it now: this is the only time it is shown. {kept}
      </p>
      <div class="secret-row">
        <input
          class="mono"
          type="text"
          readOnly
          value={value}
          aria-label={title}
          onFocus={(e) => e.currentTarget.select()}
        />
        <button type="button" onClick={copy}>
          Copy
        </button>
      </div>
      <p class="muted" aria-live="polite">
        {copied}
      </p>
      <button type="button" onClick={onDone}>
        I have copied it
      </button>
    </section>
  );
}
