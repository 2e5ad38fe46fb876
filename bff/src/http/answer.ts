import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError, incompleteBody, ledgerUnavailable } from '../errors.ts';
import { describeError, type Logger } from '../logging.ts';
import { LedgerUnavailableError } from '../storage/faults.ts';

/** Answers with a JSON body, as Express's `res.json` does (UTF-8, with its length). */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.end(json);
}

/** How long the rest of a refused request's body may take to arrive before the connection is cut. */
const UNREAD_BODY_GRACE_MS = 2_000;

/**
 * Answers a failed request with its error body and returns the error code, or undefined when
 * nobody is left to answer. Errors that are not an HttpError are logged (never the request's
 * text) and answered as an internal error.
 */
export function answerError(error: unknown, req: IncomingMessage, res: ServerResponse, logger: Logger): string | undefined {
  if ((error as { type?: string })?.type === 'request.aborted' || req.socket.destroyed) return undefined; // logged on close
  const encoding = req.headers['content-encoding'];
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
  if (res.headersSent) {
    res.destroy();
  } else {
    for (const [name, value] of Object.entries(httpError.headers)) res.setHeader(name, value);
    sendJson(res, httpError.status, { error: httpError.body });
  }
  return httpError.body.code;
}

export const bodyTooLarge = (limit: number | undefined) =>
  HttpError.of(
    413,
    'body_too_large',
    `The request body is too large${limit ? ` (this BFF accepts at most ${limit.toLocaleString('en-US')} bytes, BFF_MAX_BODY_BYTES)` : ''}. Send a shorter text, or split it.`,
  );

/** A body JSON.parse refused; one that begins with a byte-order mark is told so, since its JSON may be fine. */
export const malformedJson = (startsWithBom = false) =>
  HttpError.of(
    400,
    'malformed_json',
    startsWithBom
      ? 'The request body begins with a byte-order mark (U+FEFF), which JSON sent over HTTP must not have. Send the JSON without it.'
      : 'The request body is not valid JSON. Check quotes, commas and escapes.',
  );

export const notUtf8 = () => HttpError.of(415, 'unsupported_content_type', 'The request body is not valid UTF-8. Send the JSON encoded as UTF-8.');
/** The type of what express.json's `verify` (refuseNonUtf8) throws. */
export const NOT_UTF8 = 'entity.not.utf8';

/** What a thrown error means to the client: HttpErrors as they are, body-parser and ledger failures explained. */
function toHttpError(error: unknown, compressed: boolean): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof LedgerUnavailableError) return ledgerUnavailable(error.fault);
  const type = (error as { type?: string })?.type;
  if (type === 'entity.parse.failed') {
    return malformedJson();
  }
  if (type === 'entity.too.large') return bodyTooLarge((error as { limit?: number }).limit);
  if (type === NOT_UTF8) return notUtf8();
  if (type === 'charset.unsupported') {
    return HttpError.of(415, 'unsupported_content_type', 'Send the body as UTF-8 JSON.');
  }
  if (type === 'encoding.unsupported') {
    return HttpError.of(415, 'unsupported_content_encoding', 'This Content-Encoding is not supported. Send the body uncompressed, or compressed with gzip, deflate or br.');
  }
  if (type === 'request.size.invalid') {
    return incompleteBody();
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
