/**
 * The upstream's answer with every quote of the key, as sent or as JSON escapes it, replaced by
 * "[redacted]": its refusals' messages reach members and administrators, and its bodies are not
 * documented (a validation error that quotes the request's headers is common).
 */
export function withoutKey(text: string, key: string): string {
  if (!key) return text;
  const escaped = JSON.stringify(key).slice(1, -1);
  return text.split(key).join('[redacted]').split(escaped).join('[redacted]');
}
