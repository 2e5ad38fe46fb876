import type { Product, ResultSource } from '@redline/shared';
import type { HttpError } from '../errors.ts';

/** One logical operation, as sent upstream: the same key and bytes on every attempt. */
export interface ForwardRequest {
  product: Product;
  idempotencyKey: string;
  body: string;
  /** The upstream key the operation started with (see keyring.ts); null: the active one. */
  upstreamKeyId?: string | null;
  /**
   * An earlier attempt with this key may have run upstream and been charged (its answer never
   * came back): see refusesBeforeTheRecord.
   */
  mayHaveRun?: boolean;
  /**
   * Asked before each retry while nothing of the operation can have run upstream yet (every
   * attempt refused 429, say): a reason it must not be sent at all any more (its member was revoked
   * meanwhile), which settles it with nothing charged.
   */
  refusal?: () => Promise<HttpError | undefined>;
  signal?: AbortSignal;
}

/**
 * Refusals of the API key or the account (401, 403) come before the upstream looks up the
 * Idempotency-Key's record (so does the BFF's own refusal to send without a key of the
 * operation's account), and a status the upstream never answers (a wrong UPSTREAM_BASE_URL, a
 * proxy's error page) does not come from it at all: they say nothing about an earlier run of
 * the key. After one that may have been charged, the operation is left open, to be resumed once
 * a key of its account is in use (or the address is right), when the upstream replays it and
 * its words are counted.
 */
export const refusesBeforeTheRecord = (error: HttpError) =>
  ['upstream_key_rejected', 'upstream_key_missing', 'no_subscription', 'upstream_invalid_response'].includes(error.body.code);

export type ForwardResult =
  | { ok: true; body: unknown; acceptedKey?: string; acceptedKeySource?: string }
  /**
   * `settled`: the answer is final for this key (the upstream refused it and nothing is
   * running). Otherwise the outcome is unknown or temporary and the operation stays pending,
   * to be resumed with the same key.
   */
  | {
      ok: false;
      error: HttpError;
      settled: boolean;
      /**
       * Nothing this call sent can have run upstream: every attempt it made was refused before the
       * Idempotency-Key's record (429, 401, 403, a status the upstream never answers), aborted with
       * nothing charged (502), or never sent. Absent: it may have run.
       */
      ranNothing?: boolean;
    };

export interface Forwarder {
  readonly source: ResultSource;
  /** Never throws for anything the upstream could answer: every outcome is a ForwardResult. */
  forward(request: ForwardRequest): Promise<ForwardResult>;
  close(): Promise<void>;
}
