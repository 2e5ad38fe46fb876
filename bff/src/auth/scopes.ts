import type { Product } from '@redline/shared';

/**
 * What an OAuth grant lets its client do (RFC 6749 section 3.3): one scope per product, so
 * that a team can let an assistant check text without letting it spend humanizer words.
 * Member tokens are not scoped: they are the member's own key.
 */
export const SCOPES = {
  detect: { product: 'detector', consent: 'check text for AI writing (detector words)' },
  humanize: { product: 'humanizer', consent: 'rewrite text (humanizer words)' },
  sources: { product: 'plagiarism', consent: 'check text for sources (plagiarism words)' },
} as const satisfies Record<string, { product: Product; consent: string }>;

export type Scope = keyof typeof SCOPES;

export const ALL_SCOPES = Object.keys(SCOPES) as Scope[];

/** Scopes some clients ask for by habit and that change nothing here (refresh tokens are always issued). */
const IGNORED = new Set(['offline_access']);

const isScope = (value: string): value is Scope => Object.hasOwn(SCOPES, value);

/**
 * The scopes an authorization request's `scope` names: every scope when it names none (the
 * default, as before scopes existed); a problem, for the client's developer, when it names one
 * this server does not know.
 */
export function requestedScopes(scope: string | undefined): { scopes: Scope[]; problem?: undefined } | { problem: string } {
  const named = (scope ?? '').split(' ').filter((value) => value && !IGNORED.has(value));
  const unknown = named.filter((value) => !isScope(value));
  if (unknown.length > 0) return { problem: `unknown scope ${unknown.slice(0, 3).join(', ')}: scope may name ${ALL_SCOPES.join(', ')} (or be left out for all of them)` };
  return { scopes: named.length === 0 ? ALL_SCOPES : ALL_SCOPES.filter((known) => named.includes(known)) };
}

/** A stored grant's scopes; a grant made before scopes existed holds none and may do everything. */
export function grantedScopes(stored: readonly string[]): Scope[] {
  const known = stored.filter(isScope);
  return known.length === 0 ? ALL_SCOPES : ALL_SCOPES.filter((scope) => known.includes(scope));
}

/**
 * What a refresh's `scope` names beyond its grant (RFC 6749 section 6: a refresh cannot widen
 * it). Not beyond: the grant's scopes, what a grant made before scopes existed was asked for
 * ("mcp", kept as it was), and the scopes ignored at the authorization request.
 */
export function beyondGrant(requested: readonly string[], stored: readonly string[]): string[] {
  const granted: readonly string[] = grantedScopes(stored);
  return requested.filter((scope) => scope && !IGNORED.has(scope) && !granted.includes(scope) && !stored.includes(scope));
}

export const scopeFor = (product: Product): Scope => ALL_SCOPES.find((scope) => SCOPES[scope].product === product)!;
