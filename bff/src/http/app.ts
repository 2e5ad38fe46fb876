import express, { type NextFunction, type Request, type Response } from 'express';
import {
  BFF_PATHS,
  BffCostRequest,
  BffDetectRequest,
  BffHumanizeRequest,
  BffPlagiarismRequest,
  PRODUCTS,
  countCharacters,
  type BffCostResponse,
  type BffUsageResponse,
} from '@redline/shared';
import { InvalidAccessToken } from '../auth/bearer.ts';
import { createAuth } from '../auth/index.ts';
import type { BffConfig } from '../config.ts';
import { consoleRouter } from '../console/router.ts';
import { HttpError, LEDGER_RETRY_AFTER_SECONDS, ledgerUnavailable } from '../errors.ts';
import { describeError, type Logger } from '../logging.ts';
import type { MemberAuthenticator } from '../member-cache.ts';
import { looksLikeToken } from '../members.ts';
import { mcpRouter } from '../mcp/router.ts';
import type { Metrics } from '../metrics.ts';
import type { OperationEngine, OperationInput } from '../operations/engine.ts';
import { documentWords } from '../operations/documents.ts';
import { LedgerUnavailableError, type LedgerFault } from '../storage/faults.ts';
import type { Ledger, MemberRecord } from '../storage/ledger.ts';
import type { UpstreamKeyring } from '../upstream/keyring.ts';
import type { UpstreamReadiness } from '../upstream/readiness.ts';
import type { SecretBox } from '../upstream/secret-box.ts';
import { buildOpenApiDocument } from './openapi.ts';
import { jsonBody } from './json-body.ts';
import { takeRequest, type MemberRateLimiter } from './rate-limit.ts';
import { parseRequest } from './validation.ts';

export interface AppDeps {
  config: BffConfig;
  ledger: Ledger;
  /** Whether the ledger can be used now (a fault says what is wrong). */
  ledgerHealth: { check(): Promise<LedgerFault | undefined> };
  engine: OperationEngine;
  metrics: Metrics;
  logger: Logger;
  version: string;
  rateLimiter: MemberRateLimiter;
  members: MemberAuthenticator;
  /** Upstream mode: whether the upstream base URL answers like the upstream. */
  upstreamReadiness?: UpstreamReadiness | undefined;
  /** The console's clock (sessions, sign-in links); tests inject one. */
  now?: () => number;
  /** Upstream mode: the keys in use (the console manages them). */
  keyring?: UpstreamKeyring | undefined;
  /** Encrypts upstream keys the console stores; absent without BFF_SECRET_KEY. */
  secretBox?: SecretBox | undefined;
}

type Locals = { member?: MemberRecord; errorCode?: string };

const V1_PREFIX = '/v1/';

const memberOf = (res: Response) => (res.locals as Locals).member!;

