import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExtensionLink } from '@redline/bff/auth/extension-link';
import { createSignInLink } from '@redline/bff/console/links';
import { PostgresLedger } from '@redline/bff/storage/postgres';
import { POSTGRES_URL, dropSchema, startHarness, type Harness } from './harness.ts';
import { OAuthTestClient, approveWithoutBrowser } from './oauth-client.ts';

// A one-time sign-in link is used up only together with what it opens. The database fails
// (a trigger refuses the write, on the real SQLite file or PostgreSQL schema) after the link
// was read and before its console session, its MCP authorization code or its extension
// grant is stored: the sign-in fails, and the same link works once the database does.

/** Makes every insert into `table` fail, as a database fault would, until the returned function is called. */
type Fault = (table: string) => Promise<() => Promise<void>>;

const sqliteFault = (h: () => Harness): Fault => async (table) => {
  const db = new Database(path.join(h().dataDir, 'bff.sqlite'));
  db.exec(`CREATE TRIGGER injected_fault BEFORE INSERT ON ${table} BEGIN SELECT RAISE(ABORT, 'injected fault'); END`);
  return async () => {
    db.exec('DROP TRIGGER injected_fault');
    db.close();
  };
};

const postgresFault = (schema: string): Fault => async (table) => {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query(`CREATE OR REPLACE FUNCTION ${schema}.injected_fault() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected fault'; END $$`);
  await client.query(`CREATE TRIGGER injected_fault BEFORE INSERT ON ${schema}.${table} FOR EACH ROW EXECUTE FUNCTION ${schema}.injected_fault()`);
  return async () => {
    await client.query(`DROP TRIGGER injected_fault ON ${schema}.${table}`);
    await client.end();
  };
};

describe.each(['sqlite', 'postgres'] as const)('%s ledger', (kind) => {
  let h: Harness;
  let fault: Fault;
  const schema = `link_faults_${process.pid}`;

  beforeAll(async () => {
    h = await startHarness({ ledger: kind === 'postgres' ? await PostgresLedger.open(POSTGRES_URL, schema) : 'sqlite' });
    fault = kind === 'postgres' ? postgresFault(schema) : sqliteFault(() => h);
  });
  afterAll(async () => {
    await h.close();
    if (kind === 'postgres') await dropSchema(schema);
  });

  const tester = async () => (await h.bff.ledger.listMembers()).find((member) => member.name === 'tester')!.id;

  it('console: a link whose session could not be stored still works afterwards, once', async () => {
    const { url } = await createSignInLink(await h.bff.ledger.consoleStore(), await tester(), await tester(), h.bff.url, Date.now());
    const code = new URL(url).hash.replace('#link=', '');
    const signIn = () =>
      fetch(`${h.bff.url}/console/api/sign-in/link`, { method: 'POST', headers: { 'content-type': 'application/json', origin: h.bff.url }, body: JSON.stringify({ code }) });

    const heal = await fault('console_sessions');
    const failed = await signIn();
    await heal();
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect(failed.headers.get('set-cookie')).toBeNull();

    const signedIn = await signIn();
    expect(signedIn.status).toBe(200);
    const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
    expect((await fetch(`${h.bff.url}/console/api/session`, { headers: { cookie } })).status).toBe(200);
    expect((await signIn()).status).toBe(401);
  });

  it('extension: a link whose grant could not be stored still works afterwards, once', async () => {
    const { code } = await createExtensionLink(await h.bff.ledger.consoleStore(), await tester(), await tester(), h.bff.url, Date.now());
    const registered = await fetch(`${h.bff.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Redline extension', redirect_uris: ['https://ncdggekeiimjacfkplbplnkjenemmgga.chromiumapp.org/'], token_endpoint_auth_method: 'none' }),
    });
    const clientId = ((await registered.json()) as { client_id: string }).client_id;
    const redeem = () =>
      fetch(`${h.bff.url}/oauth/extension-link`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code, client_id: clientId }) });

    const heal = await fault('oauth_grants');
    const failed = await redeem();
    await heal();
    expect(failed.status).toBeGreaterThanOrEqual(500);

    const granted = await redeem();
    expect(granted.status).toBe(200);
    const tokens = (await granted.json()) as { access_token: string };
    expect((await h.call('/v1/usage', undefined, { token: tokens.access_token })).status).toBe(200);
    expect((await redeem()).status).toBe(400);
  });

  it('MCP consent: a link whose authorization code could not be stored still works afterwards, once', async () => {
    const client = await OAuthTestClient.register(`${h.bff.url}/mcp`);
    const { url } = await createExtensionLink(await h.bff.ledger.consoleStore(), await tester(), await tester(), h.bff.url, Date.now());
    const approve = async () => {
      const start = await client.start();
      return { start, answer: await approveWithoutBrowser(start.authorizationUrl, url) };
    };

    const heal = await fault('oauth_codes');
    const failed = await approve();
    await heal();
    expect(failed.answer.status).toBeGreaterThanOrEqual(500);

    const { start, answer } = await approve();
    expect(answer.status).toBe(302);
    const tokens = await client.exchange(answer.location!, start);
    expect(tokens.access_token).toBeTruthy();
    expect((await approve()).answer.status).toBe(401);
  });
});
