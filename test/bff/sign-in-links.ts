import { expect } from 'vitest';
import { parseSignInInput } from '../../extension/lib/team-sign-in.ts';
import type { Harness } from './harness.ts';

/** The Chrome extension's redirect URI, as it registers its OAuth client. */
export const CHROME_REDIRECT = 'https://ncdggekeiimjacfkplbplnkjenemmgga.chromiumapp.org/';
/** The BFF's answer to a sign-in link or code it will not redeem. */
export const USED_LINK_REFUSAL = 'This sign-in link or code was already used, has expired or is unknown. Ask your administrator for a new one.';

export interface AuditEntry {
  action: string;
  actorId: string | null;
  target: string | null;
  detail: Record<string, unknown>;
}

/**
 * The console and sign-in calls of the sign-in link tests, against the BFF `harness()` gives (a
 * getter: the tests start one per ledger), as its administrator. `signInAdmin` first, and again
 * when the console session may have ended (a restart, a retention run on a later clock).
 */
export function linkConsole(harness: () => Harness) {
  let admin: { cookie: string; csrf: string } | undefined;

  async function signInAdmin(): Promise<void> {
    const h = harness();
    const signIn = await fetch(`${h.bff.url}/console/api/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json', origin: h.bff.url }, body: JSON.stringify({ token: h.token }) });
    expect(signIn.status).toBe(200);
    admin = { cookie: signIn.headers.get('set-cookie')!.split(';')[0]!, csrf: (await signIn.json()).csrfToken };
  }

  async function consoleCall(path: string, body?: unknown) {
    const { url } = harness().bff;
    const response = await fetch(`${url}/console/api${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json', cookie: admin!.cookie, 'x-redline-csrf': admin!.csrf, origin: url },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  }

  async function memberId(name: string): Promise<string> {
    return (await harness().bff.ledger.listMembers()).find((member) => member.name === name)!.id;
  }

  return {
    signInAdmin,
    consoleCall,
    memberId,
    /** A new member and a one-time extension link made for them in the console. */
    async memberWithLink(name: string): Promise<{ id: string; code: string }> {
      await harness().addMember(name);
      const id = await memberId(name);
      const made = await consoleCall(`/members/${id}/extension-link`, {});
      expect(made.status).toBe(201);
      return { id, code: parseSignInInput(made.body.url)!.code };
    },
    /** The member's sign-ins the console lists (active grants), by id. */
    signIns: async (id: string): Promise<string[]> => (await consoleCall(`/members/${id}/sign-ins`)).body.signIns.map((signIn: { id: string }) => signIn.id),
    auditEntries: async (): Promise<AuditEntry[]> => (await consoleCall('/audit')).body.entries,
    usageStatus: async (accessToken: string): Promise<number> => (await harness().call('/v1/usage', undefined, { token: accessToken })).status,
    /** A link presented to the extension's redemption endpoint by `clientId`, the answer unread. */
    redeemRaw: (code: string, clientId: string) =>
      fetch(`${harness().bff.url}/oauth/extension-link`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code, client_id: clientId }) }),
  };
}