export function createApp({ config, ledger, ledgerHealth, engine, metrics, logger, version, rateLimiter, members, upstreamReadiness, keyring, secretBox, now = Date.now }: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const allowedOrigins = new Set(config.allowedOrigins);
  const openApiDocument = buildOpenApiDocument(version);

  // Access log and request metrics: route, status, time, member id, error code. Never text or tokens.
  // Answered requests log at debug (a line per request was ~5% of the CPU at info); refused or
  // failed ones at info.
  app.use((req, res, next) => {
    const started = performance.now();
    res.on('close', () => {
      const route = (req.route?.path as string | undefined) ?? 'unmatched';
      const locals = res.locals as Locals;
      const ms = Math.round(performance.now() - started);
      if (!res.writableFinished) {
        // The client went away before the answer was sent: its doing, not a BFF error.
        metrics.httpRequests.inc({ route, status: 'aborted' });
        logger.info({ method: req.method, route, ms, member: locals.member?.id }, 'request aborted by the client');
        return;
      }
      metrics.httpRequests.inc({ route, status: String(res.statusCode) });
      const level = res.statusCode < 400 ? 'debug' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      logger[level]({ method: req.method, route, status: res.statusCode, ms, member: locals.member?.id, code: locals.errorCode }, 'request');
    });
    next();
  });

  // CORS: only the configured extension origins, matched exactly. Requests without an Origin
  // (curl, server-side clients) are not browser requests and pass to authentication.
  const cors = (req: Request, res: Response, next: NextFunction) => {
    const origin = req.get('origin');
    if (origin === undefined) return next();
    if (!allowedOrigins.has(origin)) {
      throw HttpError.of(403, 'origin_not_allowed', `Origin ${origin.slice(0, 100)} is not allowed. Add the extension's exact origin to BFF_ALLOWED_ORIGINS.`);
    }
    res.set({
      'Access-Control-Allow-Origin': origin,
      Vary: 'Origin',
      'Access-Control-Expose-Headers': 'Retry-After',
    });
    if (req.method === 'OPTIONS') {
      res.set({
        'Access-Control-Allow-Methods': 'GET, POST',
        'Access-Control-Allow-Headers': 'Authorization, Content-Type',
        'Access-Control-Max-Age': '600',
      });
      return void res.status(204).end();
    }
    next();
  };

  const auth = createAuth({ config, ledger, logger, now });

  // The API's own path first: its requests do not walk the OAuth, console and MCP routes
  // (about forty layers, each a path match).
  const v1 = express.Router();
  v1.use(cors);
  // A member token, or an OAuth access token bound to this API (the extension's sign-in).
  v1.use(async (req, res, next) => {
    const header = req.get('authorization') ?? '';
    const token = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
    let member: MemberRecord | undefined;
    let refusal = header ? 'This member token is unknown or revoked. Ask your administrator for a new one.' : 'Sign in on the extension\'s options page, or send your member token as "Authorization: Bearer rl_...".';
    if (token !== undefined && looksLikeToken(token)) {
      member = await members.authenticate(token);
    } else if (token !== undefined) {
      try {
        member = await auth.apiCaller(req, token);
      } catch (error) {
        if (!(error instanceof InvalidAccessToken)) throw error;
        refusal = error.message;
      }
    }
    if (!member) {
      const metadata = auth.apiResourceMetadataUrl(req);
      const parameters = [...(token === undefined ? [] : ['error="invalid_token"']), ...(metadata ? [`resource_metadata="${metadata.href}"`] : [])];
      res.set('WWW-Authenticate', parameters.length > 0 ? `Bearer ${parameters.join(', ')}` : 'Bearer');
      throw HttpError.of(401, 'unauthorized', refusal);
    }
    (res.locals as Locals).member = member;
    next();
  });
  v1.use(async (_req, res, next) => {
    await takeRequest(rateLimiter, memberOf(res));
    next();
  });
  v1.use(jsonBody(config.maxBodyBytes));

  const operationRoute = (path: string, toInput: (body: unknown) => OperationInput) =>
    v1.post(path, async (req, res) => {
      const outcome = await engine.run(memberOf(res), toInput(req.body));
      res.json(outcome);
    });
  const max = config.maxDocumentCharacters;
  operationRoute(BFF_PATHS.detector, (body) => ({ product: 'detector', ...parseRequest(BffDetectRequest, body, max) }));
  operationRoute(BFF_PATHS.humanizer, (body) => ({ product: 'humanizer', ...parseRequest(BffHumanizeRequest, body, max) }));
  operationRoute(BFF_PATHS.plagiarism, (body) => ({ product: 'plagiarism', ...parseRequest(BffPlagiarismRequest, body, max) }));

  v1.post(BFF_PATHS.cost, (req, res) => {
    const { text } = parseRequest(BffCostRequest, req.body, max);
    const { words, parts } = documentWords(text);
    res.json({ words, characters: countCharacters(text), parts } satisfies BffCostResponse);
  });

  v1.get(BFF_PATHS.usage, async (_req, res) => {
    const member = memberOf(res);
    const [charged, counted] = await Promise.all([ledger.wordsCharged(member.id), ledger.budgetUsage(member.id)]);
    const products = Object.fromEntries(
      PRODUCTS.map((product) => {
        const budget = member.budgets[product];
        const used = charged[product];
        // Words held by operations still running count against the budget too.
        return [product, { wordsCharged: used, ...(budget === undefined ? {} : { budget, remaining: Math.max(0, budget - counted[product]) }) }];
      }),
    ) as BffUsageResponse['products'];
    res.json({ member: { id: member.id, name: member.name }, mode: config.upstream ? 'upstream' : 'offline', products } satisfies BffUsageResponse);
  });

  app.use((req, res, next) => (req.path.startsWith(V1_PREFIX) ? v1(req, res, next) : next()));

  // OAuth for MCP clients: browsers and hosted clients call it, so before the origin check.
  app.use(auth.router);

  // The team console: same-origin pages with a session cookie, so before the extension-origin check.
  app.use(consoleRouter({ config, ledger, logger, clock: { now }, keyring, secretBox }));

  app.use(cors);

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

  app.use(mcpRouter({ config, engine, logger, version, rateLimiter, requireCaller: auth.requireCaller }));

  app.use((_req, _res, next) => {
    next(HttpError.of(404, 'not_found', 'No such endpoint. The API is described at /openapi.json.'));
  });

  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    if ((error as { type?: string })?.type === 'request.aborted' || req.socket.destroyed) return; // nobody to answer; logged on close
    const encoding = req.get('content-encoding');
    const httpError = toHttpError(error, encoding !== undefined && encoding.toLowerCase() !== 'identity');
    // Answered before the body arrived (a 401, a 413): Node reads off the rest so the client
    // can finish sending and read this answer, but only briefly, not at a slow client's pace.
    if (!req.complete) {
      const socket = req.socket;
      res.once('finish', () => {
        const timer = setTimeout(() => socket.destroy(), UNREAD_BODY_GRACE_MS).unref();
        req.once('end', () => clearTimeout(timer));
        socket.once('close', () => clearTimeout(timer));
      });
    }
    if (httpError.status >= 500 && httpError.body.code === 'internal_error' && !(error instanceof HttpError)) {
      logger.error({ error: describeError(error) }, 'unexpected error');
    }
    (res.locals as Locals).errorCode = httpError.body.code;
    res.status(httpError.status).set(httpError.headers).json({ error: httpError.body });
  });

  return app;
}

