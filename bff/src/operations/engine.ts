import { createHash } from 'node:crypto';
import {
  HumanizeResponse,
  MAX_TEXT_CHARACTERS,
  PlagiarismResponse,
  countCharacters,
  countWords,
  detectResponseSchema,
  newIdempotencyKey,
  type DetectResponseLegacy,
  type DetectorVersion,
  type HumanizerModel,
  type Product,
  type ResultSource,
} from '@redline/shared';
import { HttpError, productName, upstreamErrors } from '../errors.ts';
import type { Logger } from '../logging.ts';
import type { Metrics } from '../metrics.ts';
import type { Completion, Ledger, MemberRecord, NewOperation, OperationRecord } from '../storage/ledger.ts';
import type { Forwarder } from '../upstream/forwarder.ts';
import { mergeDetections, mergeHumanizations, mergePlagiarismChecks, splitDocument } from './documents.ts';

/** What a client asked for: one logical operation. */
export type OperationInput =
  | { product: 'detector'; operationId: string; text: string; version: DetectorVersion }
  | { product: 'humanizer'; operationId: string; text: string; model: HumanizerModel }
  | { product: 'plagiarism'; operationId: string; text: string };

export interface OperationOutcome {
  operationId: string;
  product: Product;
  source: ResultSource;
  replayed: boolean;
  wordsCharged: number;
  parts: number;
  result: unknown;
}

interface Settled {
  record: OperationRecord;
  replayed: boolean;
}

/** Errors that a repeat of the operation id cannot change: answered again from the ledger. */
const FINAL_ERROR_CODES = new Set(['result_expired', 'internal_error', 'upstream_invalid_response']);

const upstreamBody = (input: OperationInput): string =>
  JSON.stringify(
    input.product === 'detector'
      ? { text: input.text, version: input.version }
      : input.product === 'humanizer'
        ? { text: input.text, model: input.model }
        : { text: input.text },
  );

function inputFromBody(product: Product, operationId: string, body: string): OperationInput {
  return { product, operationId, ...JSON.parse(body) } as OperationInput;
}

const fingerprintOf = (product: Product, body: string) => createHash('sha256').update(`${product}\n${body}`).digest('hex');

function parseResult(product: Product, body: unknown, version: DetectorVersion | undefined) {
  switch (product) {
    case 'detector':
      return detectResponseSchema(version ?? 'v3').safeParse(body);
    case 'humanizer':
      return HumanizeResponse.safeParse(body);
    case 'plagiarism':
      return PlagiarismResponse.safeParse(body);
  }
}

function wordsOf(product: Product, result: unknown): number {
  return product === 'detector'
    ? (result as DetectResponseLegacy).data.words_processed
    : (result as { words_processed: number }).words_processed;
}

export interface EngineOptions {
  ledger: Ledger;
  forwarder: Forwarder;
  metrics: Metrics;
  logger: Logger;
  partConcurrency: number;
}

/**
 * Exactly-once operations. Each logical operation gets an upstream Idempotency-Key that is
 * persisted with the exact request bytes before the first attempt; every attempt, retry,
 * resume after a restart and client repeat uses that key and those bytes. A finished
 * operation is answered from the ledger; concurrent repeats share one call.
 */
export class OperationEngine {
  readonly #inflight = new Map<string, Promise<Settled>>();
  readonly #shutdown = new AbortController();
  #closing = false;

  constructor(private readonly options: EngineOptions) {}

  get closing(): boolean {
    return this.#closing;
  }

  async run(member: MemberRecord, input: OperationInput): Promise<OperationOutcome> {
    if (this.#closing) throw HttpError.of(503, 'shutting_down', 'The BFF is restarting. Try again in a few seconds.', { retryAfterSeconds: 5 });
    const key = `${member.id}\u0000${input.operationId}`;
    const running = this.#inflight.get(key);
    const settled = running ? { ...(await running), replayed: true } : await this.#track(key, this.#start(member, input));
    return this.#outcome(settled);
  }

  /** Resumes operations a crash or a deadline left pending, with their original keys and bytes. */
  async resumePending(): Promise<number> {
    const pending = await this.options.ledger.pendingOperations();
    for (const record of pending) {
      const key = `${record.memberId}\u0000${record.operationId}`;
      if (this.#inflight.has(key)) continue;
      this.options.logger.info({ operationId: record.operationId, product: record.product }, 'resuming pending operation');
      this.#track(key, this.#execute(record)).catch(() => {
        // The outcome is in the ledger; a client repeat will see it.
      });
    }
    return pending.length;
  }

