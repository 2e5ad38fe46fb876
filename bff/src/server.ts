import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { BffConfig } from './config.ts';
import { createApp } from './http/app.ts';
import { createLogger, type Logger } from './logging.ts';
import { createMetrics } from './metrics.ts';
import { OfflineForwarder, loadSourceFolder } from './offline/offline-forwarder.ts';
import { OperationEngine } from './operations/engine.ts';
import type { Ledger } from './storage/ledger.ts';
import { openLedger } from './storage/open.ts';
import type { Forwarder } from './upstream/forwarder.ts';
import { HttpForwarder } from './upstream/http-forwarder.ts';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

export interface RunningBff {
  url: string;
  ledger: Ledger;
  engine: OperationEngine;
  logger: Logger;
  /** Drains in-flight operations (up to the grace period), then closes the server and the ledger. */
  stop(): Promise<void>;
}

export interface StartOptions {
  logDestination?: NodeJS.WritableStream;
  ledger?: Ledger;
}

function createForwarder(config: BffConfig, deps: { metrics: ReturnType<typeof createMetrics>; logger: Logger }): Forwarder {
  if (config.upstream) return new HttpForwarder({ ...config.upstream, retry: config.retry, ...deps });
  return new OfflineForwarder(config.offlineSourcesDir ? loadSourceFolder(config.offlineSourcesDir) : undefined);
}

export async function startBff(config: BffConfig, options: StartOptions = {}): Promise<RunningBff> {
  const logger = createLogger(config.logLevel, options.logDestination);
  const metrics = createMetrics();
  const ledger = options.ledger ?? (await openLedger(config));
  const forwarder = createForwarder(config, { metrics, logger });
  const engine = new OperationEngine({ ledger, forwarder, metrics, logger, partConcurrency: config.partConcurrency });
  const app = createApp({ config, ledger, engine, metrics, logger, version });

  const server: Server = app.listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  logger.info({ url, mode: config.upstream ? 'upstream' : 'offline', version }, 'BFF listening');

  const resumed = await engine.resumePending();
  if (resumed > 0) logger.info({ resumed }, 'resuming operations left pending');

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      logger.info('draining in-flight operations');
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await engine.drain(config.shutdownGraceMs);
      server.closeAllConnections();
      await closed;
      if (forwarder instanceof HttpForwarder) await forwarder.close();
      await ledger.close();
      logger.info('stopped');
    })());

  return { url, ledger, engine, logger, stop };
}
