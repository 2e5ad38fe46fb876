import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discover, parseSignInInput, redeemCode, refresh, register, type TeamServer } from '../../extension/lib/team-sign-in.ts';
import { startHarness, type Harness } from './harness.ts';
import { OAuthTestClient, mcpStatus as mcpStatusAt } from './oauth-client.ts';
import { CHROME_REDIRECT, USED_LINK_REFUSAL, linkConsole } from './sign-in-links.ts';

// A one-time sign-in link redeemed twice at once, or presented again while its first sign-in
// is exchanging its code or after it refreshed: whichever way each presentation went (the
// extension's endpoint, an assistant's consent page), one sign-in at most is answered, and no
// grant is left working once the link was presented twice. Real HTTP against a started BFF,
// on both ledgers. A file of its own: link redemptions and registrations are rate limited per
// address, and extension-link-reuse.test.ts uses many.

let h: Harness;
let server: TeamServer;
let clientId: string;
let assistant: OAuthTestClient;

const CONSENT_REFUSAL = 'That member token or sign-in link is unknown, revoked, expired or already used. Check it, or make a new link in the console (My usage) or ask your administrator.';
const ROUNDS = 3;

const links = linkConsole(() => h);
const { consoleCall, memberWithLink, signIns, auditEntries, usageStatus } = links;
const mcpStatus = (accessToken: string) => mcpStatusAt(h.bff.url, accessToken);
const redeemRaw = (code: string) => links.redeemRaw(code, clientId);

/** The consent page of a new authorization request, loaded: `approve` posts its form with a credential, as the page would. */
async function consentPage() {
  const start = await assistant.start();
  const page = await (await fetch(start.authorizationUrl)).text();
  const request = /name="request" value="([^"]+)"/.exec(page)![1]!;
  const approve = async (credential: string) => {
    const response = await fetch(new URL('/oauth/consent', start.authorizationUrl), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: start.authorizationUrl.origin },
      body: new URLSearchParams({ request, credential, decision: 'approve' }),
    });
    const location = response.headers.get('location');
    return { status: response.status, code: location === null ? undefined : new URL(location).searchParams.get('code')!, body: await response.text() };
  };
  return { start, approve };
}

