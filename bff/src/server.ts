import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import packageJson from '../package.json' with { type: 'json' };
import type { BffConfig } from './config.ts';
import { incompleteBody } from './errors.ts';
import { createApp } from './http/app.ts';
import { createRateLimiter } from './http/rate-limit.ts';
import { SIGN_IN_REFUSALS } from './console/router.ts';
import { createMemberAuthenticator } from './member-cache.ts';
import type { Product } from '@redline/shared';
import { createLogger, describeError, type Logger } from './logging.ts';
import { createMetrics, registerHeldOperations } from './metrics.ts';
import { heldOperation } from './operations/held.ts';
import { OfflineForwarder } from './offline/offline-forwarder.ts';
import { OperationEngine } from './operations/engine.ts';
import type { Ledger } from './storage/ledger.ts';
import { openLedger } from './storage/open.ts';
import { LedgerMonitor, guardLedger } from './storage/availability.ts';
import { ensurePrivateDir } from './storage/private-files.ts';
import { scheduleRetention } from './storage/retention.ts';
import type { Forwarder } from './upstream/forwarder.ts';
import { HttpForwarder } from './upstream/http-forwarder.ts';
import { UpstreamKeyring } from './upstream/keyring.ts';
import { SecretBox } from './upstream/secret-box.ts';
import { UpstreamReadiness, checkUpstream } from './upstream/readiness.ts';

const { version } = packageJson;

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
  /** The clock the retention purge reads; injected by tests. */
  now?: () => number;
}

function createForwarder(
  config: BffConfig,
  keyring: UpstreamKeyring | undefined,
  deps: {
    metrics: ReturnType<typeof createMetrics>;
    logger: Logger;
    onQuota: (product: Product, remainingWords: number, account: string) => Promise<void>;
    completedKeyOf: (upstreamKeyId: string) => Promise<{ idempotencyKey: string; product: Product } | undefined>;
  },
): Forwarder {
  if (config.upstream && keyring) return new HttpForwarder({ baseUrl: config.upstream.baseUrl, keys: keyring, retry: config.retry, ...deps });
  return new OfflineForwarder({
    logger: deps.logger,
    sourcesDir: config.offlineSourcesDir,
    sourceIndexFile: config.offlineSourcesDir ? path.join(config.dataDir, 'source-index.bin') : undefined,
    threads: config.offlineThreads,
  });
}

/**
 * The HTTP server, sized for a JSON API: headers and bodies must arrive within their timeouts
 * (a slow client cannot hold a connection for Node's default 5 minutes), idle keep-alive
 * connections close, and connections past the cap are refused.
 */
function createHttpServer(config: BffConfig, app: RequestListener): Server {
  const { headersTimeoutMs, bodyTimeoutMs, keepAliveTimeoutMs, maxConnections } = config.http;
  const server = createServer(
    {
      headersTimeout: headersTimeoutMs,
      requestTimeout: bodyTimeoutMs,
      // How often Node checks those timeouts; its default (30 s) would let them overrun.
      connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(headersTimeoutMs / 2))),
    },
    app,
  );
  server.keepAliveTimeout = keepAliveTimeoutMs;
  server.maxConnections = maxConnections;
  server.on('clientError', answerClientError);
  return server;
}

