import { createHash } from 'node:crypto';
import {
  HumanizeResponse,
  MAX_TEXT_CHARACTERS,
  PlagiarismResponse,
  countCharacters,
  detectResponseSchema,
  type DetectResponseLegacy,
  type DetectorVersion,
  type HumanizerModel,
  type Product,
  type ResultSource,
} from '@redline/shared';
import { countOf, HttpError, productName, shuttingDown, upstreamErrors } from '../errors.ts';
import { describeError, type Logger } from '../logging.ts';
import type { Metrics } from '../metrics.ts';
import { runsAgainAfterRetention, type Completion, type InsertResult, type Ledger, type MemberRecord, type NewOperation, type OpenResult, type OperationRecord } from '../storage/ledger.ts';
import { refusesBeforeTheRecord, type Forwarder } from '../upstream/forwarder.ts';
import { OperationActivity } from './activity.ts';
import { documentWords, mergeDetections, mergeHumanizations, mergePlagiarismChecks, splitDocument } from './documents.ts';
import { storableResult } from './storable.ts';

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

/** An outcome as the call that got it saw it: the MCP summary says what this call charged. */
export interface CallOutcome {
  outcome: OperationOutcome;
  /**
   * Words of `outcome.wordsCharged` that earlier calls with this id had been charged already (a
   * repeat after a failure: a document's finished parts, an answer that could not be read): not
   * charged again by this call.
   */
  chargedBefore: number;
}

interface Settled {
  record: OperationRecord;
  replayed: boolean;
  /** See CallOutcome.chargedBefore (0 when absent). */
  chargedBefore?: number;
}

/** A call in flight, with the fingerprint of the work it does: only that work may join it. */
interface Running {
  fingerprint: string;
  settled: Promise<Settled>;
  /**
   * Whether the ledger holds this call's work under the id, once it has said so (false when it
   * holds other work, or could not be asked). Until then another work's request cannot be told
   * from the stored one: it waits.
   */
  owns: Promise<boolean>;
}

/**
 * Errors that a repeat of the operation id cannot change: answered again from the ledger.
 * Not `upstream_invalid_response`: after a wrong address is fixed, or the BFF is updated to
 * read an answer it could not, a repeat goes through (an answer kept upstream is not charged again).
 */
const FINAL_ERROR_CODES = new Set(['result_expired', 'internal_error']);

/** An operation's key among those running here: one member's operation id. */
const keyOf = ({ memberId, operationId }: Pick<OperationRecord, 'memberId' | 'operationId'>) => `${memberId}\u0000${operationId}`;

const upstreamBody = (input: OperationInput): string =>
  JSON.stringify(
    input.product === 'detector'
      ? { text: input.text, version: input.version }
      : input.product === 'humanizer'
        ? { text: input.text, model: input.model }
        : { text: input.text },
  );

/**
 * Whether an attempt of the operation's key sent before may have run upstream: one counted and not
 * known to have run nothing (ledger.ts, attemptsNotRun). `ownCounted`: the attempts counted for
 * this request's own call, not yet made.
 */
const mayHaveRunBefore = (record: OperationRecord, ownCounted = 0) => record.attempts - record.attemptsNotRun > ownCounted;

/** The first resume of an operation held pending waits this long at most, then twice as long each time, up to HELD_RESUME_CAP_MS. */
export const HELD_RESUME_CAP_MS = 60 * 60 * 1000;

function inputFromBody(product: Product, operationId: string, body: string): OperationInput {
  return { product, operationId, ...JSON.parse(body) } as OperationInput;
}

/** A part's error as the document's: which part, and what happened to the words already charged. */
function documentPartError(error: HttpError, index: number, parts: number, charged: number, retentionHours: number): HttpError {
  const words = charged.toLocaleString('en-US');
  // A repeat of a document settled with a final error gets that error again: no part is reused.
  const kept =
    charged === 0
      ? ''
      : FINAL_ERROR_CODES.has(error.body.code)
        ? ` The ${words} words charged for this document's parts stay counted in your usage.`
        : ` The ${words} words already charged for other parts are counted in your usage; repeating this operation id within ${countOf(retentionHours, 'hour')} reuses those parts.`;
  return new HttpError(error.status, { ...error.body, message: `Part ${index + 1} of ${parts} of this document: ${error.body.message}${kept}` }, error.headers);
}

/**
 * Lets waiting I/O (health checks, other members' requests) run between the heavy steps of a
 * large operation (parsing, storing and merging results of megabytes), which would otherwise
 * run back to back as one long task.
 */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Requests of at least this many bytes yield between parsing and storing their result; a
 * smaller one is parsed and stored in well under a millisecond, where two extra turns of the
 * event loop per operation cost more than they spare.
 */
const YIELD_ABOVE_REQUEST_BYTES = 32 * 1024;

