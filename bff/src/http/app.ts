import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { BFF_PATHS } from '@redline/shared';
import { createAuth } from '../auth/index.ts';
import type { BffConfig } from '../config.ts';
import { consoleRouter } from '../console/router.ts';
import { LEDGER_RETRY_AFTER_SECONDS, notFound } from '../errors.ts';
import type { Logger } from '../logging.ts';
import type { MemberAuthenticator } from '../member-cache.ts';
import { mcpRouter } from '../mcp/router.ts';
import type { Metrics } from '../metrics.ts';
import type { OperationEngine } from '../operations/engine.ts';
import type { LedgerFault } from '../storage/faults.ts';
import type { Ledger, MemberRecord } from '../storage/ledger.ts';
import type { UpstreamKeyring } from '../upstream/keyring.ts';
import type { UpstreamReadiness } from '../upstream/readiness.ts';
import type { SecretBox } from '../upstream/secret-box.ts';
import { logWhenDone } from './access-log.ts';
import { answerError } from './answer.ts';
import { allowOrigin } from './cors.ts';
import { buildOpenApiDocument } from './openapi.ts';
import type { RateLimiter } from './rate-limit.ts';
import { API_PREFIX, createV1Handler, requestPath } from './v1.ts';

export interface AppDeps {
  config: BffConfig;
  ledger: Ledger;
  /** Whether the ledger can be used now (a fault says what is wrong). */
  ledgerHealth: { check(): Promise<LedgerFault | undefined> };
  engine: OperationEngine;
  metrics: Metrics;
  logger: Logger;
  version: string;
  rateLimiter: RateLimiter;
  members: MemberAuthenticator;
  /** Upstream mode: whether the upstream base URL answers like the upstream. */
  upstreamReadiness?: UpstreamReadiness | undefined;
  /** The console's clock (sessions, sign-in links); tests inject one. */
  now?: () => number;
  /** Upstream mode: the keys in use (the console manages them). */
  keyring?: UpstreamKeyring | undefined;
  /** Encrypts upstream keys the console stores; absent without BFF_SECRET_KEY. */
  secretBox?: SecretBox | undefined;
  /** Refused console sign-ins per address. */
  signInRefusals: RateLimiter;
}

type Locals = { member?: MemberRecord; errorCode?: string };

/**
 * The BFF's request listener: the /v1 API on its own lean handler (v1.ts), everything else
 * (OAuth, the console, MCP, health, metrics, OpenAPI) on Express, where its routers and body
 * parsers earn their cost.
 */
export function createApp({ config, ledger, ledgerHealth, engine, metrics, logger, version, rateLimiter, signInRefusals, members, upstreamReadiness, keyring, secretBox, now = Date.now }: AppDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Behind a reverse proxy: whose X-Forwarded-For gives req.ip (per-address OAuth limits, audit addresses).
  app.set('trust proxy', config.trustProxy);
  const allowedOrigins = new Set(config.allowedOrigins);
  const openApiDocument = buildOpenApiDocument(version);

  app.use((req, res, next) => {
    logWhenDone(req, res, { metrics, logger }, () => {
      const locals = res.locals as Locals;
      return { route: req.route?.path as string | undefined, member: locals.member?.id, code: locals.errorCode };
    });
    next();
  });

  const auth = createAuth({ config, ledger, logger, now });

  // OAuth for MCP clients: browsers and hosted clients call it, so before the origin check.
  app.use(auth.router);

  // The team console: same-origin pages with a session cookie, so before the extension-origin check.
  app.use(consoleRouter({ config, ledger, logger, clock: { now }, keyring, secretBox, signInRefusals }));

  app.use((req, res, next) => {
    if (allowOrigin(allowedOrigins, req, res)) next();
  });

  app.get(BFF_PATHS.health, (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get(BFF_PATHS.ready, async (_req, res) => {
    if (engine.closing) return void res.status(503).json({ status: 'shutting_down' });
    const fault = await ledgerHealth.check();
    if (fault) return void res.status(503).set('Retry-After', String(LEDGER_RETRY_AFTER_SECONDS)).json({ status: 'ledger_unavailable', reason: fault.reason });
    const upstream = upstreamReadiness ? await upstreamReadiness.current() : { ok: true as const };
    if (!upstream.ok) return void res.status(503).json({ status: 'upstream_unavailable', reason: upstream.reason });
    res.json({ status: 'ready', mode: config.upstream ? 'upstream' : 'offline' });
  });
  app.get(BFF_PATHS.metrics, async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  app.get(BFF_PATHS.openapi, (_req, res) => {
    res.json(openApiDocument);
  });

  app.use(mcpRouter({ config, engine, logger, version, rateLimiter, requireCaller: auth.requireCaller, resourceMetadataUrl: auth.mcpResourceMetadataUrl }));

  app.use((_req, _res, next) => {
    next(notFound());
  });

  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    (res.locals as Locals).errorCode = answerError(error, req, res, logger);
  });

  const api = createV1Handler({ config, ledger, engine, metrics, logger, rateLimiter, members, oauth: auth });
  return (req, res) => {
    const path = requestPath(req.url ?? '');
    if (path.startsWith(API_PREFIX)) api(req, res, path);
    else app(req, res);
  };
}