/** How long the rest of a refused request's body may take to arrive before the connection is cut. */
const UNREAD_BODY_GRACE_MS = 2_000;

const bodyTooLarge = (limit: number | undefined) =>
  HttpError.of(
    413,
    'body_too_large',
    `The request body is too large${limit ? ` (this BFF accepts at most ${limit.toLocaleString('en-US')} bytes)` : ''}. Send a shorter text.`,
  );

function toHttpError(error: unknown, compressed: boolean): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof LedgerUnavailableError) return ledgerUnavailable();
  const type = (error as { type?: string })?.type;
  if (type === 'entity.parse.failed') {
    return HttpError.of(400, 'malformed_json', 'The request body is not valid JSON. Check quotes, commas and escapes.');
  }
  if (type === 'entity.too.large') return bodyTooLarge((error as { limit?: number }).limit);
  if (type === 'charset.unsupported') {
    return HttpError.of(415, 'unsupported_content_type', 'Send the body as UTF-8 JSON.');
  }
  if (type === 'encoding.unsupported') {
    return HttpError.of(415, 'unsupported_content_encoding', 'This Content-Encoding is not supported. Send the body uncompressed, or compressed with gzip, deflate or br.');
  }
  if (type === 'request.size.invalid') {
    return HttpError.of(400, 'incomplete_body', 'The request body is shorter than its Content-Length. Send the whole body.');
  }
  const status = (error as { status?: number })?.status;
  if (status === 400 && compressed) {
    // The body parser's decompression failed (zlib or brotli): the body is not what its header says.
    return HttpError.of(400, 'invalid_content_encoding', 'The request body could not be decompressed: it does not match its Content-Encoding or is cut off. Send it whole, or uncompressed without Content-Encoding.');
  }
  if (status !== undefined && status >= 400 && status < 500) {
    return HttpError.of(400, 'invalid_request', 'The request body could not be read. Send JSON with a correct Content-Length.');
  }
  return HttpError.of(500, 'internal_error', 'Something went wrong in the BFF. Try again; if it persists, tell your administrator.');
}
