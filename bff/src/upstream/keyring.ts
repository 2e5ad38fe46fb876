import { createHash } from 'node:crypto';
import { HttpError } from '../errors.ts';
import type { Logger } from '../logging.ts';
import { UPSTREAM_KEYS_CHANNEL, listenChannel } from '../storage/pg-channel.ts';
import type { ConsoleStore, UpstreamKeyRecord } from '../storage/console-store.ts';
import type { SecretBox } from './secret-box.ts';

/**
 * The id under which operations recorded the environment's key (UPSTREAM_API_KEY[_FILE])
 * before its id named its account; such an operation is taken to have started with today's.
 */
const LEGACY_ENV_KEY_ID = 'env';

export interface UpstreamKey {
  id: string;
  value: string;
  /** Keys with equal accounts share the upstream's idempotency records. */
  account: string;
}

/**
 * The environment key's account, and its id: a digest of its value, so a changed variable is
 * another account, which an operation that started with the old value must not move to.
 */
export const envKeyAccount = (value: string) => `env:${createHash('sha256').update(value).digest('hex').slice(0, 16)}`;
const isEnvKeyId = (id: string) => id.startsWith('env:');

export interface KeyringOptions {
  envKey?: string | undefined;
  box?: SecretBox | undefined;
  store: () => Promise<ConsoleStore>;
  /** PostgreSQL: listen for changes made on other instances. */
  databaseUrl?: string | undefined;
  logger: Logger;
  /** Re-reads the stored keys this often too, in case a notification was missed (its listening connection down). */
  pollMs?: number;
}

/**
 * The upstream keys this instance sends: the active one for new operations and, for an
 * operation in flight, the key it started with, unless the active key belongs to the same
 * upstream account (whose idempotency records both keys share: moving is safe and keeps it
 * working when the upstream retires the old value). An operation started with a key of
 * another account keeps that key, since the new account would run and charge it again.
 * The console's active key takes the place of the environment's while there is one.
 */
export class UpstreamKeyring {
  #keys = new Map<string, UpstreamKey>();
  #activeId: string | undefined;
  /** Why there is no active key, when there is none. */
  #missing = 'No upstream API key is set. An administrator adds one on the console\'s Upstream key page.';
  #listener: { close(): Promise<void> } | undefined;
  #poll: NodeJS.Timeout | undefined;
  #reloading: Promise<void> | undefined;
  #reloadAgain = false;
  readonly #envKey: UpstreamKey | undefined;
  /**
   * Earlier values of UPSTREAM_API_KEY (by id) found to be of the active key's account: the
   * upstream's own rotation activates a new value and retires the old one (3.1), so an
   * operation that started with the old value can only be fetched with the new one.
   */
  readonly #sameAccount = new Map<string, string>();
  /** The accounts of keys removed from the console, by id (an operation may still have started with one). */
  #removedAccounts = new Map<string, string>();

  constructor(private readonly options: KeyringOptions) {
    if (options.envKey) {
      const account = envKeyAccount(options.envKey);
      this.#envKey = { id: account, value: options.envKey, account };
      this.#keys.set(account, this.#envKey);
      this.#activeId = account;
    }
  }

  get envKey(): UpstreamKey | undefined {
    return this.#envKey;
  }

  /** Reads the stored keys (rejects when it cannot), and with PostgreSQL listens and polls for changes, whether or not that first read succeeded. */
  async start(): Promise<void> {
    const { databaseUrl, logger, pollMs = 5_000 } = this.options;
    if (databaseUrl) {
      const reload = () => void this.reload().catch(() => {});
      this.#listener = listenChannel(databaseUrl, UPSTREAM_KEYS_CHANNEL, { onListening: reload, onNotification: reload }, logger);
      this.#poll = setInterval(reload, pollMs);
      this.#poll.unref();
    }
    await this.reload();
  }

