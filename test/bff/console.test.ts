import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newOperationId, startHarness, type Harness } from './harness.ts';

// The team console's security: sessions by cookie only, CSRF refused, admin routes for admins,
// one-time expiring sign-in links, and revocation that stops /v1 at once. Real HTTP against a
// started BFF; the console's clock is injected to test expiries.

const TEXT_12_WORDS = 'One two three four five six seven eight nine ten eleven twelve.';

interface Session {
  cookie: string;
  csrf: string;
  setCookie: string;
}

class Browser {
  constructor(
    readonly base: string,
    readonly origin = base,
  ) {}

  async send(path: string, options: { method?: string; body?: unknown; session?: Session; csrf?: string | null; origin?: string | null } = {}) {
    const headers: Record<string, string> = {};
    const method = options.method ?? (options.body === undefined ? 'GET' : 'POST');
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.session) headers.cookie = options.session.cookie;
    const csrf = options.csrf === undefined ? options.session?.csrf : options.csrf;
    if (csrf) headers['x-redline-csrf'] = csrf;
    const origin = options.origin === undefined ? (method === 'GET' ? undefined : this.origin) : options.origin;
    if (origin) headers.origin = origin;
    const response = await fetch(this.base + path, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body), redirect: 'manual' });
    const raw = await response.text();
    let body: any = raw;
    try {
      body = JSON.parse(raw);
    } catch {
      // text
    }
    return { status: response.status, headers: response.headers, body, raw };
  }

  async signIn(path: '/console/api/sign-in' | '/console/api/sign-in/link', body: unknown): Promise<Session> {
    const answer = await this.send(path, { body });
    expect(answer.status, answer.raw).toBe(200);
    const setCookie = answer.headers.get('set-cookie')!;
    return { cookie: setCookie.split(';')[0]!, csrf: answer.body.csrfToken, setCookie };
  }
}

let now = Date.parse('2026-11-20T10:00:00Z');
let h: Harness;
let browser: Browser;
let admin: Session;

async function memberId(name: string): Promise<string> {
  return (await h.bff.ledger.listMembers()).find((member) => member.name === name)!.id;
}

