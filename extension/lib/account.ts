import { storage } from '#imports';
import { browser } from 'wxt/browser';
import type { BffConnection, BffResult } from './bff-client.ts';
import { serverAddressProblem } from './server-address.ts';
import { getSettings, tokenItem, updateSettings } from './settings.ts';
import {
  discover,
  finishAuthorization,
  parseSignInInput,
  redeemCode,
  refresh,
  register,
  revoke,
  SignInError,
  startAuthorization,
  type Grant,
  type TeamServer,
} from './team-sign-in.ts';

/**
 * The member's account on the team's Redline server, as the extension holds it: a grant
 * from signing in (a one-time link or code, or the server's own sign-in window), or a member
 * token pasted under Advanced. Credentials live in extension storage only, are read by the
 * background and extension pages (never by content scripts) and are never logged.
 */

export interface SignedIn extends Grant {
  memberName: string;
  via: 'link' | 'server';
}

export const signInItem = storage.defineItem<SignedIn | null>('local:signIn', { fallback: null });

/** The client id this extension registered with a server (registration is rate limited: keep it). */
const clientItem = storage.defineItem<{ server: string; redirectUri: string; clientId: string } | null>('local:oauthClient', { fallback: null });

const CLIENT_NAME = 'Redline browser extension';
/** Renew the access token this long before it expires. */
const RENEW_MARGIN_MS = 60_000;
const LOCK = 'redline-sign-in';

/** The browser's redirect URL for this extension: https://<id>.chromiumapp.org/ (Chrome), https://<hash>.extensions.allizom.org/ (Firefox). */
const redirectUri = () => browser.identity.getRedirectURL();

async function clientFor(server: TeamServer, redirect: string, fresh = false): Promise<string> {
  const known = await clientItem.getValue();
  if (!fresh && known && known.server === server.url && known.redirectUri === redirect) return known.clientId;
  const clientId = await register(server, redirect, CLIENT_NAME);
  await clientItem.setValue({ server: server.url, redirectUri: redirect, clientId });
  return clientId;
}

/** Runs `attempt` with this browser's client id, registering again once if the server forgot it (a reset server). */
async function withClient<T>(server: TeamServer, attempt: (clientId: string, redirect: string) => Promise<T>): Promise<T> {
  const redirect = redirectUri();
  try {
    return await attempt(await clientFor(server, redirect), redirect);
  } catch (error) {
    if (!(error instanceof SignInError) || error.code !== 'invalid_client') throw error;
    return attempt(await clientFor(server, redirect, true), redirect);
  }
}

async function keep(server: TeamServer, grant: Grant, memberName: string, via: SignedIn['via']): Promise<SignedIn> {
  const signedIn = { ...grant, memberName, via };
  await signInItem.setValue(signedIn);
  // One way in at a time: a grant replaces a pasted token, and the grant's server is the address.
  await tokenItem.setValue('');
  await updateSettings({ bffUrl: server.url });
  return signedIn;
}

/** Signs in with a one-time link (which names the server) or a bare code (for the server under Advanced). */
export async function signInWithLink(input: string): Promise<SignedIn> {
  const parsed = parseSignInInput(input);
  if (!parsed) throw new SignInError('Paste the whole sign-in link (it starts with https:// or http://), or the code from it.');
  const address = parsed.server ?? (await getSettings()).bffUrl;
  const problem = serverAddressProblem(address);
  if (problem) throw new SignInError(problem);
  const server = await discover(address);
  const { grant, memberName } = await withClient(server, (clientId) => redeemCode(server, clientId, parsed.code));
  return keep(server, grant, memberName, 'link');
}

/**
 * "Sign in with your team's server": the server's sign-in and consent page in the browser's
 * authentication window (identity.launchWebAuthFlow), authorization code with PKCE S256.
 */