const operationIdReused = (operationId: string) =>
  HttpError.of(
    409,
    'operation_id_reused',
    'This operation id was already used for a different text, product, version or model. Use a new operation id for new work.',
    { operationId },
  );

/** Why what never ran upstream of a revoked member's operation is not sent: nobody could fetch its result. */
const memberRevoked = () =>
  HttpError.of(401, 'unauthorized', 'The member was revoked before this check was sent in full: what had not been sent was not sent, and only what the upstream had already run was charged.');

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

/** `words_processed` of an answer that did not parse, where it can still be read. */
function chargedWordsOf(body: unknown): number | undefined {
  const top = body as { words_processed?: unknown; data?: { words_processed?: unknown } } | null;
  const words = typeof top === 'object' && top !== null ? (top.data?.words_processed ?? top.words_processed) : undefined;
  return typeof words === 'number' && Number.isSafeInteger(words) && words >= 0 ? words : undefined;
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
  /** How long settled results are kept (BFF_RESULT_RETENTION_HOURS), for the result_expired message. */
  resultRetentionHours: number;
  /**
   * The upstream key a new operation starts with (recorded with it, so its retries and a resume
   * after a restart know it); throws when upstream mode has no key. Absent offline.
   */
  upstreamKeyId?: () => string;
  /** How often completed operations are summed up in an `info` line (each one is logged at `debug`). */
  activityIntervalMs?: number;
  /**
   * The first back-off of an operation held pending (ledger.ts, HeldOperation), doubled with each
   * held attempt up to HELD_RESUME_CAP_MS: BFF_RESUME_INTERVAL_SECONDS.
   */
  heldResumeBaseMs?: number;
  now?: () => number;
}

/**
 * Exactly-once operations. Each logical operation gets an upstream Idempotency-Key, derived
 * from the operation (storage/idempotency-keys.ts), that is stored with the exact request bytes
 * before the first attempt; every attempt, retry,
 * resume after a restart and client repeat uses that key and those bytes. A finished
 * operation is answered from the ledger; concurrent repeats share one call.
 */
export class OperationEngine {
  readonly #inflight = new Map<string, Running>();
  readonly #shutdown = new AbortController();
  #closing = false;
  readonly #activity: OperationActivity;
  /** The operations pending at the last look for those left pending (resumeLeftPending). */
  #pendingAtLastSweep = new Set<string>();

  constructor(private readonly options: EngineOptions) {
    this.#activity = new OperationActivity(options.logger, options.activityIntervalMs);
  }

  get closing(): boolean {
    return this.#closing;
  }

  async run(member: MemberRecord, input: OperationInput): Promise<OperationOutcome> {
    return (await this.call(member, input)).outcome;
  }

