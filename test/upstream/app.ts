import { createHash, randomBytes } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { z } from 'zod';
import {
  DetectRequest,
  HumanizeRequest,
  NO_SUBSCRIPTION_ERROR_CODE,
  PlagiarismRequest,
  RestIdempotencyKey,
  SERVER_GENERATED_KEY_SOURCE,
  UPSTREAM_HEADERS,
  UPSTREAM_MCP_PATH,
  UPSTREAM_PATHS,
  countWords,
  type Product,
} from '@redline/shared';
import { BUILT_IN_CORPUS, createPlagiarismChecker, detect, humanize, type SourceDocument } from '@redline/shared/analysis';
import { DEMO_ACCOUNTS, type AccountConfig } from './accounts.ts';
import { FaultQueue, type Fault } from './faults.ts';
import { Ledger, fingerprintOf, type AccountState, type OperationRecord } from './ledger.ts';
import { controlRouter } from './control.ts';
import { mcpRouter, type OperationOutcome as Outcome } from './mcp.ts';

export interface UpstreamDoubleOptions {
  accounts?: AccountConfig[];
  /** Enables /__control (clock, faults, charges). Never on outside tests and development. */
  testMode?: boolean;
  /** Requests per account per window; unlimited when absent. */
  rateLimit?: { requests: number; windowMs: number };
  /** Retry-After on a 409 for an exact repeat of a running operation. */
  inProgressRetryAfterSeconds?: number;
  corpus?: readonly SourceDocument[];
}

/** One line per request the double received, for tests to assert on (the latest RECEIVED_LOG_LIMIT at least). */
export interface ReceivedRequest {
  product: Product;
  accountId: string | undefined;
  idempotencyKey: string | undefined;
  bodySha256: string;
  status: number | 'dropped';
}

export interface UpstreamDouble {
  app: express.Express;
  ledger: Ledger;
  faults: FaultQueue;
  received: ReceivedRequest[];
  reset(): void;
}

interface Operation<T> {
  schema: z.ZodType<T>;
  /** The detector version or humanizer model: part of the idempotency fingerprint. */
  variant: (body: T) => string;
  run: (body: T) => unknown;
}

/** The request log keeps the latest entries only, so a long benchmark does not grow it without end. */
export const RECEIVED_LOG_LIMIT = 10_000;

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

