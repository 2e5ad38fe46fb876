import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import { afterAll, beforeEach } from 'vitest';
import { loadConfig } from '@redline/bff/config';
import { createMember } from '@redline/bff/members';
import { startBff, type RunningBff } from '@redline/bff/server';
import { PostgresLedger } from '@redline/bff/storage/postgres';
import { SqliteLedger } from '@redline/bff/storage/sqlite';
import type { Budgets, Ledger, Role } from '@redline/bff/storage/ledger';
import { startUpstreamDouble, type RunningUpstreamDouble } from '../upstream/server.ts';
import { upstreamControl } from '../upstream/client.ts';
import type { UpstreamDoubleOptions } from '../upstream/app.ts';
import { TEST_DATABASE_URL } from '../system.ts';

/** Collects everything the BFF logs, to assert on what never appears there. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    callback();
  }
  get text(): string {
    return this.lines.join('\n');
  }
}

/** Fast retry settings for tests: the same logic, shorter waits. */
export const FAST_RETRIES = {
  BFF_BACKOFF_BASE_MS: '20',
  BFF_BACKOFF_CAP_MS: '200',
  BFF_REQUEST_DEADLINE_MS: '15000',
  BFF_ATTEMPT_TIMEOUT_MS: '5000',
  BFF_MAX_ATTEMPTS: '8',
};

export interface Harness {
  bff: RunningBff;
  double: RunningUpstreamDouble | undefined;
  control: ReturnType<typeof upstreamControl>;
  logs: LogCapture;
  /** The token of the member 'tester', whom `call` is made as. */
  token: string;
  testerId: string;
  dataDir: string;
  env: Record<string, string>;
  addMember(name: string, budgets?: Budgets): Promise<string>;
  call(pathname: string, body?: unknown, options?: RequestOptions): Promise<BffResponse>;
  close(): Promise<void>;
}

export interface RequestOptions {
  token?: string | null;
  origin?: string;
  contentType?: string;
  rawBody?: string;
  method?: string;
}

export interface BffResponse {
  status: number;
  headers: Headers;
  body: any;
  raw: string;
}

export async function request(baseUrl: string, pathname: string, body: unknown, token: string | null | undefined, options: RequestOptions = {}): Promise<BffResponse> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (options.origin) headers.origin = options.origin;
  const hasBody = body !== undefined || options.rawBody !== undefined;
  if (hasBody) headers['content-type'] = options.contentType ?? 'application/json';
  const response = await fetch(baseUrl + pathname, {
    method: options.method ?? (hasBody ? 'POST' : 'GET'),
    headers,
    body: options.rawBody ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  return readResponse(response);
}

/** A response as the tests read it: its body parsed as JSON where it is JSON, else as text, and the raw text. */
export async function readResponse(response: Response): Promise<BffResponse> {
  const raw = await response.text();
  let parsed: unknown = raw;
  try {
    parsed = JSON.parse(raw);
  } catch {
    // keep the text
  }
  return { status: response.status, headers: response.headers, body: parsed, raw };
}

export interface HarnessOptions {
  env?: Record<string, string>;
  /** Run the BFF without an upstream (offline mode). */
  offline?: boolean;
  upstream?: UpstreamDoubleOptions;
  /** The environment's upstream key (UPSTREAM_API_KEY); null: none (the console's keys only). */
  apiKey?: string | null;
  /** The ledger: the data folder's SQLite file (default), the machine's PostgreSQL in a schema of its own, or a given one. */
  ledger?: Ledger | 'sqlite' | 'postgres';
  /** The BFF's clock for retention. */
  now?: () => number;
  /** The role of the member 'tester' (default: member); 'admin' to sign in to the team console with `token`. */
  testerRole?: Role;
}

export const UPSTREAM_KEY = 'demo-key-primary';

/** The tests' PostgreSQL database (`npm run setup` creates it); each test uses its own schema. */
export const POSTGRES_URL = TEST_DATABASE_URL;

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
}

