import type pg from 'pg';
import type { Logger } from '../logging.ts';
import { pgDriver } from './pg-driver.ts';

const RECONNECT_MS = 1_000;

/**
 * The channel on which a change to members (a revocation, a rotated token, budgets, a rate
 * limit) is announced to every instance's member cache.
 */
export const MEMBERS_CHANNEL = 'redline_members';

/**
 * The channel on which a change to the stored upstream keys that the keyring reads (an
 * activation, a removal, a key's account) is announced to every instance's keyring.
 */
export const UPSTREAM_KEYS_CHANNEL = 'redline_upstream_keys';

/**
 * `statement` (an INSERT, UPDATE or DELETE … RETURNING id) with a notice on `channel` (a fixed
 * SQL name) per row it changed, in the same statement: PostgreSQL delivers it when, and only
 * when, the change commits (inside a transaction, at its COMMIT). No later step of this process,
 * and no connection of its own, can then fail to send it. The row count is the statement's.
 * Every change to what an instance caches from the ledger announces itself this way. `columns`:
 * more of what the statement returns, to read back beside the notices.
 */
export const announcing = (channel: string, statement: string, columns?: string) =>
  `WITH changed AS (${statement}) SELECT pg_notify('${channel}', id)${columns ? `, ${columns}` : ''} FROM changed`;

/** `statement` (an UPDATE of members … RETURNING id) announced on MEMBERS_CHANNEL. */
export const announcingMembers = (statement: string, columns?: string) => announcing(MEMBERS_CHANNEL, statement, columns);

/** `statement` (a change to upstream_keys … RETURNING id) announced on UPSTREAM_KEYS_CHANNEL. */
export const announcingUpstreamKeys = (statement: string) => announcing(UPSTREAM_KEYS_CHANNEL, statement);

/** How often a listening connection is asked for a `SELECT 1`; one unanswered for this long means it is gone. */
export const CHANNEL_HEARTBEAT_MS = 5_000;

export interface ChannelHandlers {
  /** Listening (again): announcements made while not listening were missed. */
  onListening(): void;
  onNotification(): void;
  /** The connection was lost (closed, failed, or silent past a heartbeat); a reconnection follows. */
  onLost?(): void;
}

/**
 * LISTENs on `channel` and calls the handlers. A lost connection is retried every second, with
 * one warning per loss. A connection that drops silently (no FIN or RST: a NAT or firewall
 * forgetting it, a host gone) would otherwise look alive forever while notifications vanish:
 * a heartbeat query every CHANNEL_HEARTBEAT_MS that goes unanswered until the next one counts
 * as a loss, and TCP keepalive is on as well.
 */
export function listenChannel(
  databaseUrl: string,
  channel: string,
  handlers: ChannelHandlers,
  logger: Logger,
  lostMessage = 'lost a PostgreSQL notification channel; reconnecting',
): { close(): Promise<void> } {
  let closed = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  const listen = async () => {
    const next = new (await pgDriver()).Client({
      connectionString: databaseUrl,
      application_name: `redline-bff:listen:${channel}`,
      keepAlive: true,
      connectionTimeoutMillis: CHANNEL_HEARTBEAT_MS,
    });
    client = next;
    const lost = () => {
      if (client !== next) return;
      client = undefined;
      clearInterval(heartbeat);
      next.removeAllListeners();
      next.on('error', () => {});
      void next.end().catch(() => {});
      handlers.onLost?.();
      if (closed) return;
      logger.warn({ channel }, lostMessage);
      retry = setTimeout(() => void listen(), RECONNECT_MS);
    };
    next.on('error', lost);
    next.on('end', lost);
    next.on('notification', () => handlers.onNotification());
    try {
      await next.connect();
      await next.query(`LISTEN ${channel}`);
      if (client !== next) return;
      let waiting = false;
      heartbeat = setInterval(() => {
        if (waiting) return lost();
        waiting = true;
        next.query('SELECT 1').then(() => (waiting = false), lost);
      }, CHANNEL_HEARTBEAT_MS);
      heartbeat.unref();
      handlers.onListening();
    } catch {
      lost();
    }
  };
  const ready = listen();
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      clearInterval(heartbeat);
      await ready;
      const last = client;
      client = undefined;
      await last?.end().catch(() => {});
    },
  };
}
