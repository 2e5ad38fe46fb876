import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BffDetectResponse, BffHumanizeResponse, BffPlagiarismResponse } from '@redline/shared';
import { detect } from '@redline/shared/analysis';
import { MIXED_TEXT } from '../upstream/fixtures.ts';
import { createLogger } from '@redline/bff/logging';
import { OfflineForwarder } from '@redline/bff/offline/offline-forwarder';
import { newOperationId, startHarness, type Harness } from './harness.ts';

// Offline mode: no upstream key configured; the same API from the built-in analyzers.

let h: Harness;
let sources: string;
const SOURCE = 'Lighthouses guided sailors along dangerous coasts for centuries before satellite navigation existed.';

beforeAll(async () => {
  sources = mkdtempSync(path.join(tmpdir(), 'redline-sources-'));
  writeFileSync(path.join(sources, 'lighthouses.txt'), `https://library.example.org/lighthouses\n${SOURCE}\nMost are now automated.`);
  writeFileSync(path.join(sources, 'notes.md'), 'Tea was first drunk in China thousands of years ago.');
  writeFileSync(path.join(sources, 'ignored.bin'), 'not a source');
  h = await startHarness({ offline: true, env: { BFF_OFFLINE_SOURCES_DIR: sources } });
});
afterAll(async () => {
  await h.close();
  rmSync(sources, { recursive: true, force: true });
});

it('serves every product locally, marked offline, with the upstream shapes', async () => {
  const detection = BffDetectResponse.parse((await h.call('/v1/detect', { operationId: newOperationId(), text: MIXED_TEXT })).body);
  expect(detection).toMatchObject({ source: 'offline', replayed: false });
  // The local trained detector's answer (shared code), sentence for sentence.
  const local = detect(MIXED_TEXT);
  expect(detection.result.data.details.chunks?.map((chunk) => [chunk.type, chunk.score])).toEqual(local.chunks.map((chunk) => [chunk.type, chunk.score]));
  expect(detection.result.data.details.ai_percentage).toBe(local.ai_percentage);

  const text = 'It is important to note that Ada Lovelace published 3 notes in 1843 (see https://example.org/ada), as "the Analytical Engine weaves algebraic patterns" shows.';
  const rewrite = BffHumanizeResponse.parse((await h.call('/v1/humanize', { operationId: newOperationId(), text, model: 'cognia_v2' })).body);
  expect(rewrite.source).toBe('offline');
  expect(rewrite.result.humanized_text).not.toBe(text);
  for (const kept of ['Ada Lovelace', '3 notes', '1843', 'https://example.org/ada', '"the Analytical Engine weaves algebraic patterns"']) {
    expect(rewrite.result.humanized_text).toContain(kept);
  }
});

it('checks sources against the local folder', async () => {
  const response = await h.call('/v1/plagiarism', {
    operationId: newOperationId(),
    text: `My own opening line about the sea. Lighthouses guided sailors along dangerous coasts for centuries before satellite navigation.`,
  });
  const { result } = BffPlagiarismResponse.parse(response.body);
  expect(result.result.results).toHaveLength(1);
  expect(result.result.results[0]).toMatchObject({ is_plagiarised: true, web_sentence: SOURCE, link: 'https://library.example.org/lighthouses' });
  const tea = BffPlagiarismResponse.parse((await h.call('/v1/plagiarism', { operationId: newOperationId(), text: 'Tea was first drunk in China thousands of years ago.' })).body);
  expect(tea.result.result.results[0]?.link).toMatch(/^file:\/\/.*notes\.md$/);
});

it('replays and meters like the upstream mode', async () => {
  const operationId = newOperationId();
  await h.call('/v1/detect', { operationId, text: 'Just a short note.' });
  expect((await h.call('/v1/detect', { operationId, text: 'Just a short note.' })).body.replayed).toBe(true);
  const usage = (await h.call('/v1/usage')).body;
  expect(usage.mode).toBe('offline');
  expect(usage.products.detector.wordsCharged).toBeGreaterThan(4);
  expect((await h.call('/readyz', undefined, { token: null })).body.mode).toBe('offline');
});

it('the offline forwarder refuses what the upstream refuses with HTTP-style errors, never a thrown ZodError', async () => {
  const forwarder = new OfflineForwarder({ logger: createLogger('silent'), threads: 1 });
  try {
    for (const text of ['\u0085', '  \n ', '\uFEFF'.repeat(160_001)]) {
      const outcome = await forwarder.forward({ product: 'detector', idempotencyKey: 'k'.repeat(32), body: JSON.stringify({ text, version: 'v3' }) });
      expect(outcome.ok).toBe(false);
      if (outcome.ok) continue;
      expect(outcome.settled).toBe(true);
      expect(outcome.error.status).toBe(400);
      expect(outcome.error.body.code).toBe('invalid_request');
      expect(outcome.error.body.fields?.text).toBeTruthy();
    }
    const accepted = await forwarder.forward({ product: 'plagiarism', idempotencyKey: 'k'.repeat(32), body: JSON.stringify({ text: '\uFEFF'.repeat(160_000) }) });
    expect(accepted.ok).toBe(true);
  } finally {
    await forwarder.close();
  }
});

it('answers each detector version in the upstream double\'s shape: v1 without sentence detail (shared/CONTRACT.md)', async () => {
  for (const version of ['v1', 'v2', 'v3'] as const) {
    const detection = BffDetectResponse.parse((await h.call('/v1/detect', { operationId: newOperationId(), text: MIXED_TEXT, version })).body);
    expect(detection.source).toBe('offline');
    expect(detection.result.data.version).toBe(version);
    expect('chunks' in detection.result.data.details, version).toBe(version !== 'v1');
  }
});
