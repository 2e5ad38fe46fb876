import { useState } from 'preact/hooks';

/** What every console page shares: products, the signed-in member, status lines (and their errors), the one-time secret panel. */

export type Product = 'detector' | 'humanizer' | 'plagiarism';
export const PRODUCTS: Product[] = ['detector', 'humanizer', 'plagiarism'];
export interface Me {
  id: string;
  name: string;
  role: 'member' | 'admin';
}

export const when = (value: string | number | null) => (value === null ? '—' : new Date(value).toLocaleString());
export const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

export interface StatusLine {
  text: string;
  kind?: 'info' | 'error';
}

/**
 * A page's status line. `fail` shows a failed API call there (left unhandled, its message
 * would reach only the browser's developer console); `attempt` runs an action, shows the text
 * it returns or its failure, and never rejects.
 */
export function useStatus() {
  const [status, setStatus] = useState<StatusLine>({ text: '' });
  const show = (text: string) => setStatus({ text, kind: 'info' });
  const clear = () => setStatus({ text: '' });
  const fail = (failure: unknown) => setStatus({ text: message(failure), kind: 'error' });
  const attempt = async (action: () => Promise<string | void>) => {
    try {
      const text = await action();
      if (text) show(text);
    } catch (failure) {
      fail(failure);
    }
  };
  return { status, show, clear, fail, attempt };
}

export function Status({ text, kind = 'info' }: StatusLine) {
  if (!text) return null;
  return (
    <p class={`status ${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {text}
    </p>
  );
}

/** A secret shown once: a token or a link, with a copy button and the warning that it is not shown again. */
export function OneTime({ label, value, onDone }: { label: string; value: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <section class="one-time" aria-label={label}>
      <h3>{label}</h3>
      <p class="warning">Copy it now: it is shown only this once and cannot be shown again.</p>
      <input readOnly value={value} aria-label={label} data-testid="one-time-value" onFocus={(event) => event.currentTarget.select()} />
      <button
        type="button"
        onClick={async () => {
          await navigator.clipboard.writeText(value).catch(() => {});
          setCopied(true);
        }}
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
      <button type="button" onClick={onDone}>
        Done, hide it
      </button>
    </section>
  );
}