describe.each(['sqlite', 'postgres'] as const)('%s ledger', (ledgerKind) => {
  beforeEach(async () => {
    now = Date.parse('2026-11-20T10:00:00Z');
    h = await startHarness({ now: () => now, env: { BFF_MEMBER_RATE_LIMIT: '1000' }, ledger: ledgerKind, testerRole: 'admin' });
    browser = new Browser(h.bff.url);
    admin = await browser.signIn('/console/api/sign-in', { token: h.token });
  });

  afterEach(async () => {
    await h.close();
  });

  describe('sessions', () => {
    it('no console API answers without a session', async () => {
      for (const path of ['/console/api/session', '/console/api/members', '/console/api/audit', '/console/api/usage', '/console/api/sessions', '/console/api/upstream-keys']) {
        const answer = await browser.send(path);
        expect(answer.status, path).toBe(401);
        expect(answer.body.error.code).toBe('no_session');
      }
      const write = await browser.send('/console/api/members', { body: { name: 'sneaky' } });
      expect(write.status).toBe(401);
      // A bearer token is not a console session.
      const bearer = await fetch(`${h.bff.url}/console/api/members`, { headers: { authorization: `Bearer ${h.token}` } });
      expect(bearer.status).toBe(401);
      expect((await h.bff.ledger.listMembers()).map((member) => member.name)).not.toContain('sneaky');
    });

    it('the session cookie is HttpOnly, SameSite=Strict, scoped to /console, and not Secure over plain HTTP', () => {
      const flags = admin.setCookie.split(';').map((flag) => flag.trim());
      expect(flags).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Strict', 'Path=/console']));
      expect(flags).not.toContain('Secure');
      expect(admin.setCookie).not.toContain(h.token);
    });

    it('the cookie is Secure when the console is served over HTTPS (BFF_PUBLIC_URL)', async () => {
      const secure = await startHarness({ env: { BFF_PUBLIC_URL: 'https://console.example.test' } });
      try {
        const answer = await new Browser(secure.bff.url, 'https://console.example.test').send('/console/api/sign-in', { body: { token: secure.token } });
        expect(answer.status).toBe(200);
        expect(answer.headers.get('set-cookie')!.split(';').map((flag) => flag.trim())).toContain('Secure');
      } finally {
        await secure.close();
      }
    });

    it('a wrong token does not sign in, and the refusal is audited without the token', async () => {
      const wrong = `rl_${'x'.repeat(43)}`;
      const answer = await browser.send('/console/api/sign-in', { body: { token: wrong } });
      expect(answer.status).toBe(401);
      expect(answer.headers.get('set-cookie')).toBeNull();
      const audit = await browser.send('/console/api/audit', { session: admin });
      expect(audit.body.entries[0]).toMatchObject({ action: 'sign_in_refused', actorId: null });
      expect(audit.raw).not.toContain(wrong);
    });

    it('a session ends after 30 idle minutes, and after 12 hours however active', async () => {
      now += 20 * 60_000;
      expect((await browser.send('/console/api/session', { session: admin })).status).toBe(200);
      now += 20 * 60_000; // 20 minutes since the last request
      expect((await browser.send('/console/api/session', { session: admin })).status).toBe(200);
      now += 31 * 60_000;
      const idle = await browser.send('/console/api/session', { session: admin });
      expect(idle.status).toBe(401);
      expect(idle.body.error.code).toBe('session_expired');

      const active = await browser.signIn('/console/api/sign-in', { token: h.token });
      for (let minutes = 0; minutes < 12 * 60 - 20; minutes += 20) {
        now += 20 * 60_000;
        expect((await browser.send('/console/api/session', { session: active })).status).toBe(200);
      }
      now += 40 * 60_000;
      expect((await browser.send('/console/api/session', { session: active })).body.error.code).toBe('session_expired');
    });

    it('sessions are listed and revocable; signing out ends the session', async () => {
      const second = await browser.signIn('/console/api/sign-in', { token: h.token });
      const listed = await browser.send('/console/api/sessions', { session: admin });
      expect(listed.body.sessions).toHaveLength(2);
      expect(listed.raw).not.toContain(second.cookie.split('=')[1]);
      const other = listed.body.sessions.find((session: { current: boolean }) => !session.current);
      expect((await browser.send(`/console/api/sessions/${other.id}/revoke`, { session: admin, body: {} })).status).toBe(200);
      expect((await browser.send('/console/api/session', { session: second })).status).toBe(401);

      expect((await browser.send('/console/api/sign-out', { session: admin, body: {} })).status).toBe(200);
      expect((await browser.send('/console/api/session', { session: admin })).status).toBe(401);
    });
  });

  describe('CSRF', () => {
    it('a write without the session CSRF token is refused', async () => {
      const answer = await browser.send('/console/api/members', { session: admin, csrf: null, body: { name: 'forged' } });
      expect(answer.status).toBe(403);
      expect(answer.body.error.code).toBe('csrf_refused');
      const wrong = await browser.send('/console/api/members', { session: admin, csrf: 'A'.repeat(admin.csrf.length), body: { name: 'forged' } });
      expect(wrong.status).toBe(403);
      expect((await h.bff.ledger.listMembers()).map((member) => member.name)).not.toContain('forged');
      const key = await browser.send('/console/api/upstream-keys', { session: admin, csrf: null, body: { label: 'forged', key: 'forged-upstream-key' } });
      expect(key.body.error.code).toBe('csrf_refused');
    });

    it('a write from another origin is refused even with the token', async () => {
      const answer = await browser.send('/console/api/members', { session: admin, origin: 'https://evil.example', body: { name: 'forged' } });
      expect(answer.status).toBe(403);
      expect(answer.body.error.code).toBe('csrf_refused');
      const crossSite = await fetch(`${h.bff.url}/console/api/members`, {
        method: 'POST',
        headers: { cookie: admin.cookie, 'x-redline-csrf': admin.csrf, 'content-type': 'application/json', 'sec-fetch-site': 'cross-site' },
        body: JSON.stringify({ name: 'forged' }),
      });
      expect(crossSite.status).toBe(403);
      // Nor can another site sign a victim's browser in as someone else.
      const login = await browser.send('/console/api/sign-in', { origin: 'https://evil.example', body: { token: h.token } });
      expect(login.status).toBe(403);
      expect((await h.bff.ledger.listMembers()).map((member) => member.name)).not.toContain('forged');
    });

    it('a write with the token from the console origin goes through', async () => {
      const answer = await browser.send('/console/api/members', { session: admin, body: { name: 'welcome' } });
      expect(answer.status, answer.raw).toBe(201);
    });
  });

  describe('roles', () => {
    it('a member (non-admin) session cannot reach admin routes', async () => {
      const token = await h.addMember('plain');
      const member = await browser.signIn('/console/api/sign-in', { token });
      expect((await browser.send('/console/api/session', { session: member })).body.member).toMatchObject({ name: 'plain', role: 'member' });
      const own = await browser.send('/console/api/me/usage', { session: member });
      expect(own.status).toBe(200);
      expect(own.body.products.detector).toEqual({ wordsCharged: 0 });
      for (const path of ['/console/api/members', '/console/api/audit', '/console/api/sessions', '/console/api/usage', '/console/api/usage.csv', '/console/api/upstream-keys']) {
        const answer = await browser.send(path, { session: member });
        expect(answer.status, path).toBe(403);
        expect(answer.body.error.code).toBe('forbidden');
      }
      const adminId = await memberId('tester');
      for (const [path, body] of [
        ['/console/api/members', { name: 'by-member' }],
        [`/console/api/members/${adminId}/revoke`, {}],
        [`/console/api/members/${await memberId('plain')}/role`, { role: 'admin' }],
        [`/console/api/members/${adminId}/budgets`, { detector: 1 }],
        [`/console/api/members/${adminId}/rate-limit`, { requests: 1 }],
        ['/console/api/upstream-keys', { label: 'by-member', key: 'some-upstream-key' }],
      ] as const) {
        const answer = await browser.send(path, { session: member, body });
        expect(answer.status, path).toBe(403);
      }
      expect((await h.bff.ledger.listMembers()).find((m) => m.name === 'plain')!.role).toBe('member');
      expect((await h.call('/v1/usage')).status).toBe(200); // the admin was not revoked
    });

    it('the first-run owner is an admin; members added later are members', async () => {
      const { createFirstMember, hashToken } = await import('@redline/bff/members');
      const { SqliteLedger } = await import('@redline/bff/storage/sqlite');
      const ledger = new SqliteLedger(':memory:');
      try {
        const tokens: string[] = [];
        expect(await createFirstMember(ledger, 'owner', (token) => tokens.push(token))).toBe(true);
        const [owner] = await ledger.listMembers();
        expect([owner!.name, owner!.role]).toEqual(['owner', 'admin']);
        // The token handed over before the insert is the owner's.
        expect((await ledger.memberByTokenHash(hashToken(tokens[0]!)))?.id).toBe(owner!.id);
        expect(await createFirstMember(ledger, 'owner', (token) => tokens.push(token))).toBe(false);
        expect(await ledger.listMembers()).toHaveLength(1);
      } finally {
        await ledger.close();
      }
      expect((await h.bff.ledger.listMembers()).find((m) => m.name === 'tester')!.role).toBe('admin'); // set by this test's setup
      await h.addMember('later');
      expect((await h.bff.ledger.listMembers()).find((m) => m.name === 'later')!.role).toBe('member');
    });
  });

  describe('sign-in links', () => {
    it('a link signs in once', async () => {
      await h.addMember('linked');
      const link = await browser.send(`/console/api/members/${await memberId('linked')}/link`, { session: admin, body: {} });
      expect(link.status).toBe(201);
      const code = new URL(link.body.url).hash.replace('#link=', '');
      expect(link.body.url.startsWith(`${h.bff.url}/console/#link=`)).toBe(true);
      const session = await browser.signIn('/console/api/sign-in/link', { code });
      expect((await browser.send('/console/api/session', { session })).body.member.name).toBe('linked');
      const again = await browser.send('/console/api/sign-in/link', { body: { code } });
      expect(again.status).toBe(401);
      expect(again.body.error.code).toBe('invalid_sign_in');
      const audit = await browser.send('/console/api/audit', { session: admin });
      expect(audit.raw).not.toContain(code);
    });

    it('two requests racing with one link: one session', async () => {
      await h.addMember('racer');
      const link = await browser.send(`/console/api/members/${await memberId('racer')}/link`, { session: admin, body: {} });
      const code = new URL(link.body.url).hash.replace('#link=', '');
      const answers = await Promise.all(Array.from({ length: 5 }, () => browser.send('/console/api/sign-in/link', { body: { code } })));
      expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    });

    it('a link expires after 24 hours', async () => {
      await h.addMember('late');
      const link = await browser.send(`/console/api/members/${await memberId('late')}/link`, { session: admin, body: {} });
      const code = new URL(link.body.url).hash.replace('#link=', '');
      now += 24 * 3600_000 + 1;
      const answer = await browser.send('/console/api/sign-in/link', { body: { code } });
      expect(answer.status).toBe(401);
      expect(answer.headers.get('set-cookie')).toBeNull();
    });

    it('a link made just before it expires still works', async () => {
      await h.addMember('early');
      const link = await browser.send(`/console/api/members/${await memberId('early')}/link`, { session: admin, body: {} });
      const code = new URL(link.body.url).hash.replace('#link=', '');
      now += 24 * 3600_000 - 1000;
      expect((await browser.send('/console/api/sign-in/link', { body: { code } })).status).toBe(200);
    });
  });

  describe('members', () => {
    it('add shows the token once; budgets refuse /v1 at the budget; rotate and revoke take effect at once; all audited', async () => {
      const added = await browser.send('/console/api/members', { session: admin, body: { name: 'writer', budgets: { detector: 20 } } });
      expect(added.status).toBe(201);
      const token: string = added.body.token;
      expect(token).toMatch(/^rl_/);
      const listed = await browser.send('/console/api/members', { session: admin });
      expect(listed.raw).not.toContain(token);
      const writer = listed.body.members.find((member: { name: string }) => member.name === 'writer');
      expect(writer).toMatchObject({ role: 'member', products: { detector: { wordsCharged: 0, budget: 20, remaining: 20 } } });

      expect((await h.call('/v1/detect', { operationId: newOperationId(), text: TEXT_12_WORDS }, { token })).status).toBe(200);
      const refused = await h.call('/v1/detect', { operationId: newOperationId(), text: TEXT_12_WORDS }, { token });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('member_budget_exceeded');

      expect((await browser.send(`/console/api/members/${writer.id}/budgets`, { session: admin, body: { detector: 100 } })).status).toBe(200);
      expect((await h.call('/v1/detect', { operationId: newOperationId(), text: TEXT_12_WORDS }, { token })).status).toBe(200);
      const after = (await browser.send('/console/api/members', { session: admin })).body.members.find((member: { id: string }) => member.id === writer.id);
      expect(after.products.detector).toEqual({ wordsCharged: 24, budget: 100, remaining: 76 });
      expect(after.lastUsedAt).not.toBeNull();

      const rotated = await browser.send(`/console/api/members/${writer.id}/rotate`, { session: admin, body: {} });
      const newToken: string = rotated.body.token;
      expect(newToken).not.toBe(token);
      expect((await h.call('/v1/usage', undefined, { token })).status).toBe(401);
      expect((await h.call('/v1/usage', undefined, { token: newToken })).status).toBe(200);

      expect((await browser.send(`/console/api/members/${writer.id}/revoke`, { session: admin, body: {} })).status).toBe(200);
      expect((await h.call('/v1/usage', undefined, { token: newToken })).status).toBe(401);

      const audit = await browser.send('/console/api/audit', { session: admin });
      expect(audit.body.entries.map((entry: { action: string }) => entry.action)).toEqual(
        expect.arrayContaining(['member_added', 'budgets_changed', 'token_rotated', 'member_revoked', 'sign_in']),
      );
      expect(audit.body.entries[0]).toMatchObject({ action: 'member_revoked', actorName: 'tester', target: writer.id });
      expect(audit.body.entries[0].address).toMatch(/127\.0\.0\.1/);
      for (const secret of [token, newToken, h.token, TEXT_12_WORDS]) expect(audit.raw).not.toContain(secret);
      for (const secret of [token, newToken, h.token, admin.cookie.split('=')[1]!]) expect(h.logs.text).not.toContain(secret);
    });

    it('a budget change touches only the products it names (null removes one); a body that is not JSON, or names none, changes nothing', async () => {
      const added = await browser.send('/console/api/members', { session: admin, body: { name: 'budgeted', budgets: { detector: 100, humanizer: 50 } } });
      const id: string = added.body.member.id;
      const budgetsOf = async () => (await h.bff.ledger.listMembers()).find((member) => member.id === id)!.budgets;
      const change = (body: unknown) => browser.send(`/console/api/members/${id}/budgets`, { session: admin, body });

      expect((await change({ plagiarism: 20 })).body).toEqual({ budgets: { detector: 100, humanizer: 50, plagiarism: 20 } });
      expect((await change({ humanizer: null, detector: 7 })).body).toEqual({ budgets: { detector: 7, plagiarism: 20 } });
      expect(await budgetsOf()).toEqual({ detector: 7, plagiarism: 20 });

      const none = await change({});
      expect(none.status).toBe(400);
      expect(none.body.error.message).toMatch(/name at least one product/);
      // The same JSON as text/plain, a form, or no body at all: refused, never read as "no budgets".
      for (const [contentType, body] of [
        ['text/plain', '{"detector":1}'],
        ['application/x-www-form-urlencoded', 'detector=1'],
      ] as const) {
        const answer = await fetch(`${h.bff.url}/console/api/members/${id}/budgets`, {
          method: 'POST',
          headers: { 'content-type': contentType, cookie: admin.cookie, 'x-redline-csrf': admin.csrf, origin: h.bff.url },
          body,
        });
        expect(answer.status, contentType).toBe(415);
        expect((await answer.json()).error).toMatchObject({ code: 'unsupported_media_type', message: expect.stringMatching(/application\/json/) });
      }
      const empty = await fetch(`${h.bff.url}/console/api/members/${id}/budgets`, { method: 'POST', headers: { cookie: admin.cookie, 'x-redline-csrf': admin.csrf, origin: h.bff.url } });
      expect(empty.status).toBe(400);
      expect(await budgetsOf()).toEqual({ detector: 7, plagiarism: 20 });
      const audit = (await browser.send('/console/api/audit', { session: admin })).body.entries.filter((entry: { action: string }) => entry.action === 'budgets_changed');
      expect(audit.map((entry: { detail: unknown }) => entry.detail)).toEqual([
        { change: { humanizer: null, detector: 7 }, budgets: { detector: 7, plagiarism: 20 } },
        { change: { plagiarism: 20 }, budgets: { detector: 100, humanizer: 50, plagiarism: 20 } },
      ]);
    });

    it('two administrators demoting or revoking each other at once: one is refused (409, the last administrator), one administrator is left', async () => {
      const store = await h.bff.ledger.consoleStore();
      const makeAdmin = async (name: string) => {
        const added = await browser.send('/console/api/members', { session: admin, body: { name, role: 'admin' } });
        expect(added.status, added.raw).toBe(201);
        return { id: added.body.member.id as string, session: await browser.signIn('/console/api/sign-in', { token: added.body.token }) };
      };
      const first = await makeAdmin('admin-one');
      const second = await makeAdmin('admin-two');
      // The two are the only administrators left.
      for (const member of await h.bff.ledger.listMembers()) if (member.role === 'admin' && ![first.id, second.id].includes(member.id)) expect(await store.setRole(member.id, 'member')).toBe(true);
      const activeAdmins = async () => (await h.bff.ledger.listMembers()).filter((member) => member.role === 'admin' && !member.revokedAt).map((member) => member.id);

      const demotions = await Promise.all([
        browser.send(`/console/api/members/${second.id}/role`, { session: first.session, body: { role: 'member' } }),
        browser.send(`/console/api/members/${first.id}/role`, { session: second.session, body: { role: 'member' } }),
      ]);
      expect(demotions.map((answer) => answer.status).sort()).toEqual(expect.arrayContaining([200]));
      expect(await activeAdmins()).toHaveLength(1);
      const refused = demotions.find((answer) => answer.status !== 200)!;
      // Refused by the statement (409), or by the role check before it, when the other demotion committed first (403).
      expect([403, 409]).toContain(refused.status);
      if (refused.status === 409) expect(refused.body.error.message).toMatch(/is the team's last administrator: making them a member would leave nobody/);

      // The store itself, at once: never the last one.
      expect(await store.setRole(second.id, 'admin')).toBe(true);
      expect(await store.setRole(first.id, 'admin')).toBe(true);
      const stored = await Promise.all([store.setRole(first.id, 'member'), store.setRole(second.id, 'member')]);
      expect(stored.filter(Boolean)).toHaveLength(1);
      expect(await activeAdmins()).toHaveLength(1);
      const [left] = await activeAdmins();
      expect(await h.bff.ledger.revokeMember(left!)).toBe(false);
      expect(await store.setRole(left!, 'member')).toBe(false);

      expect(await store.setRole(first.id, 'admin')).toBe(true);
      expect(await store.setRole(second.id, 'admin')).toBe(true);
      const revoked = await Promise.all([h.bff.ledger.revokeMember(first.id), h.bff.ledger.revokeMember(second.id)]);
      expect(revoked.filter(Boolean)).toHaveLength(1);
      expect(await activeAdmins()).toHaveLength(1);
    });

    it('usage per day and member, as JSON and CSV', async () => {
      const token = await h.addMember('counter');
      for (let i = 0; i < 2; i++) expect((await h.call('/v1/detect', { operationId: newOperationId(), text: TEXT_12_WORDS }, { token })).status).toBe(200);
      const today = new Date().toISOString().slice(0, 10);
      const report = await browser.send(`/console/api/usage?from=${today}&to=${today}`, { session: admin });
      expect(report.status, report.raw).toBe(200);
      expect(report.body.days).toEqual([{ day: today, words: { detector: 24, humanizer: 0, plagiarism: 0 } }]);
      expect(report.body.members.find((member: { name: string }) => member.name === 'counter').words.detector).toBe(24);
      const csv = await browser.send(`/console/api/usage.csv?from=${today}&to=${today}`, { session: admin });
      expect(csv.headers.get('content-type')).toMatch(/text\/csv/);
      expect(csv.raw.split('\r\n')).toEqual(['day,member_id,member,product,words', `${today},${await memberId('counter')},counter,detector,24`, '']);
      const bad = await browser.send('/console/api/usage?from=yesterday', { session: admin });
      expect(bad.status).toBe(400);
      // Days that are not on the calendar: a 400 that says so, never a 500 or a rolled-over day.
      for (const query of ['to=2026-13-01', 'to=2026-00-10', 'from=2026-02-30&to=2026-03-05']) {
        for (const path of ['/console/api/usage', '/console/api/usage.csv']) {
          const answer = await browser.send(`${path}?${query}`, { session: admin });
          expect([answer.status, answer.body?.error?.message], `${path}?${query}`).toEqual([400, expect.stringMatching(/real calendar days/)]);
        }
      }
    });
  });
});

describe('the page', () => {
  it('is served from /console/ with a strict Content-Security-Policy, and /console redirects there', async () => {
    const { execFileSync } = await import('node:child_process');
    execFileSync(process.execPath, ['bff/console-ui/build.mjs']);
    const page = await startHarness({ offline: true });
    try {
      const bare = await fetch(`${page.bff.url}/console`, { redirect: 'manual' });
      expect(bare.status).toBe(301);
      expect(bare.headers.get('location')).toBe('/console/');
      const html = await fetch(`${page.bff.url}/console/`);
      expect(html.status).toBe(200);
      expect(html.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(html.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(await html.text()).toContain('<script type="module" src="console.js">');
      const script = await fetch(`${page.bff.url}/console/console.js`);
      expect(script.status).toBe(200);
      expect(await script.text()).not.toMatch(/https?:\/\/(cdn|unpkg|esm\.sh)/);
    } finally {
      await page.close();
    }
  });
});

describe('the roles migration', () => {
  it('an existing ledger: the earliest "owner" becomes admin, every other member a member', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const { default: Database } = await import('better-sqlite3');
    const { SqliteLedger } = await import('@redline/bff/storage/sqlite');
    const { createMember } = await import('@redline/bff/members');
    const dir = mkdtempSync(path.join(tmpdir(), 'redline-roles-'));
    const file = path.join(dir, 'bff.sqlite');
    try {
      const ledger = new SqliteLedger(file);
      await createMember(ledger, 'owner');
      await createMember(ledger, 'alice');
      await ledger.close();
      // Back to the schema before roles: no role column (nor the later upstream key and rate limit
      // columns, nor the key secret's table, nor the held operations' columns), five versions lower
      // (the budget trigger's change after them runs again as it is).
      const db = new Database(file);
      const version = db.pragma('user_version', { simple: true }) as number;
      db.exec(
        'ALTER TABLE operations DROP COLUMN attempts_not_run; ALTER TABLE operations DROP COLUMN held_error; ALTER TABLE operations DROP COLUMN held_resumes; ALTER TABLE operations DROP COLUMN resume_after; ' +
          'DROP TABLE ledger_secrets; ALTER TABLE members DROP COLUMN rate_limit; ALTER TABLE operations DROP COLUMN upstream_key_id; ALTER TABLE members DROP COLUMN role',
      );
      db.pragma(`user_version = ${version - 5}`);
      db.close();

      const migrated = new SqliteLedger(file);
      const roles = Object.fromEntries((await migrated.listMembers()).map((member) => [member.name, member.role]));
      expect(roles).toEqual({ owner: 'admin', alice: 'member' });
      await migrated.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
