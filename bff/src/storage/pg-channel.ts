import type pg from 'pg';
import type { Logger } from '../logging.ts';
import { pgDriver } from './pg-driver.ts';

const RECONNECT_MS = 1_000;

/** Sends a NOTIFY on `channel` (a fixed SQL name) from a connection of its own. */
export async function notifyChannel(databaseUrl: string, channel: string): Promise<void> {
  const { Client } = await pgDriver();
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`NOTIFY ${channel}`);
  } finally {
    await client.end();
  }
}

/**
 * LISTENs on `channel` and calls `onChange` for every notification, and also after each
 * (re)connection, since announcements made while not listening were missed. A lost
 * connection is retried every second, with one warning per loss.
 */
export function listenChannel(databaseUrl: string, channel: string, onChange: () => void, logger: Logger): { close(): Promise<void> } {
  let closed = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const listen = async () => {
    const next = new (await pgDriver()).Client({ connectionString: databaseUrl });
    client = next;
    const lost = () => {
      if (client !== next) return;
      next.removeAllListeners();
      void next.end().catch(() => {});
      if (closed) return;
      logger.warn({ channel }, 'lost a PostgreSQL notification channel; reconnecting');
      retry = setTimeout(() => void listen(), RECONNECT_MS);
    };
    next.on('error', lost);
    next.on('end', lost);
    next.on('notification', onChange);
    try {
      await next.connect();
      await next.query(`LISTEN ${channel}`);
      onChange();
    } catch {
      lost();
    }
  };
  const ready = listen();
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      await ready;
      const last = client;
      client = undefined;
      await last?.end().catch(() => {});
    },
  };
}
