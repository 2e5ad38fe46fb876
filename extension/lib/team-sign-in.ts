import * as oauth from 'oauth4webapi';
import { GATEWAY_STATUSES, REPEAT_DELAYS_MS } from './lost-answers.ts';

/**
 * Signing the extension in to the team's Redline server (the BFF), as an OAuth 2.1 public
 * client of the BFF's authorization server, through oauth4webapi: discovery (RFC 9728 for the
 * /v1 API, then RFC 8414), dynamic registration (RFC 7591) with the browser's extension
 * redirect URL, authorization code with PKCE S256, tokens bound to the /v1 API (RFC 8707),
 * refresh and revocation. Also the BFF's one-time sign-in links, redeemed for the same kind of
 * grant. No storage and no browser APIs here: the options page and the background call it,
 * and the BFF's tests run it against a real server.
 */

export interface TeamServer {
  /** The BFF's base address as the member gave it, without a trailing slash. */
  url: string;
  as: oauth.AuthorizationServer;
  /** The /v1 API's resource identifier, which tokens are bound to. */
  resource: string;
}

/** An OAuth grant held by the extension. Times are epoch milliseconds. */
export interface Grant {
  server: string;
  clientId: string;
  accessToken: string;
  refreshToken: string;
  expiresAt: number;
}

export class SignInError extends Error {
  constructor(
    message: string,
    /** The OAuth error code (invalid_grant, invalid_client …), when the server gave one. */
    readonly code?: string,
  ) {
    super(message);
  }
}

/** Plain http is for a BFF on this machine (the BFF itself refuses OAuth over http elsewhere). */
const options = (url: string) => (new URL(url).protocol === 'http:' ? { [oauth.allowInsecureRequests]: true as const } : {});

const unreachable = (url: string) => new SignInError(`Can't reach your team's Redline server at ${url}. Check the address and that the server is running.`);

/** Finds the authorization server that protects the server's /v1 API. */
export async function discover(serverUrl: string): Promise<TeamServer> {
  const url = serverUrl.replace(/\/+$/, '');
  let metadata: { resource?: unknown; authorization_servers?: unknown };
  try {
    const response = await fetch(`${url}/.well-known/oauth-protected-resource/v1`);
    if (response.status === 404) throw new SignInError(`${url} does not offer sign-in (is it a Redline server, and up to date?). Use a member token under Advanced instead.`);
    if (!response.ok) throw new SignInError(`${url} answered HTTP ${response.status} when asked how to sign in.`);
    metadata = await response.json();
  } catch (error) {
    throw error instanceof SignInError ? error : unreachable(url);
  }
  const issuer = Array.isArray(metadata.authorization_servers) ? String(metadata.authorization_servers[0]) : '';
  if (!issuer || typeof metadata.resource !== 'string') throw new SignInError(`${url} does not answer like a Redline server.`);
  const issuerUrl = new URL(issuer);
  const as = await oauth.processDiscoveryResponse(issuerUrl, await oauth.discoveryRequest(issuerUrl, { algorithm: 'oauth2', ...options(issuer) }));
  return { url, as, resource: metadata.resource };
}

/** Registers this browser's extension as a public client redirecting to `redirectUri`; returns the client id. */
export async function register(server: TeamServer, redirectUri: string, name: string): Promise<string> {
  try {
    const client = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        server.as,
        { client_name: name, redirect_uris: [redirectUri], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] },
        options(server.url),
      ),
    );
    return client.client_id;
  } catch (error) {
    throw asSignInError(error, 'The server refused to register this extension');
  }
}

/** What the member pasted: a sign-in link carries the server's address and a code; a bare code does not. */
export function parseSignInInput(input: string): { server?: string; code: string } | undefined {
  const text = input.trim();
  if (/^https?:\/\//i.test(text)) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return undefined;
    }
    const code = new URLSearchParams(url.hash.slice(1)).get('code');
    return code ? { server: url.origin, code } : undefined;
  }
  return /^[A-Za-z0-9_-]{20,200}$/.test(text) ? { code: text } : undefined;
}

/**
 * Redeems a one-time sign-in link's code for a grant; also returns the member's name. A
 * redemption whose answer was lost is repeated (REPEAT_DELAYS_MS): one that never reached the
 * server signs in; one the server answered has used the link up, and the member is told so.
 */
export async function redeemCode(server: TeamServer, clientId: string, code: string): Promise<{ grant: Grant; memberName: string }> {
  let answer: RepeatedAnswer;
  try {
    answer = await sendRepeatingLost(() =>
      fetch(new URL('/oauth/extension-link', server.as.issuer), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code, client_id: clientId }),
      }),
    );
  } catch {
    throw unreachable(server.url);
  }
  const { response, afterLost } = answer;
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok || typeof body.access_token !== 'string' || typeof body.refresh_token !== 'string') {
    if (afterLost && body.error === 'invalid_grant') {
      throw new SignInError("The server's answer was lost on the way, and the sign-in link it answered works only once. Ask your administrator for a new one.", 'invalid_grant');
    }
    throw new SignInError(String(body.error_description ?? `The server answered HTTP ${response.status}.`), typeof body.error === 'string' ? body.error : undefined);
  }
  const member = body.member as { name?: unknown } | undefined;
  return { grant: toGrant(server, clientId, body as unknown as oauth.TokenEndpointResponse), memberName: String(member?.name ?? '') };
}

export interface AuthorizationStart {
  url: URL;
  codeVerifier: string;
  state: string;
}