  /** Re-reads the stored keys (after a change here, a notification, or a poll); concurrent calls share one read and one more after it. */
  reload(): Promise<void> {
    if (this.#reloading) {
      this.#reloadAgain = true;
      return this.#reloading;
    }
    this.#reloading = (async () => {
      try {
        do {
          this.#reloadAgain = false;
          const store = await this.options.store();
          this.#apply(await store.upstreamKeys(), await store.removedKeyAccounts());
        } while (this.#reloadAgain);
      } finally {
        this.#reloading = undefined;
      }
    })();
    return this.#reloading;
  }

  #apply(records: UpstreamKeyRecord[], removed: Map<string, string>): void {
    this.#removedAccounts = removed;
    const keys = new Map<string, UpstreamKey>();
    if (this.#envKey) keys.set(this.#envKey.id, this.#envKey);
    let activeId = this.#envKey?.id;
    let missing = this.#missing;
    for (const record of records) {
      if (record.state !== 'active' && record.state !== 'previous') continue;
      const value = this.#open(record);
      if (value !== undefined) keys.set(record.id, { id: record.id, value, account: record.account });
      if (record.state === 'active') {
        activeId = value === undefined ? undefined : record.id;
        if (value === undefined) missing = `The active upstream key (${record.label}) cannot be decrypted: BFF_SECRET_KEY is missing or not the one it was stored with. Restore it, or activate another key in the console.`;
      }
    }
    if (activeId !== this.#activeId) this.options.logger.info({ upstreamKey: activeId ?? null }, 'upstream key in use changed');
    this.#keys = keys;
    this.#activeId = activeId;
    this.#missing = missing;
  }

  #failedToOpen = new Set<string>();
  #open(record: UpstreamKeyRecord): string | undefined {
    try {
      if (!this.options.box) throw new Error('no BFF_SECRET_KEY');
      return this.options.box.open(record.ciphertext, record.id);
    } catch {
      if (!this.#failedToOpen.has(record.id)) {
        this.#failedToOpen.add(record.id);
        this.options.logger.error({ upstreamKey: record.id }, 'a stored upstream key cannot be decrypted: BFF_SECRET_KEY is missing or differs from the one it was stored with');
      }
      return undefined;
    }
  }

  /** The key new operations use, if any. */
  active(): UpstreamKey | undefined {
    return this.#activeId === undefined ? undefined : this.#keys.get(this.#activeId);
  }

  /** The active key's id for a new operation; a clear refusal when there is none. */
  activeIdOrRefuse(): string {
    const active = this.active();
    if (!active) throw HttpError.of(503, 'upstream_key_missing', this.#missing, { retryAfterSeconds: 30 });
    return active.id;
  }

  /**
   * The key to send on the next attempt of an operation that started with `startedWith`;
   * none when that key is gone and the active one is of another account (or unknown), which
   * would run and charge the operation again: refusalFor says why.
   */
  keyFor(startedWith: string | null): UpstreamKey | undefined {
    const active = this.active();
    if (startedWith === LEGACY_ENV_KEY_ID) startedWith = this.#envKey?.id ?? null;
    if (startedWith === null || startedWith === active?.id) return active;
    const started = this.#keys.get(startedWith);
    // An environment key's id is its account; a console key removed since keeps its account on
    // record: an instance that had not heard of the removal may have started the operation with it.
    const account = started?.account ?? this.#sameAccount.get(startedWith) ?? this.#removedAccounts.get(startedWith) ?? (isEnvKeyId(startedWith) ? startedWith : undefined);
    if (active && active.account === account) return active;
    return started;
  }

  /**
   * keyFor, after re-reading the stored keys when it has none for a key id this instance has never
   * seen: one activated on another instance since its last read (a notice missed, up to the next
   * poll). Without it, an operation started there and repeated here was refused as started with a
   * removed key, and held.
   */
  async keyForReading(startedWith: string | null): Promise<UpstreamKey | undefined> {
    const key = this.keyFor(startedWith);
    if (key || startedWith === null || startedWith === LEGACY_ENV_KEY_ID || isEnvKeyId(startedWith)) return key;
    if (this.#keys.has(startedWith) || this.#removedAccounts.has(startedWith)) return key;
    await this.reload().catch(() => {});
    return this.keyFor(startedWith);
  }

  /**
   * An earlier environment key that keyFor has no key for, while the active key is the
   * environment's: the one case in which the account of the earlier key is worth checking
   * (checkedSameAccount), since nothing else records it.
   */
  earlierEnvKey(startedWith: string | null): string | undefined {
    const active = this.active();
    if (startedWith === null || !isEnvKeyId(startedWith) || !active || active !== this.#envKey) return undefined;
    return this.keyFor(startedWith) ? undefined : startedWith;
  }

  /** Records that an earlier environment key belongs to the active environment key's account (checked upstream). */
  sameAccountAsActive(earlierId: string): void {
    const active = this.active();
    if (active) this.#sameAccount.set(earlierId, active.account);
  }

  /** Why an operation that started with `startedWith` has no key to send (keyFor gave none). */
  refusalFor(startedWith: string | null): HttpError {
    if (!this.active() || startedWith === null) return HttpError.of(503, 'upstream_key_missing', this.#missing, { retryAfterSeconds: 30 });
    const which = isEnvKeyId(startedWith) || startedWith === LEGACY_ENV_KEY_ID ? 'the value UPSTREAM_API_KEY had then' : 'a key since removed from the console';
    return HttpError.of(
      503,
      'upstream_key_missing',
      `This operation started with an upstream key that is no longer set (${which}), and the key in use now belongs to another account, or could not be shown to belong to the same one; another account would run and charge it again. Its result can be fetched only with a key of the account it started on: an administrator can set one again, or start a new check with a new operation id.`,
    );
  }

  /**
   * Re-reads the keys here after this instance changed them, so its answer says what it now
   * uses. Other instances (PostgreSQL) were told by the change's own statement, which announces
   * itself on UPSTREAM_KEYS_CHANNEL when it commits (storage/pg-channel.ts).
   */
  async changed(): Promise<void> {
    await this.reload();
  }

  async close(): Promise<void> {
    clearInterval(this.#poll);
    await this.#listener?.close();
  }
}
