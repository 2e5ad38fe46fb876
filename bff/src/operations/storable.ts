/**
 * An upstream answer (a result, or a refusal's message and fields) made storable in both ledgers:
 * PostgreSQL's jsonb refuses a NUL (U+0000) and half of a surrogate pair in a string, which a
 * plagiarism match can quote from a scraped page (or a rewrite carry, or a refusal quote). Its
 * settlement would fail after the upstream answered, at every resume. Each such character, in a
 * value or a key, becomes U+FFFD, as a decoder shows broken text; the input's own are refused at
 * validation (http/validation.ts), so only the upstream's own text changes.
 */
const UNSTORABLE = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const UNSTORABLE_TEST = new RegExp(UNSTORABLE.source);

/** The result, or a copy with its unstorable characters replaced: walked, not serialised, since nearly every result has none. */
export function storableResult<T>(result: T): T {
  return storable(result) as T;
}

const storableText = (text: string) => (UNSTORABLE_TEST.test(text) ? text.replace(UNSTORABLE, '\ufffd') : text);

function storable(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (typeof value !== 'object' || value === null) return value;
  let copy: Record<string, unknown> | unknown[] | undefined;
  for (const [key, item] of Object.entries(value)) {
    const keptKey = storableText(key); // an object's keys too: a refusal's field names are the upstream's
    const kept = storable(item);
    if (kept === item && keptKey === key) continue;
    copy ??= Array.isArray(value) ? [...value] : { ...value };
    if (keptKey !== key) delete (copy as Record<string, unknown>)[key];
    (copy as Record<string, unknown>)[keptKey] = kept;
  }
  return copy ?? value;
}
