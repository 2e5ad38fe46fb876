import type { NextFunction, Request, Response } from 'express';
import { cannotWriteCause } from '../errors.ts';
import { LedgerUnavailableError } from '../storage/faults.ts';

/** The console's own error codes: its API is not part of the /v1 contract. */
export type ConsoleErrorCode =
  | 'no_session'
  | 'session_expired'
  | 'csrf_refused'
  | 'forbidden'
  | 'invalid_request'
  | 'unsupported_media_type'
  | 'invalid_sign_in'
  | 'not_found'
  | 'secret_key_missing'
  | 'offline_mode'
  | 'conflict'
  | 'too_many_requests'
  | 'ledger_unavailable'
  | 'internal_error';

export class ConsoleError extends Error {
  constructor(
    readonly status: number,
    readonly code: ConsoleErrorCode,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** Answers the console's errors as `{ error: { code, message } }`; never echoes what was sent. */
export function consoleErrorHandler(onUnexpected: (error: unknown) => void) {
  return (error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof ConsoleError) {
      if (error.retryAfterSeconds !== undefined) res.set('Retry-After', String(error.retryAfterSeconds));
      return void res.status(error.status).json({ error: { code: error.code, message: error.message } });
    }
    if (error instanceof LedgerUnavailableError) {
      const cause = cannotWriteCause(error.fault);
      const message = cause
        ? `The BFF cannot write to its database (${cause}). The BFF's log says what to fix; the console works again by itself once it is fixed.`
        : 'The database is unavailable. Try again shortly.';
      return void res.status(503).set('Retry-After', '5').json({ error: { code: 'ledger_unavailable', message } });
    }
    if ((error as { type?: string })?.type === 'entity.parse.failed') {
      return void res.status(400).json({ error: { code: 'invalid_request', message: 'The request body is not valid JSON.' } });
    }
    // The router could not decode a part of the address: not the body's fault, which the 400 below would say.
    if (error instanceof URIError) {
      return void res.status(400).json({ error: { code: 'invalid_request', message: 'The address has a broken percent-escape: each "%" must be followed by two hexadecimal digits, and the escapes must encode UTF-8. Open the console page and use its buttons.' } });
    }
    const status = (error as { status?: number })?.status;
    if (status !== undefined && status >= 400 && status < 500) {
      return void res.status(400).json({ error: { code: 'invalid_request', message: 'The request body could not be read: send JSON of at most 16 kB.' } });
    }
    onUnexpected(error);
    res.status(500).json({ error: { code: 'internal_error', message: 'Something went wrong in the console. Try again.' } });
  };
}