/**
 * The two ledgers a store-level test runs on: a SQLite file in a folder of its own and a
 * PostgreSQL schema of its own, both removed after the test file.
 */
export function bothLedgers(name: string): [string, () => Promise<Ledger>][] {
  const schema = `${name}_${process.pid}`;
  const folder = mkdtempSync(path.join(tmpdir(), `redline-${name}-`));
  afterAll(async () => {
    rmSync(folder, { recursive: true, force: true });
    await dropSchema(schema);
  });
  return [
    ['SQLite', async () => new SqliteLedger(path.join(folder, 'ledger.sqlite'))],
    ['PostgreSQL', () => PostgresLedger.open(POSTGRES_URL, schema)],
  ];
}

/**
 * A ledger of its own for each test of a `describe` (a data folder, and on PostgreSQL a schema),
 * all removed after them. `ledger()` opens this test's again, as a restarted process does (on
 * SQLite none: the BFF opens the file in `dataDir()` itself).
 */
export function ledgerPerTest(name: string, kind: 'sqlite' | 'postgres') {
  const dataDirs: string[] = [];
  const schemas: string[] = [];
  beforeEach(() => {
    dataDirs.push(mkdtempSync(path.join(tmpdir(), `redline-${name.replaceAll('_', '-')}-`)));
    schemas.push(`${name}_${process.pid}_${schemas.length}`);
  });
  afterAll(async () => {
    for (const folder of dataDirs) rmSync(folder, { recursive: true, force: true });
    if (kind === 'postgres') for (const schema of schemas) await dropSchema(schema);
  });
  return {
    dataDir: () => dataDirs.at(-1)!,
    ledger: async (): Promise<Ledger | undefined> => (kind === 'postgres' ? PostgresLedger.open(POSTGRES_URL, schemas.at(-1)!) : undefined),
  };
}

let schemas = 0;

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const double = options.offline ? undefined : await startUpstreamDouble({ testMode: true, ...options.upstream });
  const dataDir = mkdtempSync(path.join(tmpdir(), 'redline-bff-'));
  const env: Record<string, string> = {
    BFF_PORT: '0',
    BFF_DATA_DIR: dataDir,
    BFF_LOG_LEVEL: 'info',
    ...FAST_RETRIES,
    ...(double ? { UPSTREAM_BASE_URL: double.url } : {}),
    ...(double && options.apiKey !== null ? { UPSTREAM_API_KEY: options.apiKey ?? UPSTREAM_KEY } : {}),
    ...options.env,
  };
  const logs = new LogCapture();
  const schema = options.ledger === 'postgres' ? `harness_${process.pid}_${schemas++}` : undefined;
  const ledger = schema ? await PostgresLedger.open(POSTGRES_URL, schema) : typeof options.ledger === 'object' ? options.ledger : undefined;
  const bff = await startBff(loadConfig(env), { logDestination: logs, ledger, now: options.now });
  const addMember = async (name: string, budgets: Budgets = {}) => (await createMember(bff.ledger, name, budgets)).token;
  const { token, member: tester } = await createMember(bff.ledger, 'tester');
  if (options.testerRole === 'admin' && !(await (await bff.ledger.consoleStore()).setRole(tester.id, 'admin'))) throw new Error('the harness could not make tester an administrator');
  return {
    bff,
    double,
    control: upstreamControl(double?.url ?? 'http://127.0.0.1:9'),
    logs,
    token,
    testerId: tester.id,
    dataDir,
    env,
    addMember,
    call: (pathname, body, requestOptions = {}) =>
      request(bff.url, pathname, body, requestOptions.token === undefined ? token : requestOptions.token, requestOptions),
    async close() {
      await bff.stop();
      await double?.close();
      rmSync(dataDir, { recursive: true, force: true });
      if (schema) await dropSchema(schema);
    },
  };
}

let counter = 0;
export const newOperationId = () => `op-${process.pid}-${Date.now()}-${counter++}`;
