/** One call's outcome in a batch. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/**
 * Collects the calls made in one turn of the event loop (the requests that arrived together)
 * and hands them to `flush` at once, in order; `flush` settles each one (or throws to fail them
 * all). Both ledgers use it to write a turn's operations together: one commit (and on
 * PostgreSQL one round trip) for several operations instead of one each.
 */
export function perTurn<I, O>(flush: (inputs: I[]) => Promise<Settled<O>[]>): (input: I) => Promise<O> {
  let queue: { input: I; resolve(value: O): void; reject(error: unknown): void }[] | undefined;
  const send = async (items: NonNullable<typeof queue>) => {
    let outcomes: Settled<O>[];
    try {
      outcomes = await flush(items.map((item) => item.input));
      if (outcomes.length !== items.length) throw new Error(`A batch of ${items.length} was settled with ${outcomes.length} outcomes.`);
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

/**
 * Settles `inputs` in groups of the same key (run side by side), each group in chunks of at most
 * `maxChunk` inputs (one after the other), and gives the outcomes back in the inputs' order.
 */
export async function inGroups<I, O>(
  inputs: I[],
  keyOf: (input: I) => string,
  maxChunk: number,
  settle: (chunk: I[]) => Promise<Settled<O>[]>,
): Promise<Settled<O>[]> {
  const groups = new Map<string, number[]>();
  inputs.forEach((input, index) => {
    const key = keyOf(input);
    const group = groups.get(key);
    if (group) group.push(index);
    else groups.set(key, [index]);
  });
  const outcomes: Settled<O>[] = new Array(inputs.length);
  await Promise.all(
    [...groups.values()].map(async (indexes) => {
      for (let from = 0; from < indexes.length; from += maxChunk) {
        const chunk = indexes.slice(from, from + maxChunk);
        const settled = await settle(chunk.map((index) => inputs[index]!)).catch((error: unknown) => chunk.map(() => ({ ok: false as const, error })));
        chunk.forEach((index, position) => (outcomes[index] = settled[position] ?? { ok: false, error: new Error('An operation of a batch was not settled.') }));
      }
    }),
  );
  return outcomes;
}

/** Settles each input on its own with `one`, all at once. */
export async function eachOnItsOwn<I, O>(inputs: I[], one: (input: I) => Promise<O>): Promise<Settled<O>[]> {
  return Promise.all(inputs.map((input) => one(input).then((value) => ({ ok: true as const, value }), (error: unknown) => ({ ok: false as const, error }))));
}
