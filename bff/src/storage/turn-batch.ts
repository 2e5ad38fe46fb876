/** One call's outcome in a batch. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/**
 * Collects the calls made in one turn of the event loop (the requests that arrived together)
 * and hands them to `flush` at once, in order; `flush` settles each one (or throws to fail them
 * all). The PostgreSQL ledger uses it to write a turn's operations in one statement: one round
 * trip and one commit instead of one per operation.
 */
export function perTurn<I, O>(flush: (inputs: I[]) => Promise<Settled<O>[]>): (input: I) => Promise<O> {
  let queue: { input: I; resolve(value: O): void; reject(error: unknown): void }[] | undefined;
  const send = async (items: NonNullable<typeof queue>) => {
    let outcomes: Settled<O>[];
    try {
      outcomes = await flush(items.map((item) => item.input));
    } catch (error) {
      for (const item of items) item.reject(error);
      return;
    }
    items.forEach((item, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  };
  return (input) =>
    new Promise<O>((resolve, reject) => {
      if (!queue) {
        queue = [];
        setImmediate(() => {
          const items = queue!;
          queue = undefined;
          void send(items);
        });
      }
      queue.push({ input, resolve, reject });
    });
}

/** Settles each input on its own with `one`, all at once. */
export async function eachOnItsOwn<I, O>(inputs: I[], one: (input: I) => Promise<O>): Promise<Settled<O>[]> {
  return Promise.all(inputs.map((input) => one(input).then((value) => ({ ok: true as const, value }), (error: unknown) => ({ ok: false as const, error }))));
}
