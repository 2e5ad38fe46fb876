import type { BffError, BffErrorCode, Product } from '@redline/shared';
import { storableResult } from './operations/storable.ts';
import type { LedgerFault, LedgerFaultReason } from './storage/faults.ts';

/** An error the BFF answers with: an HTTP status and a stable, explained error body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: BffError,
    readonly headers: Record<string, string> = {},
  ) {
    super(body.message);
  }

  static of(status: number, code: BffErrorCode, message: string, extra: Omit<BffError, 'code' | 'message'> = {}): HttpError {
    const headers: Record<string, string> =
      extra.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(extra.retryAfterSeconds) };
    return new HttpError(status, { code, message, ...extra }, headers);
  }
}

const PRODUCT_NAMES: Record<Product, string> = {
  detector: 'AI-writing detector',
  humanizer: 'humanizer',
  plagiarism: 'plagiarism checker',
};

/** "1 hour", "24 hours", "1,000 words": a count and its unit in a message. */
export const countOf = (count: number, unit: string) => `${count.toLocaleString('en-US')} ${unit}${count === 1 ? '' : 's'}`;

/** "1 second", "5 seconds": a wait in a message. */
export const secondsOf = (seconds: number) => countOf(seconds, 'second');

export const productName = (product: Product) => PRODUCT_NAMES[product];

/** The errors that come from the upstream's answers (upstream-api.md, section 7). */
export const upstreamErrors = {
  quotaExceeded: (product: Product, remainingWords: number | undefined, requiredWords: number | undefined) =>
    HttpError.of(
      402,
      'quota_exceeded',
      `Not enough words left for the ${productName(product)}${
        remainingWords !== undefined && requiredWords !== undefined
          ? `: this text needs ${requiredWords.toLocaleString('en-US')} and ${remainingWords.toLocaleString('en-US')} remain`
          : ' for this text'
      }. Shorten the text or ask your administrator to top up the plan.`,
      { product, remainingWords, requiredWords },
    ),
  noSubscription: (product: Product) =>
    HttpError.of(403, 'no_subscription', `The team's plan has no active subscription for the ${productName(product)}. Ask your administrator to check the plan.`, { product }),
  busy: (retryAfterSeconds: number) =>
    HttpError.of(503, 'busy', `The analysis service is busy. Try again in ${secondsOf(retryAfterSeconds)}; nothing extra will be charged.`, { retryAfterSeconds }),
  providerAborted: () =>
    HttpError.of(502, 'provider_aborted', 'The analysis provider stopped this check safely. Nothing was charged. Try again later.', { retryAfterSeconds: 30 }),
  usageRecordingUnavailable: (retryAfterSeconds: number) =>
    HttpError.of(
      503,
      'usage_recording_unavailable',
      `The service could not confirm usage for this check, so it held the result back. Try again in ${secondsOf(retryAfterSeconds)}: the same check will not be charged twice.`,
      { retryAfterSeconds },
    ),
  resultExpired: () =>
    HttpError.of(410, 'result_expired', 'This check finished more than 24 hours ago and its result is no longer stored upstream. Start a new check.'),
  keyRejected: () =>
    HttpError.of(502, 'upstream_key_rejected', "The BFF's service key was refused by the analysis service. An administrator must update the BFF's upstream key."),
  unreachable: (retryAfterSeconds: number) =>
    HttpError.of(504, 'upstream_unreachable', `The analysis service could not be reached. Try again in ${secondsOf(retryAfterSeconds)}; nothing will be charged twice.`, { retryAfterSeconds }),
  /** A status the upstream never answers (a 404 page from a wrong UPSTREAM_BASE_URL): nothing ran. */
  unexpectedStatus: (status: number) =>
    HttpError.of(
      502,
      'upstream_invalid_response',
      `The analysis service answered HTTP ${status}, which it never answers: the BFF's upstream address may be wrong. The administrator has been told in the logs. Nothing was charged; repeat the check with the same operation id once it is fixed.`,
    ),
  /** A success the BFF cannot read: the upstream ran and charged it, and keeps its answer for 24 hours. */
  unreadableResult: () =>
    HttpError.of(
      502,
      'upstream_invalid_response',
      'The analysis service answered this check, and counted its words, in a form this BFF cannot read. The administrator has been told in the logs. Once the BFF is updated, repeat the check with the same operation id within 24 hours: the answer is kept upstream and is not charged again.',
    ),
  keyConflict: () =>
    HttpError.of(500, 'internal_error', 'The analysis service refused this operation as a repeat of different work. This is a BFF fault; start a new check.'),
  /** The upstream's own words, made storable: the refusal is stored with the operation (operations/storable.ts). */
  invalidRequest: (message: string, fields?: Record<string, string>) =>
    HttpError.of(400, 'invalid_request', `The analysis service refused the request: ${storableResult(message)}`, fields ? { fields: storableResult(fields) } : {}),
};

/** How long clients wait before repeating while the ledger is unavailable. */
export const LEDGER_RETRY_AFTER_SECONDS = 5;

/** An endpoint that does not exist, said the same way inside and outside the API. */
export const notFound = () => HttpError.of(404, 'not_found', 'No such endpoint. The API is described at /openapi.json.');

/** The BFF stops: a new operation is refused, and one cut off by the grace period stays pending and resumes at the next start. */
export const shuttingDown = () => HttpError.of(503, 'shutting_down', 'The BFF is restarting. Try again in a few seconds; nothing will be charged twice.', { retryAfterSeconds: 5 });

/** A body that ended before its Content-Length (a client that stopped sending, or a connection cut). */
export const incompleteBody = () => HttpError.of(400, 'incomplete_body', 'The request body ended before its Content-Length. Send the whole body.');

/** Faults of a database the BFF reaches but cannot write: an administrator must end them, waiting alone does not. */
const CANNOT_WRITE: Partial<Record<LedgerFaultReason, string>> = {
  disk_full: 'its disk is full',
  read_only: 'it is read-only',
  io_error: 'its disk cannot be read or written',
  corrupt: 'its database file is damaged',
};

/** What keeps the BFF from writing its database, in a few words, when an administrator must fix it. */
export const cannotWriteCause = (fault: LedgerFault | undefined) => fault && CANNOT_WRITE[fault.reason];

/** The BFF's database cannot be used: nothing is forwarded without its ledger record. */
export const ledgerUnavailable = (fault?: LedgerFault) => {
  const cause = cannotWriteCause(fault);
  return HttpError.of(
    503,
    'ledger_unavailable',
    cause
      ? `The BFF cannot write to its database (${cause}), so it cannot take checks until an administrator fixes that (the BFF's log says how). Try again in ${LEDGER_RETRY_AFTER_SECONDS} seconds with the same operation id, it goes through once that is fixed: nothing will be charged twice.`
      : fault?.reason === 'busy'
        ? `The BFF's database is held by another program, so it cannot take checks right now. Try again in ${LEDGER_RETRY_AFTER_SECONDS} seconds with the same operation id: nothing will be charged twice.`
        : `The BFF cannot reach its database, so it cannot take checks right now. Try again in ${LEDGER_RETRY_AFTER_SECONDS} seconds with the same operation id: nothing will be charged twice.`,
    { retryAfterSeconds: LEDGER_RETRY_AFTER_SECONDS },
  );
};
