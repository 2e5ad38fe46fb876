import express, { type NextFunction, type Request, type Response } from 'express';
import { rateLimit } from 'express-rate-limit';
import {
  BFF_PATHS,
  BffCostRequest,
  BffDetectRequest,
  BffHumanizeRequest,
  BffPlagiarismRequest,
  MAX_TEXT_CHARACTERS,
  PRODUCTS,
  countCharacters,
  countWords,
  type BffCostResponse,
  type BffUsageResponse,
} from '@redline/shared';
import type { BffConfig } from '../config.ts';
import { HttpError } from '../errors.ts';
import type { Logger } from '../logging.ts';
import { authenticate } from '../members.ts';
import type { Metrics } from '../metrics.ts';
import type { OperationEngine, OperationInput } from '../operations/engine.ts';
import { splitDocument } from '../operations/documents.ts';
import type { Ledger, MemberRecord } from '../storage/ledger.ts';
import { buildOpenApiDocument } from './openapi.ts';
import { parseRequest } from './validation.ts';

export interface AppDeps {
  config: BffConfig;
  ledger: Ledger;
  engine: OperationEngine;
  metrics: Metrics;
  logger: Logger;
  version: string;
}

type Locals = { member?: MemberRecord; errorCode?: string };

const memberOf = (res: Response) => (res.locals as Locals).member!;

export function createApp({ config, ledger, engine, metrics, logger, version }: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const allowedOrigins = new Set(config.allowedOrigins);
  const openApiDocument = buildOpenApiDocument(version);

  // Access log and request metrics: route, status, time, member id, error code. Never text or tokens.
  app.use((req, res, next) => {
    const started = performance.now();
    res.on('finish', () => {
      const route = (req.route?.path as string | undefined) ?? 'unmatched';
      metrics.httpRequests.inc({ route, status: String(res.statusCode) });
      const locals = res.locals as Locals;
      logger.info(
        { method: req.method, route, status: res.statusCode, ms: Math.round(performance.now() - started), member: locals.member?.id, code: locals.errorCode },
        'request',
      );
    });
    next();
  });

  // CORS: only the configured extension origins, matched exactly. Requests without an Origin
  // (curl, server-side clients) are not browser requests and pass to authentication.
  app.use((req, res, next) => {
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
  });

  app.get(BFF_PATHS.health, (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get(BFF_PATHS.ready, async (_req, res) => {
    if (engine.closing) return void res.status(503).json({ status: 'shutting_down' });
    try {
      await ledger.ping();
      res.json({ status: 'ready', mode: config.upstream ? 'upstream' : 'offline' });
    } catch {
      res.status(503).json({ status: 'ledger_unavailable' });
    }
  });
  app.get(BFF_PATHS.metrics, async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  app.get(BFF_PATHS.openapi, (_req, res) => {
    res.json(openApiDocument);
  });

  const v1 = express.Router();
  v1.use(async (req, res, next) => {
    const header = req.get('authorization') ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    const member = match ? await authenticate(ledger, match[1]!) : undefined;
    if (!member) {
      res.set('WWW-Authenticate', 'Bearer');
      throw HttpError.of(
        401,
        'unauthorized',
        header ? 'This member token is unknown or revoked. Ask your administrator for a new one.' : 'Send your member token as "Authorization: Bearer rl_...". Set it on the extension options page.',
      );
    }
    (res.locals as Locals).member = member;
    next();
  });
  v1.use(
    rateLimit({
      windowMs: config.memberRateLimit.windowMs,
      limit: config.memberRateLimit.requests,
      standardHeaders: 'draft-8',
      legacyHeaders: false,
      keyGenerator: (_req, res) => memberOf(res).id,
      handler: (req, _res, next) => {
        const resetTime = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
        const retryAfterSeconds = Math.max(1, Math.ceil(((resetTime?.getTime() ?? Date.now() + 1000) - Date.now()) / 1000));
        next(HttpError.of(429, 'rate_limited', `Too many requests from your token. Try again in ${retryAfterSeconds} seconds.`, { retryAfterSeconds }));
      },
    }),
  );
  v1.use((req, _res, next) => {
    if (req.method === 'POST' && !req.is('application/json')) {
      throw HttpError.of(415, 'unsupported_content_type', 'Send the request body as JSON with "Content-Type: application/json".');
    }
    next();
  });
  v1.use(express.json({ limit: config.maxBodyBytes }));

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
    const { text } = parseRequest(BffCostRequest, req.body, Number.MAX_SAFE_INTEGER);
    const characters = countCharacters(text);
    const parts = characters > MAX_TEXT_CHARACTERS ? splitDocument(text).parts.length : 1;
    res.json({ words: countWords(text), characters, parts } satisfies BffCostResponse);
  });

  v1.get(BFF_PATHS.usage, async (_req, res) => {
    const member = memberOf(res);
    const charged = await ledger.wordsCharged(member.id);
    const products = Object.fromEntries(
      PRODUCTS.map((product) => {
        const budget = member.budgets[product];
        const used = charged[product];
        return [product, { wordsCharged: used, ...(budget === undefined ? {} : { budget, remaining: Math.max(0, budget - used) }) }];
      }),
    ) as BffUsageResponse['products'];
    res.json({ member: { id: member.id, name: member.name }, mode: config.upstream ? 'upstream' : 'offline', products } satisfies BffUsageResponse);
  });

  app.use(v1);

  app.use((_req, _res, next) => {
    next(HttpError.of(404, 'not_found', 'No such endpoint. The API is described at /openapi.json.'));
  });

  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const httpError = toHttpError(error);
    if (httpError.status >= 500 && httpError.body.code === 'internal_error' && !(error instanceof HttpError)) {
      logger.error({ err: { type: (error as Error)?.name, message: (error as Error)?.message } }, 'unexpected error');
    }
    (res.locals as Locals).errorCode = httpError.body.code;
    res.status(httpError.status).set(httpError.headers).json({ error: httpError.body });
  });

  return app;
}

function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  const type = (error as { type?: string })?.type;
  if (type === 'entity.parse.failed') {
    return HttpError.of(400, 'malformed_json', 'The request body is not valid JSON. Check quotes, commas and escapes.');
  }
  if (type === 'entity.too.large') {
    return HttpError.of(413, 'body_too_large', 'The request body is too large. Send a shorter text.');
  }
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return HttpError.of(415, 'unsupported_content_type', 'Send the body as UTF-8 JSON.');
  }
  return HttpError.of(500, 'internal_error', 'Something went wrong in the BFF. Try again; if it persists, tell your administrator.');
}
