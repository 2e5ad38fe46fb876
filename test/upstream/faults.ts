import { z } from 'zod';
import { PRODUCTS, type Product } from '@redline/shared';

/**
 * Injected faults, taken one at a time by the next matching request:
 * - `delay`: hold the request `delayMs` while it is in progress, then answer normally;
 * - `status`: answer 429 (with Retry-After), 502 (provider aborted, nothing charged) or
 *   503, either `before` the work (nothing recorded) or `after` it (output withheld, charge
 *   not yet recorded; an exact retry records the charge once and returns the output);
 * - `drop-before`: close the connection before any processing;
 * - `drop-after`: do the work, charge and store the response, then close the connection;
 * - `alter-facts`: the humanizer changes numbers and links in its rewrite, as a careless
 *   provider might, so that clients' review aids can be tested.
 */
export const Fault = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('delay'), delayMs: z.number().int().positive() }),
  z.object({
    kind: z.literal('status'),
    status: z.union([z.literal(429), z.literal(502), z.literal(503)]),
    phase: z.enum(['before', 'after']).default('before'),
    retryAfterSeconds: z.number().int().nonnegative().default(1),
    delayMs: z.number().int().nonnegative().default(0),
  }),
  z.object({ kind: z.literal('drop-before') }),
  /** A humanizer that does not keep facts: numbers go up by one and links change. */
  z.object({ kind: z.literal('alter-facts') }),
  z.object({ kind: z.literal('drop-after'), delayMs: z.number().int().nonnegative().default(0) }),
]);
export type Fault = z.infer<typeof Fault>;

export const FaultRequest = z.object({
  fault: Fault,
  /** Only requests to this product take the fault; any product when absent. */
  product: z.enum(PRODUCTS).optional(),
  /** How many requests take it. */
  times: z.number().int().positive().default(1),
});
export type FaultRequest = z.input<typeof FaultRequest>;

interface QueuedFault {
  fault: Fault;
  product: Product | undefined;
  remaining: number;
}

export class FaultQueue {
  #queue: QueuedFault[] = [];

  add(request: FaultRequest): void {
    const parsed = FaultRequest.parse(request);
    this.#queue.push({ fault: parsed.fault, product: parsed.product, remaining: parsed.times });
  }

  /** The first queued fault for this product, used up by one request. */
  take(product: Product): Fault | undefined {
    const index = this.#queue.findIndex((queued) => queued.product === undefined || queued.product === product);
    if (index < 0) return undefined;
    const queued = this.#queue[index]!;
    if (--queued.remaining === 0) this.#queue.splice(index, 1);
    return queued.fault;
  }

  get pending(): number {
    return this.#queue.reduce((sum, queued) => sum + queued.remaining, 0);
  }

  clear(): void {
    this.#queue = [];
  }
}
