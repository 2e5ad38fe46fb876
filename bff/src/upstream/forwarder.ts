import type { Product, ResultSource } from '@redline/shared';
import type { HttpError } from '../errors.ts';

/** One logical operation, as sent upstream: the same key and bytes on every attempt. */
export interface ForwardRequest {
  product: Product;
  idempotencyKey: string;
  body: string;
  /** The upstream key the operation started with (see keyring.ts); null: the active one. */
  upstreamKeyId?: string | null;
  signal?: AbortSignal;
}

export type ForwardResult =
  | { ok: true; body: unknown; acceptedKey?: string; acceptedKeySource?: string }
  /**
   * `settled`: the answer is final for this key (the upstream refused it and nothing is
   * running). Otherwise the outcome is unknown or temporary and the operation stays pending,
   * to be resumed with the same key.
   */
  | { ok: false; error: HttpError; settled: boolean };

export interface Forwarder {
  readonly source: ResultSource;
  /** Never throws for anything the upstream could answer: every outcome is a ForwardResult. */
  forward(request: ForwardRequest): Promise<ForwardResult>;
  close(): Promise<void>;
}
