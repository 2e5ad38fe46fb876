import type { Response } from 'express';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { SCOPES, grantedScopes } from './scopes.ts';

export const CONSENT_PATH = '/oauth/consent';

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[character]!);

/** For the title, where nothing can isolate it: a name's controls, line breaks and direction characters as spaces. */
const plainLine = (value: string) => value.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\s]+/gu, ' ').trim();

export interface ConsentView {
  client: Pick<OAuthClientInformationFull, 'client_name' | 'client_uri'>;
  redirectUri: string;
  /** What the client asks to do (auth/scopes.ts). */
  scopes: readonly string[];
  /** The signed authorization request (auth/tokens.ts), posted back with the decision. */
  request: string;
  error?: string;
}

/**
 * The page where a member approves an MCP client: the client's name and where it will be
 * sent back to, a member token or a one-time sign-in link to sign in with, Approve and Deny. It cannot be framed, and
 * the form may post only here and redirect only to the client. The name is the client's own word (registration is
 * open): isolated (`bdi`), so that direction characters in it cannot reorder the host or the question around it.
 */
export function renderConsentPage(res: Response, view: ConsentView, status = 200): void {
  const redirect = new URL(view.redirectUri);
  const name = view.client.client_name?.trim() || 'An unnamed application';
  const abilities = grantedScopes(view.scopes).map((scope) => `<li>${SCOPES[scope].consent}</li>`).join('');
  res
    .status(status)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Frame-Options': 'DENY',
      // same-origin, not no-referrer: with no-referrer the browser sends "Origin: null" on the form post.
      'Referrer-Policy': 'same-origin',
      'Content-Security-Policy': `default-src 'none'; style-src 'unsafe-inline'; form-action 'self' ${redirect.origin}; frame-ancestors 'none'; base-uri 'none'`,
    })
    .send(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Allow ${escapeHtml(plainLine(name))} to use Redline?</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 32rem; margin: 3rem auto; padding: 0 1rem; color: #1d1d1f; }
  h1 { font-size: 1.35rem; }
  .host { font-family: ui-monospace, monospace; background: #f2f2f5; padding: 0 .25rem; border-radius: 3px; }
  label { display: block; margin: 1.25rem 0 .25rem; font-weight: 600; }
  input { width: 100%; box-sizing: border-box; padding: .5rem; font: inherit; }
  .error { color: #b00020; }
  .hint { color: #555; font-size: .9rem; margin: .35rem 0 0; }
  .actions { display: flex; gap: .75rem; margin-top: 1.25rem; }
  button { font: inherit; padding: .5rem 1.25rem; cursor: pointer; }
  button[value=approve] { background: #1d4ed8; color: white; border: 0; border-radius: 4px; }
</style>
</head>
<body>
<h1>Allow <strong id="client-name"><bdi>${escapeHtml(name)}</bdi></strong> to use Redline as you?</h1>
<p>With your team's account, charged to your word budget, it will be able to:</p>
<ul id="scopes">${abilities}</ul>
<p>It will be sent back to <span class="host" id="redirect-host">${escapeHtml(redirect.host)}</span>.</p>
<p>Only approve if you started this sign-in yourself. You can revoke it at any time from the application, and your administrator can revoke your access.</p>
<form method="post" action="${CONSENT_PATH}">
  <input type="hidden" name="request" value="${escapeHtml(view.request)}">
  <label for="credential">Your member token, or a one-time sign-in link</label>
  <input id="credential" name="credential" type="password" autocomplete="current-password" placeholder="rl_… or https://…/connect#code=…" spellcheck="false" aria-describedby="credential-hint">
  <p class="hint" id="credential-hint">No token? In the team console, <em>My usage</em> makes a sign-in link for you (or ask your administrator for one). A link works once.</p>
  ${view.error ? `<p class="error" role="alert">${escapeHtml(view.error)}</p>` : ''}
  <div class="actions">
    <button type="submit" name="decision" value="approve">Approve</button>
    <button type="submit" name="decision" value="deny">Deny</button>
  </div>
</form>
</body>
</html>`);
}
