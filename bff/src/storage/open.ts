import { setTimeout as sleep } from 'node:timers/promises';
import type { BffConfig } from '../config.ts';
import { describeError, type Logger } from '../logging.ts';
import { classifyLedgerError } from './faults.ts';
import type { Ledger } from './ledger.ts';
import { PostgresLedger } from './postgres.ts';
import { SqliteLedger } from './sqlite.ts';

export interface OpenOptions {
  logger?: Logger;
  /** How long to wait for a PostgreSQL server that is not up yet (it may start after the BFF); 0 fails at once. */
  waitForDatabaseMs?: number;
}

/** The configured ledger: PostgreSQL when BFF_DATABASE_URL is set, else the embedded SQLite file. */
export async function openLedger(
  config: Pick<BffConfig, 'databaseUrl' | 'databaseSchema' | 'databaseFile'> & Partial<Pick<BffConfig, 'databasePoolSize' | 'sqliteSynchronous' | 'sqliteCheckpoints'>>,
  options: OpenOptions = {},
): Promise<Ledger> {
  const { logger } = options;
  if (!config.databaseUrl) {
    return new SqliteLedger(config.databaseFile, {
      synchronous: config.sqliteSynchronous,
      checkpointInThread: config.sqliteCheckpoints === 'thread',
      onCheckpointerStopped: (reason) => logger?.warn({ reason }, 'the SQLite checkpoint thread stopped; checkpoints run inside commits again'),
      onPermissionsNarrowed: logger && ((fields, message) => logger.warn(fields, message)),
    });
  }
  const deadline = Date.now() + (options.waitForDatabaseMs ?? 0);
  for (let attempt = 0; ; attempt++) {
    try {
      return await PostgresLedger.open(config.databaseUrl, {
        schema: config.databaseSchema,
        poolSize: config.databasePoolSize,
        onConnectionError: (error) => logger?.warn({ error: describeError(error) }, 'PostgreSQL connection error'),
      });
    } catch (error) {
      const fault = classifyLedgerError(error);
      if (!fault || Date.now() >= deadline) throw error;
      if (attempt === 0) logger?.warn({ reason: fault.reason, error: describeError(error) }, `waiting for the ledger: ${fault.explanation}`);
      await sleep(1000);
    }
  }
}