export function createUpstreamDouble(options: UpstreamDoubleOptions = {}): UpstreamDouble {
  const accounts = options.accounts ?? DEMO_ACCOUNTS;
  const inProgressRetryAfter = String(options.inProgressRetryAfterSeconds ?? 1);
  const checkPlagiarism = createPlagiarismChecker(options.corpus ?? BUILT_IN_CORPUS);

  const operations: { [P in Product]: Operation<never> } = {
    detector: operation(DetectRequest, (body) => body.version, ({ text, version }) => {
      // The rule-based scorer: scripted test texts get the labels they were written for.
      const { chunks, ai_percentage, words_processed } = detect(text, version, 'stylistic');
      // v1 answers without sentence detail; see shared/CONTRACT.md.
      const details = version === 'v1' ? { ai_percentage } : { chunks, ai_percentage };
      return { success: true, data: { details, version, words_processed } };
    }),
    humanizer: operation(HumanizeRequest, (body) => body.model, ({ text, model }) => humanize(text, model)),
    plagiarism: operation(PlagiarismRequest, () => '', ({ text }) => {
      const { results, plagiarism_score, words_processed } = checkPlagiarism(text);
      return { result: { results, plagiarism_score }, words_processed };
    }),
  };

  const double: UpstreamDouble = {
    app: express(),
    ledger: new Ledger(accounts),
    faults: new FaultQueue(),
    received: [],
    reset() {
      double.ledger = new Ledger(accounts);
      double.faults.clear();
      double.received.length = 0;
    },
  };
  const { app } = double;
  app.disable('x-powered-by');
  app.set('etag', false);

  if (options.testMode) app.use('/__control', express.json(), controlRouter(double));

  for (const product of Object.keys(UPSTREAM_PATHS) as Product[]) {
    app.post(
      UPSTREAM_PATHS[product],
      express.raw({ type: () => true, limit: '8mb' }),
      (req, res) => handle(product, req, res),
    );
  }
  app.use(
    UPSTREAM_MCP_PATH,
    mcpRouter({
      accountForKey: (apiKey) => double.ledger.accountForKey(apiKey),
      perform: (product, account, body, key, endpoint) => perform(product, account, body, key, undefined, endpoint),
    }),
  );
  app.use((_req, res) => {
    res.status(404).json({ detail: 'Not found.' });
  });
  app.use((error: Error & { type?: string }, _req: Request, res: Response, _next: NextFunction) => {
    const status = error.type === 'entity.too.large' ? 400 : 500;
    res.status(status).json({ detail: status === 400 ? 'Request body is too large.' : 'Internal error.' });
  });

  async function handle(product: Product, req: Request, res: Response): Promise<void> {
    const raw: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const log: ReceivedRequest = {
      product,
      accountId: undefined,
      idempotencyKey: req.get(UPSTREAM_HEADERS.idempotencyKey),
      bodySha256: sha256(raw),
      status: 0,
    };
    double.received.push(log);
    if (double.received.length > 2 * RECEIVED_LOG_LIMIT) double.received.splice(0, double.received.length - RECEIVED_LOG_LIMIT);
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      log.status = status;
      res.status(status).set(headers).json(body);
    };
    const drop = () => {
      log.status = 'dropped';
      req.socket.destroy();
    };

    const apiKey = req.get(UPSTREAM_HEADERS.apiKey);
    if (!apiKey) return reply(401, { detail: 'Authentication credentials were not provided.' });
    const account = double.ledger.accountForKey(apiKey);
    if (!account) return reply(401, { detail: 'Invalid API key.' });
    log.accountId = account.id;

    if (account.balances[product] === undefined) {
      return reply(403, { error_code: NO_SUBSCRIPTION_ERROR_CODE, detail: `No active subscription for the ${product}.` });
    }
    const wait = double.ledger.rateLimitWait(account, options.rateLimit);
    if (wait > 0) return reply(429, { detail: 'Request limit reached.' }, { [UPSTREAM_HEADERS.retryAfter]: String(wait) });

    const parsed = parseBody(req, raw, operations[product].schema);
    if ('error' in parsed) return reply(400, parsed.error);
    const body = parsed.body as never;

    const headerKey = req.get(UPSTREAM_HEADERS.idempotencyKey);
    if (headerKey !== undefined) {
      const valid = RestIdempotencyKey.safeParse(headerKey);
      if (!valid.success) {
        return reply(400, { detail: `Idempotency-Key ${valid.error.issues[0]!.message}.`, fields: { 'Idempotency-Key': valid.error.issues[0]!.message } });
      }
    }

    const fault = double.faults.take(product);
    if (fault?.kind === 'drop-before') return drop();
    if (fault?.kind === 'status' && fault.phase === 'before' && fault.status !== 502) {
      return reply(fault.status, { detail: faultMessage(fault.status) }, fault.status === 429 ? { [UPSTREAM_HEADERS.retryAfter]: String(fault.retryAfterSeconds) } : {});
    }

    const outcome = await perform(product, account, body, headerKey, fault);
    if ('drop' in outcome) return drop();
    reply(outcome.status, outcome.body, outcome.headers);
  }

  /**
   * One idempotent operation (upstream-api.md 3.2 and 4.2), for REST and MCP alike: the
   * record, the state machine, the balance, the provider run and the charge.
   */
  async function perform(
    product: Product,
    account: AccountState,
    body: never,
    requestedKey: string | undefined,
    fault: Fault | undefined,
    endpoint: string = product,
  ): Promise<Outcome> {
    const reply = (status: number, responseBody: unknown, headers: Record<string, string> = {}): Outcome => ({ status, body: responseBody, headers });
    const serverGenerated = requestedKey === undefined;
    const key = requestedKey ?? randomBytes(24).toString('base64url');
    const keyHeaders: Record<string, string> = { [UPSTREAM_HEADERS.acceptedIdempotencyKey]: key };
    if (serverGenerated) keyHeaders[UPSTREAM_HEADERS.idempotencyKeySource] = SERVER_GENERATED_KEY_SOURCE;

    const { text } = body as { text: string };
    const fingerprint = fingerprintOf(endpoint, operations[product].variant(body), text);
    const existing = double.ledger.record(account, key);
    if (existing) {
      if (existing.fingerprint !== fingerprint) {
        return reply(409, { detail: 'This Idempotency-Key was already used for a different request. Generate a new key.' });
      }
      switch (existing.state) {
        case 'in_progress':
          return reply(409, { detail: 'An operation with this Idempotency-Key is in progress.' }, { [UPSTREAM_HEADERS.retryAfter]: inProgressRetryAfter });
        case 'expired':
          return reply(410, { detail: 'The operation with this Idempotency-Key completed more than 24 hours ago.' });
        case 'awaiting_recording': {
          const held = double.ledger.storedResponse(existing);
          double.ledger.complete(account, existing, held);
          return reply(200, held, keyHeaders);
        }
        case 'completed':
          return reply(200, double.ledger.storedResponse(existing), keyHeaders);
      }
    }

    const words = countWords(text);
    const remaining = account.balances[product] ?? 0;
    if (words > remaining) {
      return reply(
        400,
        { error: 'Not enough words remaining.', remaining_words: remaining, required_words: words, product },
        keyHeaders,
      );
    }

    const record = double.ledger.begin(account, { key, fingerprint, serverGenerated, product, words });
    const delayMs = fault && 'delayMs' in fault ? fault.delayMs : 0;
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));

    if (fault?.kind === 'status' && fault.status === 502) {
      double.ledger.abort(account, record);
      return reply(502, { detail: faultMessage(502) });
    }
    let result = runProvider(account, record, body);
    if (fault?.kind === 'alter-facts' && product === 'humanizer') result = alterFacts(result as { humanized_text: string });
    if (fault?.kind === 'status' && fault.status === 503 && fault.phase === 'after') {
      double.ledger.holdUnrecorded(record, result);
      return reply(503, { detail: faultMessage(503) }, keyHeaders);
    }
    double.ledger.complete(account, record, result);
    if (fault?.kind === 'drop-after') return { drop: true };
    return reply(200, result, keyHeaders);
  }

  function runProvider(account: AccountState, record: OperationRecord, body: never): unknown {
    account.providerRuns[record.product]++;
    return operations[record.product].run(body);
  }

  return double;
}

