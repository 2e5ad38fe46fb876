import { expect, it } from 'vitest';
import { MIXED_TEXT } from '../upstream/fixtures.ts';
import { newOperationId, startHarness } from './harness.ts';

// At the default level completed operations are summed up, not logged one line each (a line
// per operation was ~5% of the BFF's CPU under load); at debug each one is still logged.

it('sums completed operations up in one info line instead of a line per operation', async () => {
  const h = await startHarness();
  let charged = 0;
  try {
    for (let i = 0; i < 3; i++) {
      const response = await h.call('/v1/detect', { operationId: newOperationId(), text: MIXED_TEXT });
      expect(response.status).toBe(200);
      charged += response.body.wordsCharged;
    }
  } finally {
    // Stopping flushes the summary the interval would have written.
    await h.close();
  }
  const entries = h.logs.lines.map((line) => JSON.parse(line) as { msg: string; operationId?: string; operations?: number; wordsCharged?: number; byProduct?: unknown });
  expect(entries.filter((entry) => entry.msg === 'operation completed')).toEqual([]);
  const summaries = entries.filter((entry) => entry.msg === 'operations completed');
  expect(summaries).toHaveLength(1);
  expect(summaries[0]).toMatchObject({ operations: 3, wordsCharged: charged, byProduct: { 'detector:upstream': { operations: 3, wordsCharged: charged } } });
});

it('still logs each operation at debug', async () => {
  const h = await startHarness({ env: { BFF_LOG_LEVEL: 'debug' } });
  const operationId = newOperationId();
  try {
    expect((await h.call('/v1/detect', { operationId, text: MIXED_TEXT })).status).toBe(200);
  } finally {
    await h.close();
  }
  const entry = h.logs.lines.map((line) => JSON.parse(line) as { msg: string; operationId?: string; level: number }).find((candidate) => candidate.msg === 'operation completed');
  expect(entry).toMatchObject({ operationId, level: 20 });
});
