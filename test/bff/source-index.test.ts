import { mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SourceIndex, createPlagiarismChecker, plainArrays } from '@redline/shared/analysis';
import { createLogger } from '@redline/bff/logging';
import { OfflineForwarder } from '@redline/bff/offline/offline-forwarder';
import { loadSourceFolder, prepareSourceIndex, sourceFolderFingerprint } from '@redline/bff/offline/source-folder';
import { readSourceIndexFile, writeSourceIndexFile } from '@redline/bff/offline/source-index-file';
import { mulberry32, sentence, vocabulary } from '../bench/synthetic-text.ts';

// The offline source index is built once per folder, in a thread of its own, saved in the data
// folder and read back on the next start; every analysis thread reads the same shared copy.

const random = mulberry32(11);
const words = vocabulary(3_000, random);
const documentText = () => Array.from({ length: 12 }, () => sentence(words, random)).join(' ');

let folder: string;
let dataDir: string;
beforeEach(() => {
  folder = mkdtempSync(path.join(tmpdir(), 'redline-sources-'));
  dataDir = mkdtempSync(path.join(tmpdir(), 'redline-data-'));
  for (let d = 0; d < 40; d++) writeFileSync(path.join(folder, `doc-${d}.txt`), `https://sources.example/${d}\n${documentText()}`);
});
afterEach(() => {
  rmSync(folder, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

const indexFile = () => path.join(dataDir, 'source-index.bin');
const sentenceOf = (d: number, s: number) => readFileSync(path.join(folder, `doc-${d}.txt`), 'utf8').split('\n')[1]!.split(/(?<=\.) /u)[s]!;

describe('the saved index', () => {
  it('is written on the first start and read on the next, with the same answers', () => {
    const first = prepareSourceIndex({ folder, indexFile: indexFile() });
    expect(first.fromFile).toBe(false);
    expect(statSync(indexFile()).mode & 0o777).toBe(0o600);
    const second = prepareSourceIndex({ folder, indexFile: indexFile() });
    expect(second.fromFile).toBe(true);
    expect(second.sentences).toBe(first.sentences);
    const built = createPlagiarismChecker(new SourceIndex(first.data));
    const read = createPlagiarismChecker(new SourceIndex(second.data));
    const text = `${sentenceOf(3, 2)} Something of my own here. ${sentenceOf(31, 7)}`;
    expect(read(text)).toEqual(built(text));
    expect(read(text).results.filter((r) => r.is_plagiarised).map((r) => r.link)).toEqual(['https://sources.example/3', 'https://sources.example/31']);
  });

  it('is built again when a file is added, removed or edited, and then finds the new text', () => {
    prepareSourceIndex({ folder, indexFile: indexFile() });
    const added = 'Quarry workers cut the granite blocks by hand before the railway reached the valley.';
    writeFileSync(path.join(folder, 'new.md'), added);
    const afterAdd = prepareSourceIndex({ folder, indexFile: indexFile() });
    expect(afterAdd.fromFile).toBe(false);
    expect(createPlagiarismChecker(new SourceIndex(afterAdd.data))(added).results[0]).toMatchObject({ is_plagiarised: true, similarity: 1 });

    // Same size and name, new content and time: an edit.
    const file = path.join(folder, 'new.md');
    writeFileSync(file, added.replace('granite', 'marbles'));
    utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    expect(prepareSourceIndex({ folder, indexFile: indexFile() }).fromFile).toBe(false);
    rmSync(file);
    expect(prepareSourceIndex({ folder, indexFile: indexFile() }).fromFile).toBe(false);
    expect(prepareSourceIndex({ folder, indexFile: indexFile() }).fromFile).toBe(true);
  });

  it('a truncated or damaged file is ignored, never half read', () => {
    const fingerprint = sourceFolderFingerprint(folder);
    const data = new SourceIndex(loadSourceFolder(folder)).data;
    writeSourceIndexFile(indexFile(), fingerprint, data);
    const bytes = readFileSync(indexFile());
    expect(readSourceIndexFile(indexFile(), fingerprint, plainArrays)).toBeDefined();
    expect(readSourceIndexFile(indexFile(), 'another folder', plainArrays)).toBeUndefined();
    fc.assert(
      fc.property(fc.integer({ min: 0, max: bytes.length - 1 }), (cut) => {
        writeFileSync(indexFile(), bytes.subarray(0, cut));
        return readSourceIndexFile(indexFile(), fingerprint, plainArrays) === undefined;
      }),
      { numRuns: 60 },
    );
    writeFileSync(indexFile(), Buffer.concat([bytes, Buffer.from([0])]));
    expect(readSourceIndexFile(indexFile(), fingerprint, plainArrays)).toBeUndefined();
  });

  it('any corpus reads back from the file with the same matches (property)', () => {
    const corpusArbitrary = fc.array(
      fc.record({ link: fc.webUrl(), text: fc.array(fc.constantFrom(...words.slice(0, 200), 'é', 'naïve', '日本語', '🙂'), { minLength: 3, maxLength: 40 }).map((w) => `${w.join(' ')}.`) }),
      { minLength: 1, maxLength: 8 },
    );
    fc.assert(
      fc.property(corpusArbitrary, (corpus) => {
        const data = new SourceIndex(corpus).data;
        writeSourceIndexFile(indexFile(), 'f', data);
        const read = readSourceIndexFile(indexFile(), 'f', plainArrays)!;
        const before = createPlagiarismChecker(new SourceIndex(data));
        const after = createPlagiarismChecker(new SourceIndex(read));
        return corpus.every((document) => JSON.stringify(after(document.text)) === JSON.stringify(before(document.text)));
      }),
      { numRuns: 40 },
    );
  });
});

describe('the offline forwarder', () => {
  it('indexes the folder in the background, saves the index, and a second forwarder reads it', async () => {
    const check = async (forwarder: OfflineForwarder, text: string) => {
      const outcome = await forwarder.forward({ product: 'plagiarism', idempotencyKey: 'k'.repeat(32), body: JSON.stringify({ text }) });
      expect(outcome.ok).toBe(true);
      return outcome.ok ? outcome.body : undefined;
    };
    const text = `${sentenceOf(5, 1)} A line nobody copied from anywhere at all.`;
    const first = new OfflineForwarder({ logger: createLogger('silent'), threads: 1, sourcesDir: folder, sourceIndexFile: indexFile() });
    let firstAnswer;
    try {
      expect(await first.sourcesReady()).toBe(true);
      firstAnswer = await check(first, text);
    } finally {
      await first.close();
    }
    const saved = statSync(indexFile()).mtimeMs;
    const second = new OfflineForwarder({ logger: createLogger('silent'), threads: 1, sourcesDir: folder, sourceIndexFile: indexFile() });
    try {
      expect(await check(second, text)).toEqual(firstAnswer);
      expect(statSync(indexFile()).mtimeMs).toBe(saved); // read, not written again
    } finally {
      await second.close();
    }
    expect(JSON.stringify(firstAnswer)).toContain('https://sources.example/5');
  });

  it('a folder that cannot be read fails source checks with a clear error; other checks go on', async () => {
    const forwarder = new OfflineForwarder({ logger: createLogger('silent'), threads: 1, sourcesDir: path.join(folder, 'missing'), sourceIndexFile: indexFile() });
    try {
      expect(await forwarder.sourcesReady()).toBe(false);
      const refused = await forwarder.forward({ product: 'plagiarism', idempotencyKey: 'k'.repeat(32), body: JSON.stringify({ text: 'Any text at all.' }) });
      expect(refused.ok).toBe(false);
      if (!refused.ok) expect(refused.error.body.message).toMatch(/source folder could not be indexed/);
      const detected = await forwarder.forward({ product: 'detector', idempotencyKey: 'k'.repeat(32), body: JSON.stringify({ text: 'Any text at all.', version: 'v3' }) });
      expect(detected.ok).toBe(true);
    } finally {
      await forwarder.close();
    }
  });
});
