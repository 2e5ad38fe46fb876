import { expect, it } from 'vitest';
import pg from 'pg';
import { createLogger, describeError } from '@redline/bff/logging';
import { LedgerUnavailableError } from '@redline/bff/storage/faults';
import { LogCapture, POSTGRES_URL } from './harness.ts';

// Errors are logged with their real type, message, code and stack, and never with user text
// or stored values (a JSON parse error quotes its input; PostgreSQL's `detail` quotes values).

it('logs a driver error with its real type, code and stack, without its detail', async () => {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  let error: unknown;
  try {
    await client.query('CREATE TEMP TABLE t (name TEXT UNIQUE)');
    await client.query("INSERT INTO t VALUES ('Zebra Umbrella'), ('Zebra Umbrella')");
  } catch (caught) {
    error = caught;
  } finally {
    await client.end();
  }
  expect((error as { detail?: string }).detail).toContain('Zebra Umbrella');
  const logs = new LogCapture();
  createLogger('info', logs).error({ error: describeError(error) }, 'unexpected error');
  const entry = JSON.parse(logs.lines[0]!);
  expect(entry.error).toMatchObject({ type: 'DatabaseError', code: '23505', message: expect.stringContaining('duplicate key') });
  expect(entry.error.stack).toMatch(/^error: duplicate key[\s\S]*\n\s+at /);
  expect(logs.text).not.toContain('Zebra Umbrella');
});

it('withholds the message of a JSON parse error, which quotes the input', () => {
  let error: unknown;
  try {
    JSON.parse('Zebra Umbrella is not JSON');
  } catch (caught) {
    error = caught;
  }
  expect((error as Error).message + (error as Error).stack).toContain('Zebra');
  const described = describeError(error);
  expect(described.type).toBe('SyntaxError');
  expect(JSON.stringify(described)).not.toContain('Zebra');
  expect(described.stack).toMatch(/\n\s+at /);
});

it('keeps the type of our own errors and their cause', () => {
  const described = describeError(new LedgerUnavailableError({ reason: 'disk_full', explanation: 'the disk is full' }, { cause: Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }) }));
  expect(described).toMatchObject({ type: 'LedgerUnavailableError', cause: { type: 'Error', code: 'SQLITE_FULL' } });
});