  /** Stops taking operations and waits for running ones; past the grace period they are left pending. */
  async drain(graceMs: number): Promise<void> {
    this.#closing = true;
    const all = Promise.allSettled([...this.#inflight.values()]);
    const timer = setTimeout(() => this.#shutdown.abort(new Error('shutting down')), graceMs);
    await all;
    clearTimeout(timer);
  }

  #track(key: string, promise: Promise<Settled>): Promise<Settled> {
    this.#inflight.set(key, promise);
    void promise.finally(() => this.#inflight.delete(key)).catch(() => {});
    return promise;
  }

  async #start(member: MemberRecord, input: OperationInput): Promise<Settled> {
    const { ledger } = this.options;
    const body = upstreamBody(input);
    const fingerprint = fingerprintOf(input.product, body);
    let record = await ledger.findOperation(member.id, input.operationId);
    if (record && record.fingerprint !== fingerprint) {
      throw HttpError.of(
        409,
        'operation_id_reused',
        'This operation id was already used for a different text, product, version or model. Use a new operation id for new work.',
        { operationId: input.operationId },
      );
    }
    if (record?.state === 'completed') return { record, replayed: true };
    if (record?.state === 'failed' && record.error && FINAL_ERROR_CODES.has(record.error.error.code)) {
      throw new HttpError(record.error.status, record.error.error);
    }
    if (!record) {
      await this.#checkBudget(member, input);
      record = await this.#insert(member, input, body, fingerprint);
    }
    return this.#execute(record);
  }

  async #checkBudget(member: MemberRecord, input: OperationInput): Promise<void> {
    const budget = member.budgets[input.product];
    if (budget === undefined) return;
    const used = (await this.options.ledger.wordsCharged(member.id))[input.product];
    const required = countWords(input.text);
    if (used + required > budget) {
      const remainingWords = Math.max(0, budget - used);
      throw HttpError.of(
        403,
        'member_budget_exceeded',
        `Your word budget for the ${productName(input.product)} has ${remainingWords.toLocaleString('en-US')} words left and this text needs ${required.toLocaleString('en-US')}. Ask your administrator to raise it.`,
        { product: input.product, remainingWords, requiredWords: required },
      );
    }
  }

  async #insert(member: MemberRecord, input: OperationInput, body: string, fingerprint: string): Promise<OperationRecord> {
    const { ledger, forwarder } = this.options;
    const base = { memberId: member.id, product: input.product, source: forwarder.source };
    const document = countCharacters(input.text) > MAX_TEXT_CHARACTERS ? splitDocument(input.text) : undefined;
    const parts = document?.parts ?? [];
    const operations: NewOperation[] = [
      {
        ...base,
        operationId: input.operationId,
        fingerprint,
        idempotencyKey: newIdempotencyKey(),
        requestBody: body,
        parentOperationId: null,
        partIndex: null,
        parts: Math.max(1, parts.length),
      },
    ];
    if (document) {
      parts.forEach((part, index) => {
        const partBody = upstreamBody({ ...input, text: part.text });
        operations.push({
          ...base,
          operationId: `${input.operationId}#${index}`,
          fingerprint: fingerprintOf(input.product, partBody),
          idempotencyKey: newIdempotencyKey(),
          requestBody: partBody,
          parentOperationId: input.operationId,
          partIndex: index,
          parts: 1,
        });
      });
    }
    await ledger.insertOperations(operations);
    // Whoever inserted first, the stored record is the one to run.
    return (await ledger.findOperation(member.id, input.operationId))!;
  }

