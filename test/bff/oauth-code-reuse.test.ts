import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';
import { OAuthTestClient, approveWithoutBrowser, mcpStatus as mcpStatusAt } from './oauth-client.ts';

// A code presented twice must fail and revoke what it gave (RFC 6749 section 4.1.2), also
// when the two presentations arrive together: on PostgreSQL the second one used to wait on the
// first's row lock, find the code used, and answer invalid_grant while the first one's tokens
// kept working (an outside probe found the winner's token accepted in 4 races out of 5).

let h: Harness;
let client: OAuthTestClient;

beforeAll(async () => {
  h = await startHarness({ ledger: 'postgres' });
  client = await OAuthTestClient.register(`${h.bff.url}/mcp`);
});
afterAll(() => h.close());

const mcpStatus = (accessToken: string) => mcpStatusAt(h.bff.url, accessToken);

describe('a code presented twice at once', () => {
  it('one presentation gets tokens, the other invalid_grant, and the tokens are revoked', async () => {
    for (let round = 0; round < 5; round++) {
      const start = await client.start();
      const { location } = await approveWithoutBrowser(start.authorizationUrl, h.token);
      const code = location!.searchParams.get('code')!;
      const answers = await Promise.all([client.exchangeRaw(code, start.codeVerifier), client.exchangeRaw(code, start.codeVerifier)]);
      const bodies = await Promise.all(answers.map((answer) => answer.json()));
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
      const refused = bodies.find((body) => body.error)!;
      expect(refused).toEqual({ error: 'invalid_grant', error_description: 'The authorization code was already used; start the sign-in again' });
      const issued = bodies.find((body) => body.access_token)!;
      expect(await mcpStatus(issued.access_token)).toBe(401);
      expect((await client.refreshRaw(issued.refresh_token)).status).toBe(400);
    }
  });
});