  /** Like run, with what earlier calls with this id had been charged already. */
  async call(member: MemberRecord, input: OperationInput): Promise<CallOutcome> {
    const key = keyOf({ memberId: member.id, operationId: input.operationId });
    const body = upstreamBody(input);
    const fingerprint = fingerprintOf(input.product, body);
    for (;;) {
      // Checked again after each wait: a drain that began meanwhile does not wait for new calls.
      if (this.#closing) throw shuttingDown();
      const running = this.#inflight.get(key);
      if (!running) return this.#outcome(await this.#track(key, fingerprint, (owns) => this.#start(member, input, body, fingerprint, owns)));
      if (running.fingerprint === fingerprint) return this.#outcome({ ...(await running.settled), replayed: true });
      // Other work under this id is in flight. Refused only once the ledger says that work is
      // the id's: the call in flight may be a request the ledger is about to refuse itself.
      if (await running.owns) throw operationIdReused(input.operationId);
      await running.settled.catch(() => {}); // gone from #inflight by then (#track's finally runs first)
    }
  }

  /** Resumes operations a crash or a deadline left pending, with their original keys and bytes. */
  async resumePending(): Promise<number> {
    const pending = await this.options.ledger.pendingOperations();
    this.#resume(pending, await this.#revokedAmong(pending));
    return pending.length;
  }

  /**
   * Operations left pending while this BFF runs (the client gave up at its deadline and did not
   * come back) are resumed without a restart or a client, so words the upstream charged are
   * counted and the result kept while the upstream still replays it (24 hours). Called every
   * BFF_RESUME_INTERVAL_SECONDS: an operation pending at the sweep before too, and not running
   * here, was left; one that is newer may still be running for its client on another instance.
   */
  async resumeLeftPending(): Promise<number> {
    const pending = await this.options.ledger.pendingOperations();
    const now = (this.options.now ?? Date.now)();
    // One held pending after a refusal of the key or account waits for its back-off: resumed every
    // sweep, it would be refused every sweep (a restart or a client's repeat still resumes it at once).
    const left = pending.filter((record) => this.#pendingAtLastSweep.has(keyOf(record)) && (record.held === null || Date.parse(record.held.resumeAfter) <= now));
    this.#pendingAtLastSweep = new Set(pending.map(keyOf));
    return this.#resume(left, await this.#revokedAmong(left));
  }

  /** The members of these operations who were revoked since. */
  async #revokedAmong(records: readonly OperationRecord[]): Promise<Set<string>> {
    if (records.length === 0) return new Set();
    const members = await this.options.ledger.listMembers();
    return new Set(members.filter((member) => member.revokedAt !== null && records.some((record) => record.memberId === member.id)).map((member) => member.id));
  }

  /** Runs the operations again that are not running here (those of `revoked` members only as far as they may have run); how many were started. */
  #resume(records: readonly OperationRecord[], revoked: ReadonlySet<string>): number {
    let started = 0;
    // A drain that began while the pending operations were read has listed what it waits for: one
    // started now would run unwaited, its settlement meeting a closed ledger. The next start resumes them.
    if (this.#closing) return started;
    for (const record of records) {
      const key = keyOf(record);
      if (this.#inflight.has(key)) continue;
      started++;
      this.options.logger.info({ operationId: record.operationId, product: record.product }, 'resuming pending operation');
      const run = () => (revoked.has(record.memberId) ? this.#resumeRevoked(record) : this.#execute(record));
      this.#track(key, record.fingerprint, (owns) => (owns(true), run())).catch((error: unknown) => {
        // An answer for a client (the outcome is in the ledger, a repeat will see it) needs no
        // line; anything else (a ledger write that failed) would be retried at every start unseen.
        if (!(error instanceof HttpError)) {
          this.options.logger.error({ operationId: record.operationId, product: record.product, error: describeError(error) }, 'resuming a pending operation failed');
        }
      });
    }
    return started;
  }

  /**
   * A revoked member's operation, resumed: what may have run upstream is resumed as any other (its
   * charge is counted, and a replay charges nothing more), but nothing is sent that never was. Its
   * result could never be fetched (the member's requests are refused), so a run now would only spend
   * the team's words; it is settled failed instead, its reserved words freed.
   */
  async #resumeRevoked(record: OperationRecord): Promise<Settled> {
    const parts = await this.options.ledger.partsOf(record.memberId, record.operationId);
    if (parts.length > 0) return this.#executeDocument(record, parts, undefined, memberRevoked());
    if (mayHaveRunBefore(record)) return this.#forward(record);
    const error = memberRevoked();
    await this.options.ledger.failOperation(record.memberId, record.operationId, { status: error.status, error: error.body });
    throw error;
  }

