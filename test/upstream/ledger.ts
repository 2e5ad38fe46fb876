import { PRODUCTS, REPLAY_WINDOW_MS, type Product } from '@redline/shared';
import type { AccountConfig, Balances } from './accounts.ts';

/** What the double stores per idempotency key (upstream-api.md 2.8 and 3.2). */
export interface OperationRecord {
  key: string;
  fingerprint: string;
  serverGenerated: boolean;
  product: Product;
  words: number;
  state: 'in_progress' | 'awaiting_recording' | 'completed' | 'expired';
  /** The replayable response; dropped when the record expires. */
  response?: unknown;
  completedAt?: number;
}

export interface AccountState {
  id: string;
  keys: string[];
  balances: Balances;
  /** Words charged per product (confirmed charges only). */
  charged: Record<Product, number>;
  /** How often "the provider" ran per product. */
  providerRuns: Record<Product, number>;
  records: Map<string, OperationRecord>;
  rateWindow: { startedAt: number; count: number };
}

const zeroPerProduct = (): Record<Product, number> =>
  Object.fromEntries(PRODUCTS.map((product) => [product, 0])) as Record<Product, number>;

/** Accounts, balances, charges and idempotency records, on an injectable clock. */
export class Ledger {
  #accounts = new Map<string, AccountState>();
  #accountByKey = new Map<string, AccountState>();
  #clockOffsetMs = 0;

  constructor(accounts: AccountConfig[]) {
    for (const config of accounts) {
      const account: AccountState = {
        id: config.id,
        keys: [...config.keys],
        balances: { ...config.balances },
        charged: zeroPerProduct(),
        providerRuns: zeroPerProduct(),
        records: new Map(),
        rateWindow: { startedAt: 0, count: 0 },
      };
      this.#accounts.set(config.id, account);
      for (const key of config.keys) this.#accountByKey.set(key, account);
    }
  }

  now(): number {
    return Date.now() + this.#clockOffsetMs;
  }

  advanceClock(ms: number): void {
    this.#clockOffsetMs += ms;
  }

  accountForKey(apiKey: string): AccountState | undefined {
    return this.#accountByKey.get(apiKey);
  }

  account(id: string): AccountState | undefined {
    return this.#accounts.get(id);
  }

  accounts(): AccountState[] {
    return [...this.#accounts.values()];
  }

  /** Counts a request against the account's fixed window; the seconds to wait when over. */
  rateLimitWait(account: AccountState, limit: { requests: number; windowMs: number } | undefined): number {
    if (!limit) return 0;
    const now = this.now();
    if (now - account.rateWindow.startedAt >= limit.windowMs) account.rateWindow = { startedAt: now, count: 0 };
    if (account.rateWindow.count >= limit.requests) {
      return Math.max(1, Math.ceil((account.rateWindow.startedAt + limit.windowMs - now) / 1000));
    }
    account.rateWindow.count++;
    return 0;
  }

  /** The record for a key, moved to `expired` once its replay window has passed. */
  record(account: AccountState, key: string): OperationRecord | undefined {
    const record = account.records.get(key);
    if (record?.state === 'completed' && this.now() - record.completedAt! >= REPLAY_WINDOW_MS) {
      record.state = 'expired';
      delete record.response;
    }
    return record;
  }

  /** Starts an operation: reserves its words and holds the processing reservation. */
  begin(account: AccountState, record: Omit<OperationRecord, 'state'>): OperationRecord {
    account.balances[record.product] = (account.balances[record.product] ?? 0) - record.words;
    const started: OperationRecord = { ...record, state: 'in_progress' };
    account.records.set(record.key, started);
    return started;
  }

  /** The provider aborted: forget the operation and give the reserved words back. */
  abort(account: AccountState, record: OperationRecord): void {
    account.balances[record.product] = (account.balances[record.product] ?? 0) + record.words;
    account.records.delete(record.key);
  }

  /** The provider finished but usage recording failed: hold the output, charge nothing yet. */
  holdUnrecorded(record: OperationRecord, response: unknown): void {
    record.state = 'awaiting_recording';
    record.response = response;
  }

  /** Records the charge and stores the replayable response. */
  complete(account: AccountState, record: OperationRecord, response: unknown): void {
    account.charged[record.product] += record.words;
    record.state = 'completed';
    record.response = response;
    record.completedAt = this.now();
  }
}
