import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { OffsetMap } from '../src/text.ts';
import { splitSentences } from '../src/sentences.ts';
import { sentenceGrams, type SentenceGrams } from '../src/analysis/detector/features.ts';

/** The labelled corpus (../shared/data/detector-corpus, beside the repository), read for training and evaluation only. */

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const DEFAULT_CORPUS = path.resolve(repoRoot, '../shared/data/detector-corpus/train.jsonl');

const Row = z.object({
  id: z.string(),
  corpus: z.string(),
  generator: z.string(),
  label: z.enum(['human', 'ai', 'mixed']),
  aiFrom: z.number().int().nonnegative().optional(),
  text: z.string(),
});
export type Row = z.infer<typeof Row>;

export interface LabelledText {
  id: string;
  corpus: string;
  generator: string;
  label: Row['label'];
  /** Texts that share a human source (one prompt, one human start) share a group. */
  group: string;
  sentences: string[];
  /** Sentence lengths in code points. */
  lengths: number[];
  /** 1 for machine-written sentences. */
  sentenceLabels: Uint8Array;
  grams: SentenceGrams[];
}

export function readRows(file = process.env.DETECTOR_CORPUS ?? DEFAULT_CORPUS): Row[] {
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`Cannot read the detector corpus at ${file} (${(error as Error).message}). Put the shared data beside the repository or set DETECTOR_CORPUS.`);
  }
  return content
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, index) => {
      const parsed = Row.safeParse(JSON.parse(line));
      if (!parsed.success) throw new Error(`${file}:${index + 1}: ${parsed.error.message}`);
      if (parsed.data.label === 'mixed' && parsed.data.aiFrom === undefined) throw new Error(`${file}:${index + 1}: a mixed text needs aiFrom`);
      return parsed.data;
    });
}

function groupOf(row: Row): string {
  if (row.corpus === 'outfox') return `outfox:${row.id.split('-').at(-1)}`; // the essays of one prompt share a number
  const humanPart = row.label === 'mixed' ? row.text.slice(0, row.aiFrom) : row.text;
  return `${row.corpus}:${humanPart.trim().slice(0, 80)}`;
}

/**
 * A sentence is machine-written when most of its characters lie at or after `aiFrom`
 * (offsets are code points, like the contract's).
 */
export function labelText(row: Row): LabelledText {
  const offsets = new OffsetMap(row.text);
  const spans = splitSentences(row.text);
  const sentenceLabels = new Uint8Array(spans.length);
  const lengths: number[] = [];
  spans.forEach((span, i) => {
    const start = offsets.toCodePoint(span.start);
    const end = offsets.toCodePoint(span.end);
    lengths.push(end - start);
    if (row.label === 'ai') sentenceLabels[i] = 1;
    else if (row.label === 'mixed') {
      const machine = Math.max(0, end - Math.max(start, row.aiFrom!));
      sentenceLabels[i] = machine * 2 > end - start ? 1 : 0;
    }
  });
  const sentences = spans.map((span) => span.text);
  return {
    id: row.id,
    corpus: row.corpus,
    generator: row.generator,
    label: row.label,
    group: groupOf(row),
    sentences,
    lengths,
    sentenceLabels,
    grams: sentences.map((sentence) => sentenceGrams(sentence)), // language features: per training set, see experiments.ts
  };
}

/** A stable fold number for a group (FNV-1a of its key). */
export function foldOf(group: string, folds: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < group.length; i++) h = Math.imul(h ^ group.charCodeAt(i), 0x01000193);
  return (h >>> 0) % folds;
}
