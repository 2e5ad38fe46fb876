/**
 * Benchmark: splitting a 1,000,000-character document into upstream parts and merging the
 * parts' results back (detector, humanizer, plagiarism), in three shapes: one paragraph of
 * sentences, words without a sentence end, and one single word. The target is 50 ms for
 * split + merge on any shape.
 *
 *   npm run bench:split [-- --runs 20]
 */
import { parseArgs } from 'node:util';
import { countCharacters, type DetectResponseLegacy, type HumanizeResponse, type PlagiarismResponse } from '@redline/shared';
import { mergeDetections, mergeHumanizations, mergePlagiarismChecks, splitDocument, type SplitDocument } from '@redline/bff/operations/documents';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '20' } } });
const runs = Number(values.runs);
const CHARACTERS = 1_000_000;

const SHAPES: Record<string, string> = {
  'one paragraph': 'The quick brown fox jumps over the lazy dog near the riverbank. '.repeat(Math.ceil(CHARACTERS / 64)).slice(0, CHARACTERS),
  'no sentence ends': 'word '.repeat(CHARACTERS / 5),
  'one word': 'a'.repeat(CHARACTERS),
};

/** Results shaped like the upstream's for each part: a detector chunk every ~200 characters. */
function partResults(document: SplitDocument) {
  const detections: DetectResponseLegacy[] = [];
  const rewrites: HumanizeResponse[] = [];
  const checks: PlagiarismResponse[] = [];
  for (const part of document.parts) {
    const length = countCharacters(part.text);
    const chunks = [];
    for (let start = 0; start < length; start += 200) {
      const end = Math.min(length, start + 200);
      chunks.push({ text: part.text.slice(start, end), startChar: start, endChar: end, type: start % 400 === 0 ? 'AI' : 'Human', score: 0.5 });
    }
    detections.push({ success: true, data: { details: { chunks, ai_percentage: 50 }, version: 'v3', words_processed: 1 } } as DetectResponseLegacy);
    rewrites.push({ humanized_text: part.text, words_processed: 1, model_used: 'lexi' });
    checks.push({ result: { results: [], plagiarism_score: 0 }, words_processed: 1 });
  }
  return { detections, rewrites, checks };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

console.log(`\nSplit and merge of ${CHARACTERS.toLocaleString('en-US')} characters, median of ${runs} runs, Node ${process.version}\n`);
console.log('| shape | parts | split (ms) | merge detector + humanizer + plagiarism (ms) | split + merge (ms) | slowest run (ms) |');
console.log('|---|---|---|---|---|---|');
for (const [shape, text] of Object.entries(SHAPES)) {
  const splits: number[] = [];
  const merges: number[] = [];
  const totals: number[] = [];
  let parts = 0;
  for (let run = 0; run < runs + 3; run++) {
    const started = performance.now();
    const document = splitDocument(text);
    const split = performance.now();
    const { detections, rewrites, checks } = partResults(document);
    const mergeStarted = performance.now();
    mergeDetections(document, detections);
    mergeHumanizations(document, rewrites);
    mergePlagiarismChecks(document, checks);
    const merged = performance.now();
    parts = document.parts.length;
    if (run < 3) continue; // warm-up
    splits.push(split - started);
    merges.push(merged - mergeStarted);
    totals.push(split - started + merged - mergeStarted);
  }
  console.log(
    `| ${shape} | ${parts} | ${median(splits).toFixed(1)} | ${median(merges).toFixed(1)} | ${median(totals).toFixed(1)} | ${Math.max(...totals).toFixed(1)} |`,
  );
}