describe.each(['sqlite', 'postgres'] as const)('%s ledger', (ledgerKind) => {
  beforeAll(async () => {
    h = await startHarness({ env: { BFF_MEMBER_RATE_LIMIT: '1000' }, ledger: ledgerKind, offline: true, testerRole: 'admin' });
    await links.signInAdmin();
    server = await discover(`${h.bff.url}/`);
    clientId = await register(server, CHROME_REDIRECT, 'Redline extension');
    assistant = await OAuthTestClient.register(`${h.bff.url}/mcp`);
  });
  afterAll(() => h.close());

  it('one link approved on two consent pages at once: one answered with a code that opens nothing, the other refused without the link in its page', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const member = await memberWithLink(`race-consent-${round}`);
      const pages = [await consentPage(), await consentPage()];
      const answers = await Promise.all(pages.map((page) => page.approve(member.code)));
      expect(answers.map((answer) => answer.status).sort()).toEqual([302, 401]);
      const refused = answers.find((answer) => answer.status === 401)!;
      expect(refused.body).toContain(CONSENT_REFUSAL.replace("'", '&#39;'));
      expect(refused.body).not.toContain(member.code);
      const won = answers.findIndex((answer) => answer.status === 302);
      const exchanged = await assistant.exchangeRaw(answers[won]!.code!, pages[won]!.start.codeVerifier);
      expect(exchanged.status).toBe(400);
      const body = await exchanged.text();
      expect(body).toContain('invalid_grant');
      expect(body).not.toContain(answers[won]!.code!);
      expect(await signIns(member.id)).toEqual([]);
      const entries = (await auditEntries()).filter((entry) => entry.target === member.id && entry.action !== 'extension_link_created');
      expect(entries.map((entry) => entry.action).sort()).toEqual(['assistant_signed_in', 'sign_in_revoked']);
      expect(JSON.stringify(entries)).not.toContain(member.code);
    }
  });

  it('one link redeemed by the extension and approved on a consent page at once: whichever won, nothing it opened works', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const member = await memberWithLink(`race-mixed-${round}`);
      const page = await consentPage();
      const [extension, consent] = await Promise.all([redeemRaw(member.code), page.approve(member.code)]);
      const extensionBody = await extension.json();
      expect([extension.status, consent.status].sort()).toEqual(consent.status === 302 ? [302, 400] : [200, 401]);
      if (extension.status === 200) {
        expect(consent.body).not.toContain(member.code);
        expect(await usageStatus(extensionBody.access_token)).toBe(401);
      } else {
        expect(extensionBody).toEqual({ error: 'invalid_grant', error_description: USED_LINK_REFUSAL });
        expect((await assistant.exchangeRaw(consent.code!, page.start.codeVerifier)).status).toBe(400);
      }
      expect(await signIns(member.id)).toEqual([]);
    }
  });

  it("a link presented again while its consent page's code is being exchanged: the exchange opens nothing that keeps working", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const member = await memberWithLink(`race-exchange-${round}`);
      const page = await consentPage();
      const consent = await page.approve(member.code);
      expect(consent.status).toBe(302);
      const [exchanged, replay] = await Promise.all([assistant.exchangeRaw(consent.code!, page.start.codeVerifier), redeemRaw(member.code)]);
      expect(replay.status).toBe(400);
      if (exchanged.status === 200) {
        const tokens = await exchanged.json();
        expect(await mcpStatus(tokens.access_token)).toBe(401);
        expect((await assistant.refreshRaw(tokens.refresh_token)).status).toBe(400);
      } else {
        expect(exchanged.status).toBe(400);
      }
      expect(await signIns(member.id)).toEqual([]);
    }
  });

  it("a link presented again between the exchange's reading of its code and its use of it: the exchange opens nothing", async () => {
    const member = await memberWithLink('held-exchange');
    const page = await consentPage();
    const consent = await page.approve(member.code);
    expect(consent.status).toBe(302);
    // The exchange is held where it checks the member, after it read the clock and the code; the replay runs meanwhile.
    const store = await h.bff.ledger.oauthStore();
    const activeMember = store.activeMember.bind(store);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const reached = new Promise<void>((resolve) => {
      store.activeMember = async (id) => {
        store.activeMember = activeMember;
        resolve();
        await held;
        return activeMember(id);
      };
    });
    const exchanging = assistant.exchangeRaw(consent.code!, page.start.codeVerifier);
    await reached;
    const replay = await redeemRaw(member.code);
    release();
    const exchanged = await exchanging;
    expect(replay.status).toBe(400);
    expect(exchanged.status).toBe(400);
    expect(await exchanged.json()).toMatchObject({ error: 'invalid_grant' });
    expect(await signIns(member.id)).toEqual([]);
  });

  it('a link presented again after its sign-in refreshed: the rotated tokens are revoked too (both ways round)', async () => {
    const viaConsent = await memberWithLink('refreshed-consent');
    const page = await consentPage();
    const tokens = await (await assistant.exchangeRaw((await page.approve(viaConsent.code)).code!, page.start.codeVerifier)).json();
    const rotated = await assistant.refresh(tokens.refresh_token!);
    const rotatedAgain = await assistant.refresh(rotated.refresh_token!);
    expect(await mcpStatus(rotatedAgain.access_token)).toBe(200);
    expect((await redeemRaw(viaConsent.code)).status).toBe(400);
    expect(await mcpStatus(rotatedAgain.access_token)).toBe(401);
    expect((await assistant.refreshRaw(rotatedAgain.refresh_token!)).status).toBe(400);

    const viaExtension = await memberWithLink('refreshed-extension');
    const { grant } = await redeemCode(server, clientId, viaExtension.code);
    const refreshed = await refresh(server, grant);
    expect(await usageStatus(refreshed.accessToken)).toBe(200);
    expect((await (await consentPage()).approve(viaExtension.code)).status).toBe(401);
    expect(await usageStatus(refreshed.accessToken)).toBe(401);
    await expect(refresh(server, refreshed)).rejects.toMatchObject({ code: 'invalid_grant' });
    expect(await signIns(viaConsent.id)).toEqual([]);
    expect(await signIns(viaExtension.id)).toEqual([]);
  });

  it("a removed member's links: refused either way, saying what to do, and nothing of theirs opens", async () => {
    const used = await memberWithLink('removed-used');
    const page = await consentPage();
    const consent = await page.approve(used.code);
    const unused = await consoleCall(`/members/${used.id}/extension-link`, {});
    const unusedCode = parseSignInInput(unused.body.url)!.code;
    expect((await consoleCall(`/members/${used.id}/revoke`, {})).status).toBe(200);

    expect((await assistant.exchangeRaw(consent.code!, page.start.codeVerifier)).status).toBe(400);
    for (const code of [used.code, unusedCode]) {
      const extension = await redeemRaw(code);
      expect(extension.status).toBe(400);
      expect(await extension.json()).toEqual({ error: 'invalid_grant', error_description: USED_LINK_REFUSAL });
      const typed = await (await consentPage()).approve(code);
      expect(typed.status).toBe(401);
      expect(typed.body).not.toContain(code);
    }
    expect(await (await h.bff.ledger.oauthStore()).activeGrants(used.id, Date.now())).toEqual([]);
  });
});
