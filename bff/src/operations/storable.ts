/**
 * An upstream answer made storable in both ledgers: PostgreSQL's jsonb refuses a NUL (U+0000) and
 * half of a surrogate pair in a string, which a plagiarism match can quote from a scraped page (or
 * a rewrite carry). Its completion would fail after the upstream charged it, at every resume. Each
 * such character becomes U+FFFD, as a decoder shows broken text; the input's own are refused at
 * validation (http/validation.ts), so only the upstream's own text changes.
 */
const UNSTORABLE = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const UNSTORABLE_TEST = new RegExp(UNSTORABLE.source);

/** The result, or a copy with its unstorable characters replaced: walked, not serialised, since nearly every result has none. */
export function storableResult<T>(result: T): T {
  return storable(result) as T;
}

function storable(value: unknown): unknown {
  if (typeof value === 'string') return UNSTORABLE_TEST.test(value) ? value.replace(UNSTORABLE, '\ufffd') : value;
  if (typeof value !== 'object' || value === null) return value;
  let copy: Record<string, unknown> | unknown[] | undefined;
  for (const [key, item] of Object.entries(value)) {
    const kept = storable(item);
    if (kept === item) continue;
    copy ??= Array.isArray(value) ? [...value] : { ...value };
    (copy as Record<string, unknown>)[key] = kept;
  }
  return copy ?? value;
}
