import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { OWN_CHROME_EXTENSION_ORIGIN } from '@redline/shared';

/**
 * Server configuration, from the environment only. The upstream base URL and API key are
 * never taken from a request. The key may come from a file (UPSTREAM_API_KEY_FILE, e.g. a
 * mounted secret) instead of the environment.
 */

const ORIGIN = /^(chrome-extension:\/\/[a-p]{32}|moz-extension:\/\/[0-9a-f-]{36}|https?:\/\/[^/\s]+)$/;

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const Env = z.object({
  BFF_HOST: z.string().default('127.0.0.1'),
  BFF_PORT: z.coerce.number().int().min(0).max(65535).default(8787),
  BFF_DATA_DIR: z.string().default('data'),
  BFF_ALLOWED_ORIGINS: z
    .string()
    .default(OWN_CHROME_EXTENSION_ORIGIN)
    .transform((value) => value.split(',').map((origin) => origin.trim()).filter(Boolean))
    .pipe(z.array(z.string().regex(ORIGIN, 'must be an exact origin such as chrome-extension://<32 letters a-p> or moz-extension://<uuid>'))),
  UPSTREAM_BASE_URL: z.url({ protocol: /^https?$/, error: 'UPSTREAM_BASE_URL must be an http(s) URL' }).optional(),
  UPSTREAM_API_KEY: z.string().min(1).optional(),
  UPSTREAM_API_KEY_FILE: z.string().min(1).optional(),
  BFF_OFFLINE_SOURCES_DIR: z.string().optional(),
  BFF_DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'BFF_DATABASE_URL must be a postgres:// URL').optional(),
  BFF_MAX_DOCUMENT_CHARACTERS: positiveInt(1_000_000),
  BFF_MAX_BODY_BYTES: positiveInt(16 * 1024 * 1024),
  BFF_PART_CONCURRENCY: positiveInt(3),
  BFF_MEMBER_RATE_LIMIT: positiveInt(120),
  BFF_MEMBER_RATE_WINDOW_SECONDS: positiveInt(60),
  BFF_REQUEST_DEADLINE_MS: positiveInt(180_000),
  BFF_ATTEMPT_TIMEOUT_MS: positiveInt(90_000),
  BFF_MAX_ATTEMPTS: positiveInt(8),
  BFF_BACKOFF_BASE_MS: positiveInt(250),
  BFF_BACKOFF_CAP_MS: positiveInt(8_000),
  BFF_SHUTDOWN_GRACE_MS: positiveInt(30_000),
  BFF_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface RetryPolicy {
  deadlineMs: number;
  attemptTimeoutMs: number;
  maxAttempts: number;
  backoffBaseMs: number;
  backoffCapMs: number;
}

export interface BffConfig {
  host: string;
  port: number;
  dataDir: string;
  databaseFile: string;
  /** PostgreSQL instead of the SQLite file, for several instances. */
  databaseUrl?: string;
  allowedOrigins: string[];
  /** Absent in offline mode. */
  upstream?: { baseUrl: string; apiKey: string };
  offlineSourcesDir?: string;
  maxDocumentCharacters: number;
  maxBodyBytes: number;
  partConcurrency: number;
  memberRateLimit: { requests: number; windowMs: number };
  retry: RetryPolicy;
  shutdownGraceMs: number;
  logLevel: z.infer<typeof Env>['BFF_LOG_LEVEL'];
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): BffConfig {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (e.UPSTREAM_API_KEY && e.UPSTREAM_API_KEY_FILE) {
    throw new ConfigError('Set UPSTREAM_API_KEY or UPSTREAM_API_KEY_FILE, not both.');
  }
  let apiKey = e.UPSTREAM_API_KEY;
  if (e.UPSTREAM_API_KEY_FILE) {
    try {
      apiKey = readFileSync(e.UPSTREAM_API_KEY_FILE, 'utf8').trim();
    } catch (error) {
      throw new ConfigError(`Cannot read UPSTREAM_API_KEY_FILE (${e.UPSTREAM_API_KEY_FILE}): ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`);
    }
    if (!apiKey) throw new ConfigError(`UPSTREAM_API_KEY_FILE (${e.UPSTREAM_API_KEY_FILE}) is empty.`);
  }
  if (apiKey && !e.UPSTREAM_BASE_URL) throw new ConfigError('An upstream API key is set but UPSTREAM_BASE_URL is not.');
  if (e.UPSTREAM_BASE_URL && !apiKey) {
    throw new ConfigError('UPSTREAM_BASE_URL is set but no API key: set UPSTREAM_API_KEY or UPSTREAM_API_KEY_FILE (or unset UPSTREAM_BASE_URL for offline mode).');
  }
  return {
    host: e.BFF_HOST,
    port: e.BFF_PORT,
    dataDir: e.BFF_DATA_DIR,
    databaseFile: path.join(e.BFF_DATA_DIR, 'bff.sqlite'),
    databaseUrl: e.BFF_DATABASE_URL,
    allowedOrigins: e.BFF_ALLOWED_ORIGINS,
    upstream: apiKey && e.UPSTREAM_BASE_URL ? { baseUrl: e.UPSTREAM_BASE_URL.replace(/\/+$/, ''), apiKey } : undefined,
    offlineSourcesDir: e.BFF_OFFLINE_SOURCES_DIR,
    maxDocumentCharacters: e.BFF_MAX_DOCUMENT_CHARACTERS,
    maxBodyBytes: e.BFF_MAX_BODY_BYTES,
    partConcurrency: e.BFF_PART_CONCURRENCY,
    memberRateLimit: { requests: e.BFF_MEMBER_RATE_LIMIT, windowMs: e.BFF_MEMBER_RATE_WINDOW_SECONDS * 1000 },
    retry: {
      deadlineMs: e.BFF_REQUEST_DEADLINE_MS,
      attemptTimeoutMs: e.BFF_ATTEMPT_TIMEOUT_MS,
      maxAttempts: e.BFF_MAX_ATTEMPTS,
      backoffBaseMs: e.BFF_BACKOFF_BASE_MS,
      backoffCapMs: e.BFF_BACKOFF_CAP_MS,
    },
    shutdownGraceMs: e.BFF_SHUTDOWN_GRACE_MS,
    logLevel: e.BFF_LOG_LEVEL,
  };
}