  /**
   * Why an operation that never ran must not be sent any more: its member was revoked since it
   * started (ForwardRequest.refusal). A ledger that cannot say does not stop the call (its
   * settlement meets the same ledger).
   */
  async #revokedRefusal(memberId: string): Promise<HttpError | undefined> {
    const member = await (await this.options.ledger.consoleStore()).member(memberId).catch(() => undefined);
    return member?.revokedAt ? memberRevoked() : undefined;
  }

  /** Stops taking operations and waits for running ones; past the grace period they are left pending. */
  async drain(graceMs: number): Promise<void> {
    this.#closing = true;
    const all = Promise.allSettled([...this.#inflight.values()].map((running) => running.settled));
    const timer = setTimeout(() => this.#shutdown.abort(new Error('shutting down')), graceMs);
    await all;
    clearTimeout(timer);
    this.#activity.stop();
  }

  /** Runs `call` as the id's call in flight; `call` tells `owns` whether the ledger holds its work (false if it throws first). */
  #track(key: string, fingerprint: string, call: (owns: (value: boolean) => void) => Promise<Settled>): Promise<Settled> {
    let owns!: (value: boolean) => void;
    // (`owns` is assigned by the promise's executor, before `call` runs.)
    const running: Running = { fingerprint, owns: new Promise((resolve) => (owns = resolve)), settled: call(owns) };
    this.#inflight.set(key, running);
    void running.settled
      .finally(() => {
        owns(false);
        if (this.#inflight.get(key) === running) this.#inflight.delete(key);
      })
      .catch(() => {});
    return running.settled;
  }

  async #start(member: MemberRecord, input: OperationInput, body: string, fingerprint: string, owns: (value: boolean) => void, decidedBefore = false): Promise<Settled> {
    const { ledger } = this.options;
    const opened = await this.#open(member, input, body, fingerprint);
    owns(opened.record.fingerprint === fingerprint);
    // A single operation this request just stored: no parts to look up, its first attempt already counted.
    if (opened.status === 'inserted') return this.#execute(opened.record, input.text, !opened.document);
    let record = opened.record;
    if (record.fingerprint !== fingerprint) throw operationIdReused(input.operationId);
    if (record.expiredAt !== null && !runsAgainAfterRetention(record)) throw this.#expired(record);
    if (record.state === 'completed') return { record, replayed: true };
    if (record.state === 'failed' && record.error && FINAL_ERROR_CODES.has(record.error.error.code)) {
      throw new HttpError(record.error.status, record.error.error);
    }
    if (record.state === 'failed') {
      // A failure ran upstream only if it was charged (an answer that could not be read).
      const mayHaveRun = record.wordsCharged > 0;
      // A single one that never ran is in no account's records: it starts again with the key in
      // use (the one it started with may be gone, or of an account the team left).
      const upstreamKeyId = !mayHaveRun && record.parts === 1 ? this.options.upstreamKeyId?.() : undefined;
      const reopened = await ledger.reopenOperation(member.id, input.operationId, body, documentWords(input.text).words, upstreamKeyId);
      if (reopened.status === 'changed') {
        // Since it was read, another request or instance reopened it, or the purge took it:
        // decided again from what the ledger holds now (once; a second change is answered as busy).
        if (decidedBefore) throw upstreamErrors.busy(1);
        return this.#start(member, input, body, fingerprint, owns, true);
      }
      // The words its finished parts were charged are in the budget already; only the rest is new.
      this.#checkReservation(input, reopened, record.wordsCharged);
      record = { ...record, state: 'pending', error: null, requestBody: body, upstreamKeyId: upstreamKeyId ?? record.upstreamKeyId };
      // What it was charged is counted already (a document's own parts, when it has any, say so themselves).
      return { chargedBefore: record.wordsCharged, ...(await this.#execute(record, input.text, false, mayHaveRun)) };
    }
    return this.#execute(record, input.text);
  }

  /**
   * A settled operation past the retention period: its result, or what a failed one had done,
   * is gone, and it is never run (or charged) again (but see runsAgainAfterRetention).
   */
  #expired(record?: OperationRecord): HttpError {
    const ago = `more than ${countOf(this.options.resultRetentionHours, 'hour')} ago`;
    if (record?.state !== 'failed') {
      return HttpError.of(410, 'result_expired', `This check finished ${ago} and the BFF no longer keeps its result. Start a new check with a new operation id.`);
    }
    const charged = record.wordsCharged.toLocaleString('en-US');
    return HttpError.of(
      410,
      'result_expired',
      `This check failed ${ago} and the BFF no longer keeps what it had done (the ${charged} words it was charged stay counted in your usage), so repeating it would charge them again. Start a new check with a new operation id.`,
    );
  }

  /**
   * The ledger reserves an operation's words with its insert; a short budget refuses it before anything is forwarded.
   * `alreadyCounted`: words a repeated operation was charged before (its finished parts), which the budget holds already.
   */
  #checkReservation<R extends InsertResult | OpenResult>(
    input: OperationInput,
    reservation: R,
    alreadyCounted = 0,
  ): asserts reservation is Exclude<R, { status: 'over_budget' }> {
    if (reservation.status !== 'over_budget') return;
    const { remainingWords } = reservation;
    // The upstream's count of what it charged may pass this count of the text: never fewer than no words.
    const required = Math.max(0, documentWords(input.text).words - alreadyCounted);
    const needs =
      alreadyCounted === 0
        ? `this text needs ${required.toLocaleString('en-US')}`
        : required > 0
          ? `repeating this check needs ${required.toLocaleString('en-US')} more`
          : 'the words already counted pass it';
    throw HttpError.of(
      403,
      'member_budget_exceeded',
      `Your word budget for the ${productName(input.product)} has ${remainingWords.toLocaleString('en-US')} words left and ${needs}. Ask your administrator to raise it.`,
      { product: input.product, remainingWords, requiredWords: required },
    );
  }

  /** Finds the stored operation or stores it (with a document's parts), in one ledger call. */
  async #open(
    member: MemberRecord,
    input: OperationInput,
    body: string,
    fingerprint: string,
  ): Promise<{ status: 'inserted' | 'exists'; record: OperationRecord; document: boolean }> {
    const { ledger, forwarder } = this.options;
    const base = { memberId: member.id, product: input.product, source: forwarder.source, upstreamKeyId: this.options.upstreamKeyId?.() ?? null };
    const document = input.text.length > MAX_TEXT_CHARACTERS && countCharacters(input.text) > MAX_TEXT_CHARACTERS ? splitDocument(input.text) : undefined;
    const parts = document?.parts ?? [];
    const operations: NewOperation[] = [
      {
        ...base,
        operationId: input.operationId,
        fingerprint,
        idempotencyKey: await ledger.idempotencyKeyFor({ memberId: member.id, operationId: input.operationId, fingerprint }),
        requestBody: body,
        parentOperationId: null,
        partIndex: null,
        parts: document ? parts.length : 1,
        wordsReserved: documentWords(input.text).words,
      },
    ];
    if (document) {
      for (const [index, part] of parts.entries()) {
        const partBody = upstreamBody({ ...input, text: part.text });
        const operationId = `${input.operationId}#${index}`;
        const fingerprint = fingerprintOf(input.product, partBody);
        operations.push({
          ...base,
          operationId,
          fingerprint,
          idempotencyKey: await ledger.idempotencyKeyFor({ memberId: member.id, operationId, fingerprint }),
          requestBody: partBody,
          parentOperationId: input.operationId,
          partIndex: index,
          parts: 1,
          wordsReserved: 0,
        });
      }
    }
    const opened = await ledger.openOperation(operations);
    this.#checkReservation(input, opened);
    return { ...opened, document: document !== undefined };
  }

  /**
   * Runs a stored operation; `text` is the client's text when a request (not a resume) runs it.
   * `justStored`: a single operation this request inserted, whose first attempt its insert counted.
   */
  async #execute(record: OperationRecord, text?: string, justStored = false, mayHaveRun?: boolean): Promise<Settled> {
    const parts = justStored ? [] : await this.options.ledger.partsOf(record.memberId, record.operationId);
    return parts.length > 0 ? this.#executeDocument(record, parts, text) : this.#forward(record, justStored, mayHaveRun);
  }

  async #forward(record: OperationRecord, attemptCounted = false, mayHaveRun?: boolean): Promise<Settled> {
    const attempt = await this.#attempt(record, attemptCounted, mayHaveRun);
    if (!attempt.ok) throw attempt.error;
    return { record: attempt.record, replayed: !attempt.completedHere };
  }

  /**
   * One upstream operation: forwards its stored bytes with its stored key and records the
   * outcome. `settled`: the failure is final for this key and recorded in the ledger.
   * `completedHere`: this attempt recorded the completion (and counts its words); false when
   * another request or instance, running the same key at once, recorded it first.
   * `mayHaveRun`: whether an earlier attempt of its key may have run upstream; by default, when it
   * is pending and was sent before (a resume, a repeat while pending), or failed after a charge.
   */
  async #attempt(
    record: OperationRecord,
    attemptCounted = false,
    mayHaveRun = record.state === 'pending' ? mayHaveRunBefore(record, attemptCounted ? 1 : 0) : record.wordsCharged > 0,
  ): Promise<{ ok: true; record: OperationRecord; completedHere: boolean } | { ok: false; error: HttpError; settled: boolean; wordsCharged?: number }> {
    const { ledger, forwarder, metrics, logger } = this.options;
    if (record.state === 'completed') return { ok: true, record, completedHere: false };
    // One none of whose attempts may have run (a document's part never sent, a check refused 429 at
    // every attempt) is in no account's records, like a failure that never ran: it goes out with the
    // key in use. Kept with the one it started with, it went to the account the team had left.
    if (!attemptCounted) record = { ...record, upstreamKeyId: await ledger.countAttempt(record.memberId, record.operationId, this.#keyInUse() ?? null) };
    const outcome = await forwarder.forward({
      product: record.product,
      idempotencyKey: record.idempotencyKey,
      body: record.requestBody!,
      upstreamKeyId: record.upstreamKeyId,
      mayHaveRun,
      refusal: () => this.#revokedRefusal(record.memberId),
      signal: this.#shutdown.signal,
    });
    const log = { operationId: record.operationId, product: record.product };
    if (!outcome.ok) {
      metrics.operations.inc({ product: record.product, outcome: outcome.error.body.code });
      // Words an earlier attempt of this key was charged (an answer that could not be read) stay
      // counted, whatever this attempt met. A 410 is the upstream's answer for an operation it
      // completed more than 24 hours ago: the result is gone, but the words were charged, so they are counted.
      const expired = outcome.settled && outcome.error.body.code === 'result_expired';
      const wordsCharged = record.wordsCharged > 0 ? record.wordsCharged : expired ? this.#inputWords(record) : 0;
      if (outcome.settled) await ledger.failOperation(record.memberId, record.operationId, { status: outcome.error.status, error: outcome.error.body }, wordsCharged);
      else {
        // Another request or instance running the same key may have settled it failed meanwhile.
        await ledger.keepPending(record.memberId, record.operationId, record.requestBody!);
        await this.#noteOpen(record, outcome.error, outcome.ranNothing === true);
      }
      this.#meterCharge(record, wordsCharged);
      logger.warn({ ...log, code: outcome.error.body.code, settled: outcome.settled }, 'operation failed');
      return { ok: false, error: outcome.error, settled: outcome.settled, wordsCharged };
    }
    const large = record.requestBody!.length >= YIELD_ABOVE_REQUEST_BYTES;
    if (large) await yieldToEventLoop();
    const version = record.product === 'detector' ? (JSON.parse(record.requestBody!) as { version: DetectorVersion }).version : undefined;
    const parsed = parseResult(record.product, outcome.body, version);
    if (!parsed.success) {
      // A success is charged upstream whether or not it can be read here: counted, so usage and
      // budgets match what the team pays.
      const error = upstreamErrors.unreadableResult();
      const wordsCharged = chargedWordsOf(outcome.body) ?? this.#inputWords(record);
      await ledger.failOperation(record.memberId, record.operationId, { status: error.status, error: error.body }, wordsCharged);
      this.#meterCharge(record, wordsCharged);
      logger.error({ ...log, issues: parsed.error.issues.slice(0, 5).map((issue) => `${issue.path.join('.')}: ${issue.message}`) }, 'upstream result did not parse');
      return { ok: false, error, settled: true, wordsCharged };
    }
    const result = storableResult(parsed.data);
    const wordsCharged = wordsOf(record.product, result);
    if (wordsCharged > record.requestBody!.length) {
      // More words than characters sent, under any way of counting words: the upstream's own
      // error, or a charge to look into. It is what the account paid, so it is recorded as is.
      metrics.implausibleCharges.inc({ product: record.product });
      logger.warn({ ...log, wordsCharged, charactersSent: record.requestBody!.length }, 'upstream charged more words than the request has characters; recorded as charged');
    }
    if (large) await yieldToEventLoop();
    const { record: completed, completedHere } = await this.#complete(record, {
      result,
      source: forwarder.source,
      wordsCharged,
      acceptedKey: outcome.acceptedKey === record.idempotencyKey ? undefined : outcome.acceptedKey,
      acceptedKeySource: outcome.acceptedKeySource,
    });
    if (!completedHere) return { ok: true, record: completed, completedHere };
    if (outcome.acceptedKey && outcome.acceptedKey !== record.idempotencyKey) {
      logger.warn({ ...log, keySource: outcome.acceptedKeySource ?? 'unknown' }, 'upstream accepted a different idempotency key; recorded');
    }
    metrics.operations.inc({ product: record.product, outcome: 'completed' });
    this.#meterCharge(record, wordsCharged);
    if (record.parentOperationId === null) {
      this.#activity.completed(record.product, forwarder.source, wordsCharged);
      if (logger.isLevelEnabled('debug')) logger.debug({ ...log, wordsCharged, source: forwarder.source }, 'operation completed');
    }
    return { ok: true, record: completed, completedHere };
  }

  /**
   * An attempt left the operation pending: counts it as one that ran nothing when so, and holds
   * the operation (resumes backing off) when the upstream refused the key or account (or could not
   * be reached at its address) after an earlier attempt that may have run and been charged. Such an
   * operation is never settled failed (its charge would never be counted), so the team is told:
   * an error line, `heldOperations` in /v1/usage and the console's usage, and a metric.
   */
  async #noteOpen(record: OperationRecord, error: HttpError, ranNothing: boolean): Promise<void> {
    const held = refusesBeforeTheRecord(error);
    if (!ranNothing && !held && record.held === null) return;
    const resumes = held ? (record.held?.resumes ?? 0) : 0;
    const delayMs = Math.min(HELD_RESUME_CAP_MS, (this.options.heldResumeBaseMs ?? 300_000) * 2 ** Math.min(resumes, 20));
    const resumeAfter = new Date((this.options.now ?? Date.now)() + delayMs);
    await this.options.ledger.noteOpenOutcome(record.memberId, record.operationId, {
      ranNothing,
      held: held ? { error: { status: error.status, error: error.body }, resumeAfter } : null,
    });
    if (held && record.parentOperationId === null) {
      this.options.logger.error(
        { operationId: record.operationId, product: record.product, code: error.body.code, heldResumes: resumes + 1, resumeAfter: resumeAfter.toISOString() },
        'operation held pending: it may have been charged upstream, and the upstream refused the key or account (or the address is wrong) before its answer could be fetched; fix the key or UPSTREAM_BASE_URL, it is resumed then',
      );
    }
  }

  /** Meters the words charged for an operation beyond those metered when an earlier attempt failed after a charge (a repeat's replay is not charged again). */
  #meterCharge(record: OperationRecord, wordsCharged: number): void {
    const uncounted = wordsCharged - record.wordsCharged;
    if (uncounted > 0) this.options.metrics.wordsCharged.inc({ product: record.product, source: this.options.forwarder.source }, uncounted);
  }

  /** The words of an operation's input, as the upstream charges them (whitespace-separated words). */
  #inputWords(record: OperationRecord): number {
    return documentWords(inputFromBody(record.product, record.operationId, record.requestBody!).text).words;
  }

  /**
   * Records the completion and returns the record as the ledger now holds it: built here, or read
   * back when another request or instance running the same key completed it first.
   */
  async #complete(record: OperationRecord, completion: Completion): Promise<{ record: OperationRecord; completedHere: boolean }> {
    const { ledger } = this.options;
    const completedHere = await ledger.completeOperation(record, completion);
    if (!completedHere) {
      const stored = await ledger.findOperation(record.memberId, record.operationId);
      if (stored?.state === 'completed') return { record: stored, completedHere };
    }
    const completed: OperationRecord = {
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
    return { record: completed, completedHere };
  }

  /**
   * A part's request bytes were dropped when it (or its document) failed; a repeat rebuilds
   * them from the document's text (#executeDocument checked them against the stored fingerprints).
   */
  #withRequestBody(part: OperationRecord, input: OperationInput, text: string): OperationRecord {
    if (part.requestBody !== null || part.state === 'completed') return part;
    return { ...part, requestBody: upstreamBody({ ...input, text }) };
  }

  /**
   * A part that failed without a charge never ran: like a single check, it is in no account's
   * records, so it starts again with the key in use (recorded before it is sent, for a resume).
   * Kept with its own key, it went back to the account the team left, refused there for good.
   */
  async #partWithKeyInUse(part: OperationRecord): Promise<OperationRecord> {
    if (part.state !== 'failed' || part.wordsCharged > 0) return part;
    const keyInUse = this.#keyInUse();
    if (keyInUse === undefined || keyInUse === part.upstreamKeyId) return part;
    const reopened = await this.options.ledger.reopenOperation(part.memberId, part.operationId, part.requestBody!, 0, keyInUse);
    if (reopened.status !== 'inserted') return part; // reopened by another request or instance: sent as it stands
    return { ...part, state: 'pending', error: null, upstreamKeyId: keyInUse, attemptsNotRun: part.attempts };
  }

  /** The key a new operation starts with; undefined offline or without one (upstream_key_missing: sent as it stands, with its own). */
  #keyInUse(): string | undefined {
    try {
      return this.options.upstreamKeyId?.();
    } catch {
      return undefined;
    }
  }

  /** Settles a document that cannot run or merge with `error`, its parts' charged words counted, and sends nothing. */
  async #failDocument(parent: OperationRecord, parts: OperationRecord[], error: HttpError): Promise<never> {
    const charged = parts.reduce((sum, part) => sum + part.wordsCharged, 0);
    await this.options.ledger.failOperation(parent.memberId, parent.operationId, { status: error.status, error: error.body }, charged);
    throw error;
  }

  /**
   * A large document: its parts run with bounded concurrency, then merge into one result.
   * Completed parts are kept (their words stay charged) and reused when the document runs
   * again. A part the upstream refused for good settles the document with that error; an
   * open outcome leaves it pending, to be resumed.
   */
  async #executeDocument(parent: OperationRecord, parts: OperationRecord[], text?: string, stopWith?: HttpError): Promise<Settled> {
    const { ledger, partConcurrency, forwarder, logger } = this.options;
    if (parent.state === 'completed') return { record: parent, replayed: true };
    if (parts.some((part) => part.state === 'completed' && part.expiredAt !== null)) {
      // A part's result is gone (purged by a version that did not keep a failed document's parts
      // with it): the document cannot be merged, and no other part is sent or charged for it.
      return this.#failDocument(parent, parts, this.#expired());
    }
    const input = inputFromBody(parent.product, parent.operationId, parent.requestBody!);
    const document = splitDocument(text ?? input.text);
    // Cut elsewhere when it was first sent (the cut follows sentence ends, whose rules change): its
    // parts can be neither rebuilt nor merged. Settled, so that it no longer holds its reserved words.
    const cutAsStored = (part: OperationRecord, index: number) =>
      document.parts[index] !== undefined && fingerprintOf(part.product, upstreamBody({ ...input, text: document.parts[index].text })) === part.fingerprint;
    if (document.parts.length !== parts.length || !parts.every(cutAsStored)) {
      return this.#failDocument(parent, parts, HttpError.of(500, 'internal_error', 'This document was split differently when it was first sent, so it cannot be resumed. Start a new check with a new operation id.'));
    }
    /** What the parts had been charged before this run (finished parts are reused, not charged again). */
    const chargedBefore = parts.reduce((sum, part) => sum + part.wordsCharged, 0);
    const done: OperationRecord[] = new Array(parts.length);
    let next = 0;
    /** What failed the document: a part's error (`index`), or the reason a resume stops it. */
    let failure: { error: HttpError; settled: boolean; index?: number } | undefined;
    /**
     * A part whose outcome is still open (a deadline passed while the upstream may be running and
     * charging it). While one is, the document is not settled: a failed document is never resumed,
     * so that part's charge would never be counted.
     */
    let partLeftOpen = false;
    /** Words charged by parts that failed all the same (an answer that could not be read). */
    const chargedByFailedParts = new Map<number, number>();
    // A resume (no client waiting) of a document one part of which was refused for good, or whose
    // member was revoked (`stopWith`): only the parts already sent whose outcome is still open are
    // settled, and their words counted. Nothing else is sent, so a document its writer was told had
    // failed is never run on behind their back (after a quota top-up it would have been completed and
    // charged), nor one nobody can fetch any more. A client's repeat runs it all.
    const refused = text === undefined ? parts.find((part) => part.state === 'failed' && part.error !== null) : undefined;
    const stop = refused !== undefined ? { error: new HttpError(refused.error!.status, refused.error!.error), index: parts.indexOf(refused) } : stopWith && { error: stopWith };
    const toRun = parts.map((_, index) => index).filter((index) => stop === undefined || (parts[index]!.state === 'pending' && mayHaveRunBefore(parts[index]!)));
    const worker = async () => {
      while (next < toRun.length && failure === undefined) {
        const index = toRun[next++]!;
        // A part never sent is not sent once its member is revoked (on any instance): the request's
        // own check ran before the first part, and a document's parts take minutes.
        const revoked = mayHaveRunBefore(parts[index]!) ? undefined : await this.#revokedRefusal(parent.memberId);
        if (revoked) {
          failure ??= { error: revoked, settled: true };
          break;
        }
        const attempt = await this.#attempt(await this.#partWithKeyInUse(this.#withRequestBody(parts[index]!, input, document.parts[index]!.text)));
        if (attempt.ok) done[index] = attempt.record;
        else {
          if (attempt.wordsCharged !== undefined) chargedByFailedParts.set(index, attempt.wordsCharged);
          if (!attempt.settled) partLeftOpen = true;
          failure ??= { ...attempt, index };
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(partConcurrency, toRun.length) }, worker));
    if (failure === undefined && stop !== undefined) failure = { ...stop, settled: true };
    if (failure !== undefined) {
      // Before settling, the parts as the ledger holds them now: one this run did not reach may be
      // open elsewhere (another instance running a client's repeat, or an earlier run), and what
      // another instance completed meanwhile was charged. An open one keeps the document pending.
      const current = failure.settled && !partLeftOpen ? await ledger.partsOf(parent.memberId, parent.operationId) : parts;
      const charged = current.reduce((sum, part, index) => sum + (chargedByFailedParts.get(index) ?? (done[index] ?? part).wordsCharged), 0);
      const error = failure.index === undefined ? failure.error : documentPartError(failure.error, failure.index, parts.length, charged, this.options.resultRetentionHours);
      const settled = failure.settled && !partLeftOpen && !current.some((part) => part.state === 'pending' && mayHaveRunBefore(part));
      if (settled) await ledger.failOperation(parent.memberId, parent.operationId, { status: error.status, error: error.body }, charged);
      else {
        // Another instance, not reaching this run's open part, may have settled the document meanwhile.
        await ledger.keepPending(parent.memberId, parent.operationId, parent.requestBody!);
        // Held while a part is (the part's own refusal, with this document's back-off).
        if (!failure.settled) await this.#noteOpen(parent, failure.error, false);
      }
      logger.warn({ operationId: parent.operationId, product: parent.product, part: failure.index, code: error.body.code, settled }, 'document operation failed');
      throw error;
    }
    await yieldToEventLoop();
    const results = done.map((part) => part.result);
    const merged =
      parent.product === 'detector'
        ? mergeDetections(document, results as DetectResponseLegacy[])
        : parent.product === 'humanizer'
          ? mergeHumanizations(document, results as HumanizeResponse[])
          : mergePlagiarismChecks(document, results as PlagiarismResponse[]);
    await yieldToEventLoop();
    const { record: completed, completedHere } = await this.#complete(parent, { result: merged, source: forwarder.source, wordsCharged: wordsOf(parent.product, merged) });
    if (completedHere) {
      this.#activity.completed(parent.product, forwarder.source, completed.wordsCharged);
      logger.info({ operationId: parent.operationId, product: parent.product, parts: parts.length }, 'document operation completed');
    }
    await yieldToEventLoop(); // the answer is serialised next
    return { record: completed, replayed: !completedHere, chargedBefore };
  }

  #outcome({ record, replayed, chargedBefore = 0 }: Settled): CallOutcome {
    return {
      outcome: {
        operationId: record.operationId,
        product: record.product,
        source: record.source,
        replayed,
        wordsCharged: record.wordsCharged,
        parts: record.parts,
        result: record.result,
      },
      chargedBefore: replayed ? 0 : Math.min(chargedBefore, record.wordsCharged),
    };
  }
}
