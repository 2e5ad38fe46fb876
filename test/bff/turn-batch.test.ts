import { describe, expect, it } from 'vitest';
import { perTurn } from '../../bff/src/storage/turn-batch.ts';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A perTurn whose flush records the batches it was given and settles each call with its input. */
function recording() {
  const batches: string[][] = [];
  const call = perTurn<string, string>(async (inputs) => {
    batches.push(inputs);
    return inputs.map((value) => ({ ok: true as const, value }));
  });
  return { call, batches };
}

describe('perTurn', () => {
  it('flushes the calls of one turn together, in order', async () => {
    const { call, batches } = recording();
    expect(await Promise.all([call('a'), call('b'), call('c')])).toEqual(['a', 'b', 'c']);
    expect(batches).toEqual([['a', 'b', 'c']]);
  });

  it('without gathering, a call made a turn later goes in a batch of its own', async () => {
    const { call, batches } = recording();
    await Promise.all([call('a'), call('b')]);
    const c = call('c');
    await nextTurn();
    await Promise.all([c, call('d')]);
    expect(batches).toEqual([['a', 'b'], ['c'], ['d']]);
  });
});