/** The authorization request (PKCE S256, bound to the /v1 API) to open in the browser's sign-in window. */
export async function startAuthorization(server: TeamServer, clientId: string, redirectUri: string): Promise<AuthorizationStart> {
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(server.as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    resource: server.resource,
  }).toString();
  return { url, codeVerifier, state };
}

/**
 * Checks where the sign-in window ended up (state, issuer, error) and exchanges the code. An
 * exchange whose answer was lost is repeated (REPEAT_DELAYS_MS): if the first never reached the
 * server, the repeat signs in; if the server did redeem the code, it refuses the repeat and
 * revokes what it gave for it (a code works once, RFC 6749 section 4.1.2), so no grant is left
 * that this client does not hold, and the member is told to sign in again.
 */
export async function finishAuthorization(server: TeamServer, clientId: string, redirectUri: string, callback: URL, start: AuthorizationStart): Promise<Grant> {
  const client = { client_id: clientId, token_endpoint_auth_method: 'none' };
  let parameters: URLSearchParams;
  try {
    parameters = oauth.validateAuthResponse(server.as, client, callback, start.state);
  } catch (error) {
    throw asSignInError(error, 'Sign-in did not complete');
  }
  let answer: RepeatedAnswer | undefined;
  try {
    answer = await sendRepeatingLost(() =>
      oauth.authorizationCodeGrantRequest(server.as, client, oauth.None(), parameters, redirectUri, start.codeVerifier, {
        additionalParameters: { resource: server.resource },
        ...options(server.url),
      }),
    );
    return toGrant(server, clientId, await oauth.processAuthorizationCodeResponse(server.as, client, answer.response));
  } catch (error) {
    if (answer?.afterLost && error instanceof oauth.ResponseBodyError && error.error === 'invalid_grant') {
      throw new SignInError("Sign-in did not complete: the server's answer was lost on the way, and the sign-in it answered cannot be used twice. Sign in again.", 'invalid_grant');
    }
    throw asSignInError(error, 'Sign-in did not complete');
  }
}

/**
 * A new access token (and the rotated refresh token). A refresh whose answer was lost is repeated
 * now (REPEAT_DELAYS_MS), not at the extension's next call: the server may have used the refresh
 * token and issued a successor this client never saw, and it answers a repeat of the same token
 * only within a short grace (REFRESH_REPEAT_GRACE_MS on the BFF, 60 s); a later one ends the
 * grant as a replay.
 */
export async function refresh(server: TeamServer, grant: Grant): Promise<Grant> {
  const client = { client_id: grant.clientId, token_endpoint_auth_method: 'none' };
  try {
    const { response } = await sendRepeatingLost(() =>
      oauth.refreshTokenGrantRequest(server.as, client, oauth.None(), grant.refreshToken, {
        additionalParameters: { resource: server.resource },
        ...options(server.url),
      }),
    );
    return toGrant(server, grant.clientId, await oauth.processRefreshTokenResponse(server.as, client, response));
  } catch (error) {
    throw asSignInError(error, 'Your sign-in could not be renewed');
  }
}

/** An answer from the server; `afterLost`: an earlier answer to the same request was lost (a refusal may answer that one). */
interface RepeatedAnswer {
  response: Response;
  afterLost: boolean;
}

/**
 * Sends a request, repeating it (REPEAT_DELAYS_MS) while its answer is lost: no answer (fetch's
 * TypeError), its body cut off, or a gateway's status in its place. Throws AnswerLost when every
 * answer was lost.
 */
async function sendRepeatingLost(send: () => Promise<Response>): Promise<RepeatedAnswer> {
  for (let repeat = 0; ; repeat++) {
    try {
      const response = await send();
      if (!(await answerLost(response))) return { response, afterLost: repeat > 0 };
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
    }
    const delay = REPEAT_DELAYS_MS[repeat];
    if (delay === undefined) throw new AnswerLost();
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/** Read as fetch's own TypeError: no answer from the server. */
class AnswerLost extends TypeError {}

/** Whether the server's answer was lost: its body cut off, or a gateway's 502/503/504 in its place (no OAuth error in it). */
async function answerLost(response: Response): Promise<boolean> {
  let text: string;
  try {
    text = await response.clone().text();
  } catch {
    return true;
  }
  if (!GATEWAY_STATUSES.has(response.status)) return false;
  try {
    return typeof (JSON.parse(text) as { error?: unknown } | null)?.error !== 'string';
  } catch {
    return true;
  }
}

/** Ends the grant on the server (revoking the refresh token ends all of it). */
export async function revoke(server: TeamServer, grant: Grant): Promise<void> {
  const client = { client_id: grant.clientId, token_endpoint_auth_method: 'none' };
  try {
    await oauth.processRevocationResponse(await oauth.revocationRequest(server.as, client, oauth.None(), grant.refreshToken, options(server.url)));
  } catch (error) {
    throw asSignInError(error, 'The server did not confirm signing out');
  }
}

function toGrant(server: TeamServer, clientId: string, tokens: oauth.TokenEndpointResponse): Grant {
  if (!tokens.refresh_token) throw new SignInError('The server gave no refresh token.');
  return {
    server: server.url,
    clientId,
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token,
    expiresAt: Date.now() + (tokens.expires_in ?? 600) * 1000,
  };
}

function asSignInError(error: unknown, context: string): SignInError {
  if (error instanceof SignInError) return error;
  if (error instanceof oauth.ResponseBodyError || error instanceof oauth.AuthorizationResponseError) {
    return new SignInError(`${context}: ${error.error_description ?? error.error}.`, error.error);
  }
  if (error instanceof TypeError) return new SignInError(`${context}: the server could not be reached.`);
  return new SignInError(`${context}: ${error instanceof Error ? error.message : String(error)}`);
}
