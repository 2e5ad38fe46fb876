import type { BffConfig } from '../config.ts';
import type { Ledger } from './ledger.ts';
import { PostgresLedger } from './postgres.ts';
import { SqliteLedger } from './sqlite.ts';

/** The configured ledger: PostgreSQL when BFF_DATABASE_URL is set, else the embedded SQLite file. */
export async function openLedger(config: Pick<BffConfig, 'databaseUrl' | 'databaseFile'>): Promise<Ledger> {
  return config.databaseUrl ? PostgresLedger.open(config.databaseUrl) : new SqliteLedger(config.databaseFile);
}