export async function signInWithServer(serverUrl: string): Promise<SignedIn> {
  const problem = serverAddressProblem(serverUrl);
  if (problem) throw new SignInError(problem);
  const server = await discover(serverUrl);
  const grant = await withClient(server, async (clientId, redirect) => {
    const start = await startAuthorization(server, clientId, redirect);
    let finalUrl: string | undefined;
    try {
      finalUrl = await browser.identity.launchWebAuthFlow({ url: start.url.href, interactive: true });
    } catch (error) {
      throw new SignInError(`Sign-in was not completed (${error instanceof Error ? error.message : String(error)}).`);
    }
    if (!finalUrl) throw new SignInError('Sign-in was not completed.');
    return finishAuthorization(server, clientId, redirect, new URL(finalUrl), start);
  });
  const memberName = await memberNameOf(server.url, grant.accessToken);
  return keep(server, grant, memberName, 'server');
}

async function memberNameOf(url: string, accessToken: string): Promise<string> {
  const response = await fetch(`${url}/v1/usage`, { headers: { authorization: `Bearer ${accessToken}` } }).catch(() => undefined);
  const body = (await response?.json().catch(() => undefined)) as { member?: { name?: string } } | undefined;
  return body?.member?.name ?? '';
}

/** Ends the grant on the server (best effort: the grant is forgotten here whatever the server says). */
export async function signOut(): Promise<{ revokedOnServer: boolean }> {
  const signedIn = await signInItem.getValue();
  await signInItem.setValue(null);
  if (!signedIn || serverAddressProblem(signedIn.server)) return { revokedOnServer: false };
  try {
    await revoke(await discover(signedIn.server), signedIn);
    return { revokedOnServer: true };
  } catch {
    return { revokedOnServer: false };
  }
}

/**
 * Where and how to call the server now: the grant's access token (renewed when about to
 * expire, or when the server refused it as `refused`, under a lock shared by the background
 * and the extension's pages, because a refresh token works once and a second use would end
 * the grant), or the member token from Advanced.
 */
export async function currentConnection({ refused }: { refused?: string } = {}): Promise<BffConnection> {
  const signedIn = await signInItem.getValue();
  const url = signedIn?.server ?? (await getSettings()).bffUrl;
  // An address kept from before plain http was refused is not called either: the token and the
  // text would still cross the network readable.
  const problem = serverAddressProblem(url);
  if (problem) return { url, token: '', problem: `${problem} Change the server address on the options page.` };
  if (!signedIn) return { url, token: await tokenItem.getValue() };
  const usable = (grant: SignedIn) => grant.accessToken !== refused && grant.expiresAt - RENEW_MARGIN_MS > Date.now();
  if (usable(signedIn)) return { url: signedIn.server, token: signedIn.accessToken };
  return navigator.locks.request(LOCK, async () => {
    const current = await signInItem.getValue();
    if (!current) return { url: signedIn.server, token: '', problem: 'You were signed out. Sign in again on the options page.' };
    // Another context may have renewed it while this one waited for the lock.
    if (usable(current)) return { url: current.server, token: current.accessToken };
    try {
      const renewed = await refresh(await discover(current.server), current);
      await signInItem.setValue({ ...current, ...renewed });
      return { url: current.server, token: renewed.accessToken };
    } catch (error) {
      if (error instanceof SignInError && (error.code === 'invalid_grant' || error.code === 'invalid_client')) {
        await signInItem.setValue(null);
        return { url: current.server, token: '', problem: `You were signed out: ${error.message} Sign in again on the options page.` };
      }
      // The server could not be asked (offline, restarting): try with what we hold; the call explains.
      return { url: current.server, token: current.accessToken };
    }
  });
}

/**
 * Calls the server with the current connection; when it refuses a signed-in access token
 * (a clock that runs behind the server's, a key the server replaced), renews it once and
 * calls again. Repeating is safe: a check keeps its operation id. When renewing does not
 * help, the server's own first answer is what the member sees (a revoked member is told so).
 */
export async function withConnection<T>(call: (connection: BffConnection) => Promise<BffResult<T>>): Promise<BffResult<T>> {
  const connection = await currentConnection();
  const result = await call(connection);
  if (result.ok || result.error.status !== 401 || !(await signInItem.getValue())) return result;
  const renewed = await currentConnection({ refused: connection.token });
  if (!renewed.token || renewed.token === connection.token) return result;
  return call(renewed);
}
