import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';
import { approveWithoutBrowser } from './oauth-client.ts';

// The console's sign-ins say where each sign-in was sent back to: the redirect URI its
// authorization request used, which the consent page showed the member, not merely the
// first one the client registered (a client may register up to ten).

let h: Harness;
let memberId: string;
beforeAll(async () => {
  h = await startHarness({ testerRole: 'admin' });
  memberId = h.testerId;
});
afterAll(() => h.close());

it("names the host the sign-in was sent back to, not the client's first registered redirect URI", async () => {
  const registered = await fetch(`${h.bff.url}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Two homes',
      redirect_uris: ['https://trusted.example/callback', 'http://127.0.0.1:7777/callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
    }),
  });
  expect(registered.status).toBe(201);
  const { client_id } = await registered.json();
  const verifier = randomBytes(32).toString('base64url');
  const authorizationUrl = new URL(`${h.bff.url}/authorize`);
  for (const [name, value] of Object.entries({
    client_id,
    redirect_uri: 'http://127.0.0.1:7777/callback',
    response_type: 'code',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: 'abc',
    resource: `${h.bff.url}/mcp`,
  })) {
    authorizationUrl.searchParams.set(name, value);
  }
  const { page, location } = await approveWithoutBrowser(authorizationUrl, h.token);
  expect(page).toContain('127.0.0.1:7777');
  const exchanged = await fetch(`${h.bff.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', client_id, code: location!.searchParams.get('code')!, code_verifier: verifier, redirect_uri: 'http://127.0.0.1:7777/callback' }),
  });
  expect(exchanged.status).toBe(200);

  const signIn = await fetch(`${h.bff.url}/console/api/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json', origin: h.bff.url }, body: JSON.stringify({ token: h.token }) });
  expect(signIn.status).toBe(200);
  const session = { cookie: signIn.headers.get('set-cookie')!.split(';')[0]!, csrf: (await signIn.json()).csrfToken as string };
  const listed = await fetch(`${h.bff.url}/console/api/members/${memberId}/sign-ins`, { headers: { cookie: session.cookie, 'x-redline-csrf': session.csrf, origin: h.bff.url } });
  const { signIns } = await listed.json();
  expect(signIns.find((entry: { clientName: string }) => entry.clientName === 'Two homes')).toMatchObject({ redirectHost: '127.0.0.1:7777' });
});