  async #execute(record: OperationRecord): Promise<Settled> {
    const parts = await this.options.ledger.partsOf(record.memberId, record.operationId);
    const completed = parts.length > 0 ? await this.#executeDocument(record, parts) : await this.#forward(record);
    return { record: completed, replayed: false };
  }

  /** One upstream operation: forwards its stored bytes with its stored key and records the outcome. */
  async #forward(record: OperationRecord): Promise<OperationRecord> {
    const { ledger, forwarder, metrics, logger } = this.options;
    if (record.state === 'completed') return record;
    await ledger.countAttempt(record.memberId, record.operationId);
    const outcome = await forwarder.forward({
      product: record.product,
      idempotencyKey: record.idempotencyKey,
      body: record.requestBody!,
      signal: this.#shutdown.signal,
    });
    const log = { operationId: record.operationId, product: record.product };
    if (!outcome.ok) {
      metrics.operations.inc({ product: record.product, outcome: outcome.error.body.code });
      if (outcome.settled) await ledger.failOperation(record.memberId, record.operationId, { status: outcome.error.status, error: outcome.error.body });
      logger.warn({ ...log, code: outcome.error.body.code, settled: outcome.settled }, 'operation failed');
      throw outcome.error;
    }
    const version = record.product === 'detector' ? (JSON.parse(record.requestBody!) as { version: DetectorVersion }).version : undefined;
    const parsed = parseResult(record.product, outcome.body, version);
    if (!parsed.success) {
      const error = upstreamErrors.invalidResponse('the result did not match the documented shape');
      await ledger.failOperation(record.memberId, record.operationId, { status: error.status, error: error.body });
      logger.error({ ...log, issues: parsed.error.issues.slice(0, 5).map((issue) => `${issue.path.join('.')}: ${issue.message}`) }, 'upstream result did not parse');
      throw error;
    }
    const wordsCharged = wordsOf(record.product, parsed.data);
    const completed = await this.#complete(record, {
      result: parsed.data,
      source: forwarder.source,
      wordsCharged,
      acceptedKey: outcome.acceptedKey === record.idempotencyKey ? undefined : outcome.acceptedKey,
      acceptedKeySource: outcome.acceptedKeySource,
    });
    if (outcome.acceptedKey && outcome.acceptedKey !== record.idempotencyKey) {
      logger.warn({ ...log, keySource: outcome.acceptedKeySource ?? 'unknown' }, 'upstream accepted a different idempotency key; recorded');
    }
    metrics.operations.inc({ product: record.product, outcome: 'completed' });
    metrics.wordsCharged.inc({ product: record.product, source: forwarder.source }, wordsCharged);
    if (record.parentOperationId === null) logger.info({ ...log, wordsCharged, source: forwarder.source }, 'operation completed');
    return completed;
  }

  /** Records the completion and returns the record as the ledger now holds it, without reading it back. */
  async #complete(record: OperationRecord, completion: Completion): Promise<OperationRecord> {
    await this.options.ledger.completeOperation(record.memberId, record.operationId, completion);
    return {
      ...record,
      state: 'completed',
      result: completion.result,
      source: completion.source,
      error: null,
      wordsCharged: completion.wordsCharged,
      requestBody: null,
      acceptedKey: completion.acceptedKey ?? null,
      acceptedKeySource: completion.acceptedKeySource ?? null,
    };
  }

  /** A large document: its parts run with bounded concurrency, then merge into one result. */
  async #executeDocument(parent: OperationRecord, parts: OperationRecord[]): Promise<OperationRecord> {
    const { ledger, partConcurrency, forwarder, logger } = this.options;
    if (parent.state === 'completed') return parent;
    const input = inputFromBody(parent.product, parent.operationId, parent.requestBody!);
    const document = splitDocument(input.text);
    const done: OperationRecord[] = new Array(parts.length);
    let next = 0;
    let failure: unknown;
    const worker = async () => {
      while (next < parts.length && failure === undefined) {
        const index = next++;
        try {
          done[index] = await this.#forward(parts[index]!);
        } catch (error) {
          failure ??= error;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(partConcurrency, parts.length) }, worker));
    if (failure !== undefined) {
      // A part the upstream refused settles the document; an open outcome leaves it pending.
      const partsNow = await ledger.partsOf(parent.memberId, parent.operationId);
      if (failure instanceof HttpError && partsNow.some((part) => part.state === 'failed')) {
        await ledger.failOperation(parent.memberId, parent.operationId, { status: failure.status, error: failure.body });
      }
      throw failure;
    }
    const results = done.map((part) => part.result);
    const merged =
      parent.product === 'detector'
        ? mergeDetections(document, results as DetectResponseLegacy[])
        : parent.product === 'humanizer'
          ? mergeHumanizations(document, results as HumanizeResponse[])
          : mergePlagiarismChecks(document, results as PlagiarismResponse[]);
    const completed = await this.#complete(parent, { result: merged, source: forwarder.source, wordsCharged: wordsOf(parent.product, merged) });
    logger.info({ operationId: parent.operationId, product: parent.product, parts: parts.length }, 'document operation completed');
    return completed;
  }

  #outcome({ record, replayed }: Settled): OperationOutcome {
    return {
      operationId: record.operationId,
      product: record.product,
      source: record.source,
      replayed,
      wordsCharged: record.wordsCharged,
      parts: record.parts,
      result: record.result,
    };
  }
}
