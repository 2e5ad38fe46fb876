/**
 * An upstream answer made storable in both ledgers: PostgreSQL's jsonb refuses a NUL (U+0000) and
 * half of a surrogate pair in a string, which a plagiarism match can quote from a scraped page (or
 * a rewrite carry). Its completion would fail after the upstream charged it, at every resume. Each
 * such character becomes U+FFFD, as a decoder shows broken text; the input's own are refused at
 * validation (http/validation.ts), so only the upstream's own text changes.
 */
const UNSTORABLE = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function storableResult<T>(result: T): T {
  const json = JSON.stringify(result);
  // Well-formed JSON.stringify escapes both as \u0000 and \udXXX; a string without them has none.
  if (!/\\u0000|\\ud[89a-f]/i.test(json)) return result;
  return JSON.parse(json, (_key, value: unknown) => (typeof value === 'string' ? value.replace(UNSTORABLE, '\ufffd') : value)) as T;
}
