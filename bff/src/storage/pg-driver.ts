import type pg from 'pg';

let driver: Promise<typeof pg> | undefined;

/**
 * The pg driver, loaded when PostgreSQL is first used: a BFF on SQLite never needs it, and
 * loading it costs every process about 6 MiB of memory.
 */
export const pgDriver = (): Promise<typeof pg> => (driver ??= import('pg').then((module) => module.default));
