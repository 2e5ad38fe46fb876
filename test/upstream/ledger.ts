import { createHash } from 'node:crypto';
import { PRODUCTS, REPLAY_WINDOW_MS, type Product } from '@redline/shared';
import type { AccountConfig, Balances } from './accounts.ts';

/** What binds a key to its first use (2.8), in 128 bits: small enough to keep for every operation ever run. */
export const fingerprintOf = (endpoint: string, variant: string, text: string): string =>
  createHash('sha256').update(`${endpoint}\n${variant}\n`).update(text).digest('base64url').slice(0, 22);

/** What the double stores per idempotency key while its response is replayable (upstream-api.md 2.8 and 3.2). */
export interface OperationRecord {
  key: string;
  /** A digest of endpoint, variant and text: what a repeat must match. */
  fingerprint: string;
  serverGenerated: boolean;
  product: Product;
  words: number;
  state: 'in_progress' | 'awaiting_recording' | 'completed';
  /**
   * The replayable response as JSON text: a fraction of the memory of the object, which
   * would also hold on to the request's text through the sentences cut from it.
   */
  responseJson?: string;
  completedAt?: number;
}

/** The permanent record left once the replay window has passed: enough for 409 and 410, no response. */
export interface ExpiredRecord {
  key: string;
  fingerprint: string;
  state: 'expired';
}

export interface AccountState {
  id: string;
  keys: string[];
  balances: Balances;
  /** Words charged per product (confirmed charges only). */
  charged: Record<Product, number>;
  /** How often "the provider" ran per product. */
  providerRuns: Record<Product, number>;
  /** Operations whose response is still held: in progress, awaiting recording, or completed within 24 hours. */
  records: Map<string, OperationRecord>;
  /** Permanent records of expired operations, key → fingerprint. */
  expired: Map<string, string>;
  rateWindow: { startedAt: number; count: number };
}

const zeroPerProduct = (): Record<Product, number> =>
  Object.fromEntries(PRODUCTS.map((product) => [product, 0])) as Record<Product, number>;

/**
 * Accounts, balances, charges and idempotency records, on an injectable clock. Responses
 * expire 24 hours (of this clock) after completion, whether or not anyone asks for them
 * again, so memory is bounded by the replay window; only the small permanent record stays.
 */
export class Ledger {
  #accounts = new Map<string, AccountState>();
  #accountByKey = new Map<string, AccountState>();
  #clockOffsetMs = 0;
  /** Completed operations in completion order: the oldest is the next to expire. */
  #completions: { account: AccountState; record: OperationRecord }[] = [];
  #completionsHead = 0;

  constructor(accounts: AccountConfig[]) {
    for (const config of accounts) {
      const account: AccountState = {
        id: config.id,
        keys: [...config.keys],
        balances: { ...config.balances },
        charged: zeroPerProduct(),
        providerRuns: zeroPerProduct(),
        records: new Map(),
        expired: new Map(),
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
    this.expireResponses();
  }

  /** Turns every completed operation older than the replay window into its permanent record. */
  expireResponses(): void {
    const now = this.now();
    const queue = this.#completions;
    while (this.#completionsHead < queue.length) {
      const { account, record } = queue[this.#completionsHead]!;
      if (now - record.completedAt! < REPLAY_WINDOW_MS) break;
      queue[this.#completionsHead++] = undefined!;
      account.records.delete(record.key);
      account.expired.set(record.key, record.fingerprint);
    }
    if (this.#completionsHead > 1024 && this.#completionsHead * 2 > queue.length) {
      this.#completions = queue.slice(this.#completionsHead);
      this.#completionsHead = 0;
    }
  }

  /** Responses held in memory across all accounts (for the control API and the memory test). */
  heldResponses(): number {
    return this.#completions.length - this.#completionsHead;
  }

  accountForKey(apiKey: string): AccountState | undefined {
    return this.#accountByKey.get(apiKey);
  }

  /**
   * The dashboard's activation of a key (upstream-api.md 3.1): `add` becomes a value of the
   * account's key from this moment; `remove` stops authenticating (the replaced value). The
   * account keeps its balances and idempotency records: they belong to the account, not a value.
   */
  changeKeys(account: AccountState, change: { add?: string[] | undefined; remove?: string[] | undefined }): void {
    for (const key of change.remove ?? []) {
      if (this.#accountByKey.get(key) !== account) continue;
      this.#accountByKey.delete(key);
      account.keys = account.keys.filter((value) => value !== key);
    }
    for (const key of change.add ?? []) {
      const owner = this.#accountByKey.get(key);
      if (owner && owner !== account) throw new Error(`key already belongs to account ${owner.id}`);
      if (owner) continue;
      this.#accountByKey.set(key, account);
      account.keys.push(key);
    }
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

  /** The record for a key: live while its response is replayable, permanent after. */
  record(account: AccountState, key: string): OperationRecord | ExpiredRecord | undefined {
    this.expireResponses();
    const live = account.records.get(key);
    if (live) return live;
    const fingerprint = account.expired.get(key);
    return fingerprint === undefined ? undefined : { key, fingerprint, state: 'expired' };
  }

  /** The stored response of a completed or held operation, for a replay. */
  storedResponse(record: OperationRecord): unknown {
    return record.responseJson === undefined ? undefined : JSON.parse(record.responseJson);
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
    record.responseJson = JSON.stringify(response);
  }

  /** Records the charge and stores the replayable response. */
  complete(account: AccountState, record: OperationRecord, response: unknown): void {
    account.charged[record.product] += record.words;
    record.state = 'completed';
    record.responseJson = JSON.stringify(response);
    record.completedAt = this.now();
    this.#completions.push({ account, record });
    this.expireResponses();
  }
}
