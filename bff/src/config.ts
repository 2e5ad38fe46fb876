import { readFileSync } from 'node:fs';
import path from 'node:path';
import express from 'express';
import { z } from 'zod';
import { OWN_CHROME_EXTENSION_ORIGIN } from '@redline/shared';

/**
 * Server configuration, from the environment only. The upstream base URL and API key are
 * never taken from a request. The key may come from a file (UPSTREAM_API_KEY_FILE, e.g. a
 * mounted secret) instead of the environment.
 */

const ORIGIN = /^(chrome-extension:\/\/[a-p]{32}|moz-extension:\/\/[0-9a-f-]{36}|https?:\/\/(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?)$/;

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const Env = z.object({
  BFF_HOST: z.string().default('127.0.0.1'),
  BFF_PORT: z.coerce.number().int().min(0).max(65535).default(8787),
  BFF_DATA_DIR: z.string().default('data'),
  BFF_ALLOWED_ORIGINS: z
    .string()
    .default(OWN_CHROME_EXTENSION_ORIGIN)
    .transform((value) => value.split(',').map((origin) => origin.trim()).filter(Boolean))
    .pipe(z.array(z.string().regex(ORIGIN, 'must be an exact origin such as chrome-extension://<32 letters a-p>, moz-extension://<uuid> or https://host[:port] (no wildcards, no path)'))),
  UPSTREAM_BASE_URL: z.url({ protocol: /^https?$/, error: 'UPSTREAM_BASE_URL must be an http(s) URL' }).optional(),
  UPSTREAM_API_KEY: z.string().min(1).optional(),
  UPSTREAM_API_KEY_FILE: z.string().min(1).optional(),
  BFF_SECRET_KEY: z.string().min(1).optional(),
  BFF_SECRET_KEY_FILE: z.string().min(1).optional(),
  BFF_OFFLINE_SOURCES_DIR: z.string().optional(),
  BFF_DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'BFF_DATABASE_URL must be a postgres:// URL').optional(),
  BFF_DATABASE_POOL_SIZE: positiveInt(10),
  BFF_SQLITE_SYNCHRONOUS: z.enum(['FULL', 'NORMAL'], { error: 'BFF_SQLITE_SYNCHRONOUS must be FULL or NORMAL' }).default('FULL'),
  BFF_SQLITE_CHECKPOINTS: z.enum(['thread', 'commit'], { error: 'BFF_SQLITE_CHECKPOINTS must be thread or commit' }).default('commit'),
  BFF_DATABASE_SCHEMA: z.string().regex(/^[a-z_][a-z0-9_]*$/, 'BFF_DATABASE_SCHEMA must be a lower-case SQL name (letters, digits, _)').default('public'),
  BFF_REDIS_URL: z.string().regex(/^rediss?:\/\//, 'BFF_REDIS_URL must be a redis:// or rediss:// URL').optional(),
  BFF_MAX_DOCUMENT_CHARACTERS: positiveInt(1_000_000),
  BFF_MAX_BODY_BYTES: z.coerce.number().int().positive().optional(),
  BFF_PART_CONCURRENCY: positiveInt(3),
  BFF_OFFLINE_THREADS: z.coerce.number().int().positive().optional(),
  BFF_MEMBER_RATE_LIMIT: positiveInt(120),
  BFF_MEMBER_RATE_WINDOW_SECONDS: positiveInt(60),
  BFF_REQUEST_DEADLINE_MS: positiveInt(180_000),
  BFF_ATTEMPT_TIMEOUT_MS: positiveInt(90_000),
  BFF_MAX_ATTEMPTS: positiveInt(8),
  BFF_BACKOFF_BASE_MS: positiveInt(250),
  BFF_BACKOFF_CAP_MS: positiveInt(8_000),
  BFF_SHUTDOWN_GRACE_MS: positiveInt(30_000),
  BFF_RESULT_RETENTION_HOURS: z.coerce.number().positive().default(24),
  BFF_PURGE_INTERVAL_SECONDS: z.coerce.number().positive().default(60),
  BFF_RESUME_INTERVAL_SECONDS: z.coerce.number().positive().default(300),
  BFF_LEDGER_PROBE_SECONDS: z.coerce.number().positive().default(1),
  BFF_PUBLIC_URL: z
    .url({ protocol: /^https?$/, error: 'BFF_PUBLIC_URL must be an http(s) URL' })
    .refine((value) => new URL(value).pathname === '/' && !new URL(value).search, 'BFF_PUBLIC_URL must be an origin such as https://redline.example.com (no path)')
    .optional(),
  BFF_TRUST_PROXY: z.string().optional(),
  BFF_OAUTH_ACCESS_TOKEN_SECONDS: positiveInt(600),
  BFF_OAUTH_REFRESH_TOKEN_DAYS: positiveInt(30),
  BFF_HEADERS_TIMEOUT_MS: positiveInt(10_000),
  BFF_BODY_TIMEOUT_MS: positiveInt(30_000),
  BFF_KEEP_ALIVE_TIMEOUT_MS: positiveInt(5_000),
  BFF_MAX_CONNECTIONS: positiveInt(512),
  BFF_HEAP_GROWING_PERCENT: z.coerce.number().int().min(0).max(300).default(20),
  BFF_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

/** Every environment variable the BFF reads. */
export const CONFIG_VARIABLES = Object.keys(Env.shape);

export interface RetryPolicy {
  deadlineMs: number;
  attemptTimeoutMs: number;
  maxAttempts: number;
  backoffBaseMs: number;
  backoffCapMs: number;
}

export interface HttpLimits {
  /** Time for a client to send the request headers. */
  headersTimeoutMs: number;
  /** Time for a client to send the whole request, headers and body (not the time to answer it). */
  bodyTimeoutMs: number;
  /** How long an idle keep-alive connection stays open. */
  keepAliveTimeoutMs: number;
  maxConnections: number;
}

export interface BffConfig {
  host: string;
  port: number;
  dataDir: string;
  databaseFile: string;
  /** SQLite's `synchronous`: FULL puts each commit on disk before the step returns; NORMAL may lose the last commits in a power cut. */
  sqliteSynchronous: 'FULL' | 'NORMAL';
  /** Where SQLite's WAL checkpoints run: a thread of their own, or inside the commit that fills the log (SQLite's default). */
  sqliteCheckpoints: 'thread' | 'commit';
  /** PostgreSQL instead of the SQLite file, for several instances. */
  databaseUrl?: string;
  /** The PostgreSQL schema holding the ledger's tables. */
  databaseSchema: string;
  /** Connections this instance keeps to PostgreSQL at most. */
  databasePoolSize: number;
  /** Redis for state shared by instances (rate limits); per-instance state when absent. */
  redisUrl?: string;
  allowedOrigins: string[];
  /**
   * Absent in offline mode. `apiKey` is the environment's key (UPSTREAM_API_KEY[_FILE]); keys
   * activated in the console take its place (upstream/keyring.ts).
   */
  upstream?: { baseUrl: string; apiKey?: string | undefined };
  /** The AES-256-GCM key that encrypts upstream keys stored by the console; without it the console stores none. */
  secretKey?: Buffer;
  offlineSourcesDir?: string;
  maxDocumentCharacters: number;
  maxBodyBytes: number;
  partConcurrency: number;
  /** Worker threads for offline analysis; unset: the cores beside the event loop, 1 to 4. */
  offlineThreads?: number | undefined;
  memberRateLimit: { requests: number; windowMs: number };
  retry: RetryPolicy;
  shutdownGraceMs: number;
  /** Settled results are reduced to metadata after this long. */
  resultRetentionHours: number;
  /** How often the purge (and SQLite's log truncation) runs. */
  purgeIntervalMs: number;
  /** How often operations left pending are looked for (engine.resumeLeftPending): one is resumed one to two intervals after it was left. */
  resumeIntervalMs: number;
  /** How often an unavailable ledger is probed for recovery. */
  ledgerProbeMs: number;
  /** Connection limits of the HTTP server. */
  http: HttpLimits;
  logLevel: z.infer<typeof Env>['BFF_LOG_LEVEL'];
  /** How far the JS heap may grow past what the last full GC kept, in percent; 0: V8's own (up to 4 times). */
  heapGrowingPercent: number;
  /** The origin clients reach this BFF at; MCP OAuth tokens are bound to `<publicUrl>/mcp`. Unset: the listening address. */
  publicUrl?: string;
  /**
   * The reverse proxies whose X-Forwarded-For (and -Proto) are believed (Express's `trust proxy`):
   * a number of hops, or addresses, CIDR ranges and `loopback`/`linklocal`/`uniquelocal`;
   * false: none, the connection's peer is the client.
   */
  trustProxy: false | number | string[];
  oauth: { accessTokenSeconds: number; refreshTokenDays: number };
}

export class ConfigError extends Error {}

/**
 * The largest body a document of `characters` can need: 12 bytes per character (a character
 * outside the BMP written as two JSON \\u escapes) plus room for the other fields. A larger
 * body cannot hold an acceptable text, so it is refused before it is read.
 */
export const bodyBytesFor = (characters: number) => characters * 12 + 64 * 1024;

/** Reads a secret from the environment or from a file named by `<name>_FILE` (a mounted secret). */
function secretFrom(value: string | undefined, file: string | undefined, name: string): string | undefined {
  if (value && file) throw new ConfigError(`Set ${name} or ${name}_FILE, not both.`);
  if (!file) return value;
  let read: string;
  try {
    read = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new ConfigError(`Cannot read ${name}_FILE (${file}): ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
  if (!read) throw new ConfigError(`${name}_FILE (${file}) is empty.`);
  return read;
}

/** BFF_SECRET_KEY: 32 random bytes, as 64 hex digits or base64 (`openssl rand -base64 32`). */
export function parseSecretKey(text: string): Buffer {
  const bytes = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : /^[A-Za-z0-9+/_-]{43}=?$/.test(text) ? Buffer.from(text, 'base64') : undefined;
  if (!bytes || bytes.length !== 32) {
    throw new ConfigError('BFF_SECRET_KEY must be 32 random bytes written as base64 (44 characters) or hex (64 digits). Make one with: openssl rand -base64 32');
  }
  return bytes;
}

/** BFF_TRUST_PROXY: hops (a number) or proxy addresses; never `true`, which would believe any client's X-Forwarded-For. */
export function parseTrustProxy(text: string | undefined): BffConfig['trustProxy'] {
  const value = text?.trim() ?? '';
  if (value === '' || value === 'false') return false;
  if (/^\d+$/.test(value)) return Number(value);
  const addresses = value.split(',').map((part) => part.trim()).filter(Boolean);
  const problem = 'BFF_TRUST_PROXY must be the number of proxies in front of the BFF, or their addresses: IPs, CIDR ranges, loopback, linklocal or uniquelocal, comma-separated';
  if (value === 'true' || value === '*') throw new ConfigError(`${problem} (not "${value}", which would let any client choose its address).`);
  try {
    express().set('trust proxy', addresses);
  } catch (error) {
    throw new ConfigError(`${problem}: ${(error as Error).message}.`);
  }
  return addresses;
}

/** A number setting's problem in words, with the value given (numbers are never secrets); other issues as their schema says. */
function describeIssue(issue: z.core.$ZodIssue, env: NodeJS.ProcessEnv): string {
  const given = `not "${env[String(issue.path[0])] ?? ''}"`;
  if (issue.code === 'invalid_type' && issue.expected === 'number') return `must be a number, ${given}`;
  if (issue.code === 'invalid_type' && issue.expected === 'int') return `must be a whole number, ${given}`;
  if (issue.code === 'too_small' && typeof issue.minimum === 'number') {
    return `must be ${issue.inclusive ? 'at least' : 'more than'} ${issue.minimum}, ${given}`;
  }
  if (issue.code === 'too_big' && typeof issue.maximum === 'number') {
    return `must be ${issue.inclusive ? 'at most' : 'less than'} ${issue.maximum}, ${given}`;
  }
  return issue.message;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): BffConfig {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${describeIssue(issue, env)}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const apiKey = secretFrom(e.UPSTREAM_API_KEY, e.UPSTREAM_API_KEY_FILE, 'UPSTREAM_API_KEY');
  const secretText = secretFrom(e.BFF_SECRET_KEY, e.BFF_SECRET_KEY_FILE, 'BFF_SECRET_KEY');
  const secretKey = secretText === undefined ? undefined : parseSecretKey(secretText);
  if (e.BFF_HEADERS_TIMEOUT_MS > e.BFF_BODY_TIMEOUT_MS) {
    throw new ConfigError('BFF_HEADERS_TIMEOUT_MS must not be longer than BFF_BODY_TIMEOUT_MS (the body timeout covers the headers too).');
  }
  if (apiKey && !e.UPSTREAM_BASE_URL) throw new ConfigError('An upstream API key is set but UPSTREAM_BASE_URL is not.');
  if (e.UPSTREAM_BASE_URL && !apiKey && !secretKey) {
    throw new ConfigError(
      'UPSTREAM_BASE_URL is set but no API key: set UPSTREAM_API_KEY or UPSTREAM_API_KEY_FILE, or set BFF_SECRET_KEY to add the key in the console (or unset UPSTREAM_BASE_URL for offline mode).',
    );
  }
  return {
    host: e.BFF_HOST,
    port: e.BFF_PORT,
    dataDir: e.BFF_DATA_DIR,
    databaseFile: path.join(e.BFF_DATA_DIR, 'bff.sqlite'),
    sqliteSynchronous: e.BFF_SQLITE_SYNCHRONOUS,
    sqliteCheckpoints: e.BFF_SQLITE_CHECKPOINTS,
    databaseUrl: e.BFF_DATABASE_URL,
    databaseSchema: e.BFF_DATABASE_SCHEMA,
    databasePoolSize: e.BFF_DATABASE_POOL_SIZE,
    redisUrl: e.BFF_REDIS_URL,
    allowedOrigins: e.BFF_ALLOWED_ORIGINS,
    upstream: e.UPSTREAM_BASE_URL ? { baseUrl: e.UPSTREAM_BASE_URL.replace(/\/+$/, ''), apiKey } : undefined,
    ...(secretKey ? { secretKey } : {}),
    offlineSourcesDir: e.BFF_OFFLINE_SOURCES_DIR,
    maxDocumentCharacters: e.BFF_MAX_DOCUMENT_CHARACTERS,
    maxBodyBytes: e.BFF_MAX_BODY_BYTES ?? bodyBytesFor(e.BFF_MAX_DOCUMENT_CHARACTERS),
    partConcurrency: e.BFF_PART_CONCURRENCY,
    offlineThreads: e.BFF_OFFLINE_THREADS,
    memberRateLimit: { requests: e.BFF_MEMBER_RATE_LIMIT, windowMs: e.BFF_MEMBER_RATE_WINDOW_SECONDS * 1000 },
    retry: {
      deadlineMs: e.BFF_REQUEST_DEADLINE_MS,
      attemptTimeoutMs: e.BFF_ATTEMPT_TIMEOUT_MS,
      maxAttempts: e.BFF_MAX_ATTEMPTS,
      backoffBaseMs: e.BFF_BACKOFF_BASE_MS,
      backoffCapMs: e.BFF_BACKOFF_CAP_MS,
    },
    shutdownGraceMs: e.BFF_SHUTDOWN_GRACE_MS,
    resultRetentionHours: e.BFF_RESULT_RETENTION_HOURS,
    purgeIntervalMs: e.BFF_PURGE_INTERVAL_SECONDS * 1000,
    resumeIntervalMs: e.BFF_RESUME_INTERVAL_SECONDS * 1000,
    ledgerProbeMs: e.BFF_LEDGER_PROBE_SECONDS * 1000,
    http: {
      headersTimeoutMs: e.BFF_HEADERS_TIMEOUT_MS,
      bodyTimeoutMs: e.BFF_BODY_TIMEOUT_MS,
      keepAliveTimeoutMs: e.BFF_KEEP_ALIVE_TIMEOUT_MS,
      maxConnections: e.BFF_MAX_CONNECTIONS,
    },
    logLevel: e.BFF_LOG_LEVEL,
    heapGrowingPercent: e.BFF_HEAP_GROWING_PERCENT,
    publicUrl: e.BFF_PUBLIC_URL,
    trustProxy: parseTrustProxy(e.BFF_TRUST_PROXY),
    oauth: { accessTokenSeconds: e.BFF_OAUTH_ACCESS_TOKEN_SECONDS, refreshTokenDays: e.BFF_OAUTH_REFRESH_TOKEN_DAYS },
  };
}