/**
 * What Node answers itself when it cannot parse a request (no request object exists then), as
 * its default does (408, 431, else 400, and the connection closed), except a body that ends
 * before its Content-Length, which is answered as the API answers it (`incomplete_body`).
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (socket.writable && error.code === 'HPE_INVALID_EOF_STATE') {
    const body = JSON.stringify({ error: incompleteBody().body });
    socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    return;
  }
  if (socket.writable) {
    const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : error.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
    socket.write(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
  }
  socket.destroy(error);
}

export async function startBff(config: BffConfig, options: StartOptions = {}): Promise<RunningBff> {
  const logger = createLogger(config.logLevel, options.logDestination);
  const metrics = createMetrics();
  ensurePrivateDir(config.dataDir, (fields, message) => logger.warn(fields, message));
  const rawLedger = options.ledger ?? (await openLedger(config, { logger, waitForDatabaseMs: 60_000 }));
  const monitor = new LedgerMonitor(rawLedger, {
    logger,
    probeIntervalMs: config.ledgerProbeMs,
    // Back from an outage: operations it left pending resume as after a restart.
    onRecovered: () => resumePending(),
  });
  const ledger = guardLedger(rawLedger, monitor);
  const secretBox = config.secretKey ? new SecretBox(config.secretKey) : undefined;
  const keyring = config.upstream
    ? new UpstreamKeyring({ envKey: config.upstream.apiKey, box: secretBox, store: () => ledger.consoleStore(), databaseUrl: config.databaseUrl, logger })
    : undefined;
  // A ledger unavailable now: the keyring re-reads the keys on the next change or poll.
  await keyring?.start().catch((error: unknown) => logger.error({ error: describeError(error) }, 'could not read the stored upstream keys'));
  // The last remaining words the upstream reported, for the console's usage page (recorded before the refusal is answered).
  const onQuota = (product: Product, remainingWords: number, account: string) =>
    ledger
      .consoleStore()
      .then((store) => store.recordQuota({ product, remainingWords, seenAt: Date.now(), account }))
      .catch((error: unknown) => logger.warn({ error: describeError(error) }, 'could not record the upstream quota'));
  const forwarder = createForwarder(config, keyring, { metrics, logger, onQuota, completedKeyOf: (upstreamKeyId) => ledger.completedKeyOf(upstreamKeyId) });
  const engine = new OperationEngine({
    ...(keyring ? { upstreamKeyId: () => keyring.activeIdOrRefuse() } : {}),
    ledger,
    forwarder,
    metrics,
    logger,
    partConcurrency: config.partConcurrency,
    resultRetentionHours: config.resultRetentionHours,
    heldResumeBaseMs: config.resumeIntervalMs,
    now: options.now,
  });
  registerHeldOperations(metrics, async () => (await ledger.heldOperations()).map(heldOperation));
  const rateLimiter = await createRateLimiter({ ...config.memberRateLimit, redisUrl: config.redisUrl, logger, metrics });
  const signInRefusals = await createRateLimiter({
    requests: SIGN_IN_REFUSALS.perAddress,
    windowMs: SIGN_IN_REFUSALS.windowMinutes * 60_000,
    redisUrl: config.redisUrl,
    name: 'console-sign-in-refusals',
    logger,
    metrics,
  });
  await Promise.all([rateLimiter.ready(), signInRefusals.ready()]);
  const members = createMemberAuthenticator({ ledger, databaseUrl: config.databaseUrl, logger });
  const upstream = config.upstream;
  const upstreamReadiness =
    upstream && keyring
      ? new UpstreamReadiness(async () => {
          const key = keyring.active();
          if (!key) return { ok: false, reason: 'No upstream API key is active: set UPSTREAM_API_KEY, or activate a key on the console\'s Upstream key page.' };
          return checkUpstream({ baseUrl: upstream.baseUrl, apiKey: key.value });
        }, logger)
      : undefined;
  const app = createApp({ config, ledger, ledgerHealth: monitor, engine, metrics, logger, version, rateLimiter, signInRefusals, members, upstreamReadiness, keyring, secretBox, now: options.now });
  const resumePending = async () => {
    const resumed = await engine.resumePending();
    if (resumed > 0) logger.info({ resumed }, 'resuming operations left pending');
  };

  const server = createHttpServer(config, app);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
    server.listen(config.port, config.host);
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  logger.info({ url, mode: config.upstream ? 'upstream' : 'offline', version }, 'BFF listening');

  // A ledger already unavailable is logged by the monitor, which resumes once it is back.
  await resumePending().catch(() => {});
  // Left pending while running (a client that gave up at its deadline): resumed within the upstream's replay window.
  const resumeLeft = setInterval(() => {
    engine.resumeLeftPending().then(
      (resumed) => resumed > 0 && logger.info({ resumed }, 'resuming operations left pending by their clients'),
      (error: unknown) => logger.warn({ error: describeError(error) }, 'looking for operations left pending failed; will look again'),
    );
  }, config.resumeIntervalMs);
  resumeLeft.unref();
  const retention = scheduleRetention({
    ledger,
    logger,
    retentionHours: config.resultRetentionHours,
    intervalMs: config.purgeIntervalMs,
    now: options.now ?? Date.now,
  });

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      logger.info('draining in-flight operations');
      clearInterval(resumeLeft);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await engine.drain(config.shutdownGraceMs);
      await retention.stop();
      monitor.stop();
      server.closeAllConnections();
      await closed;
      await forwarder.close();
      await keyring?.close();
      await rateLimiter.close();
      await signInRefusals.close();
      await members.close();
      await ledger.close();
      logger.info('stopped');
    })());

  return { url, ledger, engine, logger, stop };
}
