import { useEffect, useState } from 'preact/hooks';
import { clearHistory, documentOf, historyEnabledItem, historyItem, type HistoryEntry } from '../lib/history.ts';
import { PRODUCT_TITLES } from '../lib/summary.ts';

function useStored<T>(item: { getValue(): Promise<T>; watch(callback: (value: T) => void): () => void }, fallback: T): T {
  const [value, setValue] = useState<T>(fallback);
  useEffect(() => {
    void item.getValue().then(setValue);
    return item.watch(setValue);
  }, [item]);
  return value;
}

function Entries({ entries }: { entries: HistoryEntry[] }) {
  return (
    <table class="history">
      <thead>
        <tr>
          <th scope="col">Date</th>
          <th scope="col">Check</th>
          <th scope="col">Result</th>
          <th scope="col">Words</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((entry, index) => (
          <tr key={index} data-testid="history-entry">
            <td>{new Date(entry.date).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' })}</td>
            <td>{PRODUCT_TITLES[entry.product]}</td>
            <td>{entry.verdict}</td>
            <td>{entry.words.toLocaleString()}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The last checks per document, kept on this device; the current document first. */
export function History({ currentUrl }: { currentUrl?: string }) {
  const entries = useStored(historyItem, []);
  const enabled = useStored(historyEnabledItem, true);
  const current = currentUrl ? documentOf(currentUrl) : undefined;
  const documents = new Map<string, HistoryEntry[]>();
  for (const entry of entries) documents.set(entry.document, [...(documents.get(entry.document) ?? []), entry]);
  const ordered = [...documents].sort(([a], [b]) => (a === current ? -1 : b === current ? 1 : 0));
  return (
    <section aria-labelledby="history-heading" data-testid="history">
      <h2 id="history-heading">History</h2>
      <p class="row">
        <input id="keep-history" type="checkbox" checked={enabled} onChange={(event) => void historyEnabledItem.setValue(event.currentTarget.checked)} />
        <label for="keep-history">Keep a history of checks on this device</label>
      </p>
      <p class="muted">
        {enabled
          ? 'The last checks of each page (site, title, date, result and words, not the text) stay in this browser only.'
          : 'History is off: new checks are not recorded. What is listed below stays until you clear it.'}
      </p>
      {ordered.length === 0 ? (
        <p class="muted" data-testid="history-empty">
          No checks recorded.
        </p>
      ) : (
        <>
          {ordered.map(([document, items]) => (
            <details key={document} open={document === current} data-testid="history-document">
              <summary>
                {items[0]!.title || items[0]!.site || document} <span class="muted">· {items[0]!.site || 'no site'} · {items.length === 1 ? '1 check' : `${items.length} checks`}</span>
                {document === current && <span class="muted"> · this page</span>}
              </summary>
              <Entries entries={items} />
            </details>
          ))}
          <p>
            <button type="button" onClick={() => void clearHistory()}>
              Clear history
            </button>
          </p>
        </>
      )}
    </section>
  );
}