function alterFacts<T extends { humanized_text: string }>(result: T): T {
  const humanized_text = result.humanized_text
    .replace(/\bhttps?:\/\/[^\s)]+[^\s).,;:!?]/g, (url) => `${url}-moved`)
    .replace(/\d+/g, (digits) => String(Number(digits) + 1));
  return { ...result, humanized_text };
}

function operation<T>(schema: z.ZodType<T>, variant: (body: T) => string, run: (body: T) => unknown): Operation<never> {
  return { schema, variant, run } as unknown as Operation<never>;
}

type Parsed = { body: unknown } | { error: { detail: string; fields?: Record<string, string> } };

function parseBody(req: Request, raw: Buffer, schema: z.ZodType): Parsed {
  if (!req.is('application/json')) return { error: { detail: 'Content-Type must be application/json.' } };
  let json: unknown;
  try {
    json = JSON.parse(raw.toString('utf8'));
  } catch {
    return { error: { detail: 'Request body is not valid JSON.' } };
  }
  const result = schema.safeParse(json);
  if (result.success) return { body: result.data };
  const fields: Record<string, string> = {};
  for (const issue of result.error.issues) fields[issue.path.join('.') || 'body'] ??= issue.message;
  return { error: { detail: `Invalid request: ${Object.entries(fields).map(([field, message]) => `${field}: ${message}`).join('; ')}.`, fields } };
}

function faultMessage(status: 429 | 502 | 503): string {
  switch (status) {
    case 429:
      return 'Request limit reached.';
    case 502:
      return 'The analysis provider aborted the operation. No words were charged.';
    default:
      return 'Usage recording is unavailable. Retry the exact request with the same Idempotency-Key.';
  }
}
