import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';
import { OAuthTestClient } from './oauth-client.ts';

// A client's name comes from an unauthenticated registration and is shown to a member on the
// consent page ("Allow <name> to use Redline as you?", next to the host the code goes to) and
// to an administrator under a member's Sign-ins. It must not be able to pose as Redline or
// disguise the host. (Its own harness: registration is limited to 20 an hour per address.)

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const RFC_6749_DESCRIPTION = /^[\x20\x21\x23-\x5B\x5D-\x7E]{1,300}$/;

async function refusal(response: Response): Promise<{ error: string; error_description: string }> {
  expect(response.status).toBe(400);
  const body = await response.json();
  expect(body.error_description).toMatch(RFC_6749_DESCRIPTION);
  return body;
}

describe('client names from dynamic registration', () => {

  // The name is shown on the consent page and in the console's Sign-ins, next to the host the
  // code goes to: a direction override there reverses what follows it on the line (the host,
  // "to use Redline as you?"), line breaks and zero-width characters disguise it.
  it('/register: a client name with direction overrides, invisible or control characters is refused, naming the character', async () => {
    const register = (client_name: string) =>
      fetch(`${h.bff.url}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: ['https://a.example/cb'], client_name }) });
    for (const [name, character] of [
      ['Helper\u202E elpmaxe.live', 'U+202E'],
      ['Helper\u2066x\u2069', 'U+2066'],
      ['Zero\u200Bwidth', 'U+200B'],
      ['Two\nlines', 'U+000A'],
      ['Nul\u0000byte', 'U+0000'],
      ['Paragraph\u2029end', 'U+2029'],
    ] as const) {
      const body = await refusal(await register(name));
      expect(body.error).toBe('invalid_client_metadata');
      expect(body.error_description).toContain(character);
      expect(body.error_description).toMatch(/^client_name may not contain/);
    }
    expect((await register('Café assistant ✍️')).status).toBe(201);
  });

  it('/register: a name posing as Redline itself is refused, unless the client is a browser extension', async () => {
    const register = (client_name: string, redirect_uris = ['https://evil.example/cb']) =>
      fetch(`${h.bff.url}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris, client_name }) });
    for (const name of ['Redline browser extension', 'REDLINE', 'Red line (official)', 'Rеdlіne', 'RedIine', 'Ｒｅｄｌｉｎｅ helper', 'R.e.d.l.i.n.e']) {
      const body = await refusal(await register(name));
      expect(body, name).toEqual({
        error: 'invalid_client_metadata',
        error_description: 'client_name may not name Redline, the server the member signs in to, except for its browser extension: give your application its own name',
      });
    }
    expect((await register('Redline browser extension', ['https://ncdggekeiimjacfkplbplnkjenemmgga.chromiumapp.org/'])).status).toBe(201);
    expect((await register('Redline browser extension', ['https://2e7c5a31f0d2a8c4b6e1d9f3a7c0b5e8d4f6a2c1.extensions.allizom.org/'])).status).toBe(201);
    expect((await register('Redlining helper')).status).toBe(201);
  });

  it('a name registered before these checks is isolated on the consent page: it cannot reverse the host or the question after it', async () => {
    const client = await OAuthTestClient.register(`${h.bff.url}/mcp`, 'https://callback.assistant.example/oauth', 'Assistant');
    const store = await h.bff.ledger.oauthStore();
    const stored = (await store.getClient(client.client.client_id))!;
    await store.saveClient('legacy-client', { ...stored, client_id: 'legacy-client', client_name: 'Helper\u202E\nelpmaxe.live' });
    const page = await (await fetch((await client.start({ client_id: 'legacy-client' })).authorizationUrl)).text();
    expect(page).toContain('<strong id="client-name"><bdi>Helper\u202E\nelpmaxe.live</bdi></strong>');
    expect(page).toContain('<title>Allow Helper elpmaxe.live to use Redline?</title>');
  });
});
