import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '@redline/bff/logging';
import type { ConsoleStore, UpstreamKeyRecord } from '@redline/bff/storage/console-store';
import { PostgresLedger } from '@redline/bff/storage/postgres';
import { UpstreamKeyring } from '@redline/bff/upstream/keyring';
import { SecretBox } from '@redline/bff/upstream/secret-box';
import { LogCapture, POSTGRES_URL, dropSchema } from './harness.ts';

// A change to the stored upstream keys, committed on one instance, reaches the keyring of
// another even when the instance that made it does nothing after its commit (it died, or
// could not open a connection for a NOTIFY of its own): the ledger's statement announces
// itself on redline_upstream_keys (pg_notify, delivered on commit). Both keyrings here poll
// once an hour, so only the announcement can tell the second one; the changes are made
// through the first instance's console store alone, never through its keyring.

const schema = `key_announce_${process.pid}`;
const box = new SecretBox(Buffer.alloc(32, 9));
const ENV_KEY = 'env-key-announce-0001';
const ledgers: PostgresLedger[] = [];
const keyrings: UpstreamKeyring[] = [];
let store: ConsoleStore;
let other: UpstreamKeyring;

beforeAll(async () => {
  for (let i = 0; i < 2; i++) {
    const ledger = await PostgresLedger.open(POSTGRES_URL, schema);
    ledgers.push(ledger);
    const keyring = new UpstreamKeyring({
      envKey: ENV_KEY,
      box,
      store: () => ledger.consoleStore(),
      databaseUrl: POSTGRES_URL,
      logger: createLogger('warn', new LogCapture()),
      pollMs: 3_600_000,
    });
    keyrings.push(keyring);
    await keyring.start();
  }
  store = await ledgers[0]!.consoleStore();
  other = keyrings[1]!;
  // Both listening: a keyring re-reads the keys when its channel (re)connects.
  await new Promise((resolve) => setTimeout(resolve, 500));
});

afterAll(async () => {
  for (const keyring of keyrings) await keyring.close();
  for (const ledger of ledgers) await ledger.close();
  await dropSchema(schema);
});

/** A tested, saved key of `account`. */
async function addKey(id: string, account: string): Promise<void> {
  const record: UpstreamKeyRecord = {
    id,
    label: id,
    masked: '…0000',
    ciphertext: box.seal(`value-of-${id}`, id),
    state: 'saved',
    account,
    createdAt: Date.now(),
    createdBy: 'm_test',
    test: { at: Date.now(), ok: true, summary: 'ok', wordsCharged: 3 },
    savedAt: Date.now(),
    activatedAt: null,
  };
  await store.addUpstreamKey(record);
}

/** What `read` gives on the other instance once it is `expected`, or after 2 s. */
async function seenWithin<T>(read: () => T, expected: T): Promise<T> {
  for (let i = 0; i < 40 && read() !== expected; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  return read();
}

it('an activation committed on one instance is used by the other at once', async () => {
  expect(other.active()).toBe(other.envKey);
  await addKey('uk_first', 'acct_first');
  expect(await store.activateUpstreamKey('uk_first', Date.now())).toBe(true);
  expect(await seenWithin(() => other.active()?.id, 'uk_first')).toBe('uk_first');

  await addKey('uk_second', 'acct_second');
  expect(await store.activateUpstreamKey('uk_second', Date.now())).toBe(true);
  expect(await seenWithin(() => other.active()?.id, 'uk_second')).toBe('uk_second');
  // The previous key, of another account, stays the key of operations that started with it.
  expect(other.keyFor('uk_first')?.id).toBe('uk_first');
});

// Each test starts from the other keyring's fresh read, so that each shows its own change arriving.
it("a test that finds a previous key's account reaches the other instance (its operations may move to the active key)", async () => {
  await other.reload();
  expect(other.keyFor('uk_first')?.id).toBe('uk_first');
  expect(await store.recordKeyTest('uk_first', { at: Date.now(), ok: true, summary: 'same', wordsCharged: 3 }, 'acct_second')).toBe(true);
  expect(await seenWithin(() => other.keyFor('uk_first')?.id, 'uk_second')).toBe('uk_second');
});

it('a removal committed on one instance reaches the other', async () => {
  await addKey('uk_third', 'acct_third');
  expect(await store.activateUpstreamKey('uk_third', Date.now())).toBe(true);
  await other.reload();
  expect(other.keyFor('uk_first')?.id).toBe('uk_first');
  expect(await store.removeUpstreamKey('uk_first', Date.now())).toBe(true);
  expect(await seenWithin(() => other.keyFor('uk_first'), undefined)).toBeUndefined();
});

it('going back to the environment key on one instance reaches the other', async () => {
  await other.reload();
  expect(other.active()?.id).toBe('uk_third');
  expect(await store.useEnvironmentKey()).toBe(true);
  expect(await seenWithin(() => other.active()?.id, other.envKey!.id)).toBe(other.envKey!.id);
});

it('a keyring whose first read failed (the ledger unavailable at start) still hears of later changes', async () => {
  let unavailable = true;
  const late = new UpstreamKeyring({
    envKey: ENV_KEY,
    box,
    store: async () => {
      if (unavailable) throw new Error('ledger unavailable');
      return ledgers[1]!.consoleStore();
    },
    databaseUrl: POSTGRES_URL,
    logger: createLogger('warn', new LogCapture()),
    pollMs: 3_600_000,
  });
  // The server logs this and starts anyway (server.ts).
  await expect(late.start()).rejects.toThrow('ledger unavailable');
  unavailable = false;
  try {
    await new Promise((resolve) => setTimeout(resolve, 500));
    await addKey('uk_fourth', 'acct_fourth');
    expect(await store.activateUpstreamKey('uk_fourth', Date.now())).toBe(true);
    expect(await seenWithin(() => late.active()?.id, 'uk_fourth')).toBe('uk_fourth');
  } finally {
    await late.close();
  }
});
