import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '@redline/bff/config';
import { createMember } from '@redline/bff/members';
import { startBff, type RunningBff } from '@redline/bff/server';
import { PostgresLedger } from '@redline/bff/storage/postgres';
import { LogCapture, POSTGRES_URL, dropSchema, request } from './harness.ts';

// The member cache's revocation channel (LISTEN redline_members) dropping silently: no FIN,
// no RST, as when a NAT or a firewall between the BFF and PostgreSQL forgets the connection.
// The instance must notice (a heartbeat that goes unanswered), stop caching, and so refuse
// a member revoked meanwhile well before a cached entry would expire (30 s). The listening
// connection runs through a TCP relay of the test's own that can stop passing bytes while
// keeping both sockets open; the ledger's own connections go to PostgreSQL directly.

const schema = `member_channel_${process.pid}`;
const folder = mkdtempSync(path.join(tmpdir(), 'redline-channel-'));
let ledger: PostgresLedger;
let instance: RunningBff;
let relay: { url: string; silence(): void; close(): Promise<void> };
const logs = new LogCapture();

/** Relays TCP to PostgreSQL; `silence` stops passing bytes either way on every connection, old and new, without closing any. */
async function startRelay(target: URL): Promise<typeof relay> {
  const sockets = new Set<Socket>();
  let silent = false;
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    for (const [from, to] of [[client, upstream], [upstream, client]] as const) {
      from.on('data', (chunk) => void (silent || to.write(chunk)));
      from.on('error', () => {});
      from.on('close', () => to.destroy());
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(POSTGRES_URL);
  url.host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: url.href,
    silence: () => void (silent = true),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

beforeAll(async () => {
  ledger = await PostgresLedger.open(POSTGRES_URL, schema);
  relay = await startRelay(new URL(POSTGRES_URL));
  const config = loadConfig({ BFF_PORT: '0', BFF_DATA_DIR: folder, BFF_DATABASE_URL: relay.url });
  instance = await startBff(config, { ledger: await PostgresLedger.open(POSTGRES_URL, schema), logDestination: logs });
});

afterAll(async () => {
  await instance.stop();
  await relay.close();
  await ledger.close();
  rmSync(folder, { recursive: true, force: true });
  await dropSchema(schema);
});

const usage = (token: string) => request(instance.url, '/v1/usage', undefined, token);

it('a revocation channel gone silent is noticed: nothing is cached, a member revoked meanwhile is refused within seconds', async () => {
  await new Promise((resolve) => setTimeout(resolve, 500)); // the channel's LISTEN
  const { member, token } = await createMember(ledger, 'silently-cut');
  expect((await usage(token)).status).toBe(200);
  const cachedAt = Date.now();

  relay.silence();
  // The announcement goes out on commit but never arrives: at first the cached member is still served.
  expect(await ledger.revokeMember(member.id)).toBe(true);
  expect((await usage(token)).status).toBe(200);

  let status = 200;
  while (status === 200 && Date.now() - cachedAt < 20_000) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    status = (await usage(token)).status;
  }
  expect(status).toBe(401);
  // Refused well before the cached entry's 30 s were up, and said so in the log.
  expect(Date.now() - cachedAt).toBeLessThan(20_000);
  expect(logs.text).toContain('member cache: lost the revocation channel');
}, 30_000);
