import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SourceIndex, createPlagiarismChecker, sharedArrays, type SourceDocument } from '@redline/shared/analysis';
import { readSourceIndexFile, writeSourceIndexFile } from '@redline/bff/offline/source-index-file';
import { mulberry32, sentence, vocabulary } from './synthetic-text.ts';

/**
 * `npm run bench:plagiarism`: the offline source check on 10,000 source documents of ~500
 * words and a 10,000-word text, half of whose sentences come from the sources (a third of those
 * with one word changed). Prints index build time, check time and how many copied sentences
 * were found. Deterministic data; times vary with the machine.
 */

const DOCUMENTS = Number(process.env.DOCUMENTS ?? 10_000);
const TEXT_WORDS = Number(process.env.TEXT_WORDS ?? 10_000);
const random = mulberry32(15);
const words = vocabulary(40_000, random);

const corpus: SourceDocument[] = [];
let sourceWords = 0;
for (let d = 0; d < DOCUMENTS; d++) {
  const sentences: string[] = [];
  let count = 0;
  while (count < 500) {
    const s = sentence(words, random);
    count += s.split(' ').length;
    sentences.push(s);
  }
  sourceWords += count;
  corpus.push({ link: `https://sources.example/${d}`, text: sentences.join(' ') });
}

const parts: string[] = [];
const copied: Array<{ text: string; link: string }> = [];
let textWords = 0;
while (textWords < TEXT_WORDS) {
  let s: string;
  if (random() < 0.5) {
    const d = Math.floor(random() * corpus.length);
    const doc = corpus[d]!;
    const sourceSentences = doc.text.split(/(?<=\.) /u);
    s = sourceSentences[Math.floor(random() * sourceSentences.length)]!;
    if (random() < 1 / 3) {
      const tokens = s.split(' ');
      tokens[1 + Math.floor(random() * (tokens.length - 2))] = 'changed';
      s = tokens.join(' ');
    }
    copied.push({ text: s, link: doc.link });
  } else s = sentence(words, random);
  parts.push(s);
  textWords += s.split(' ').length;
}
const text = parts.join(' ');

let started = performance.now();
const index = new SourceIndex(corpus);
const buildMs = performance.now() - started;
// What a restart costs instead: the index saved in the data folder, read back onto shared memory.
const file = path.join(mkdtempSync(path.join(tmpdir(), 'redline-index-')), 'source-index.bin');
started = performance.now();
writeSourceIndexFile(file, 'bench', index.data);
const writeMs = performance.now() - started;
started = performance.now();
const read = readSourceIndexFile(file, 'bench', sharedArrays)!;
const readMs = performance.now() - started;
const fileMiB = statSync(file).size / 2 ** 20;
rmSync(path.dirname(file), { recursive: true, force: true });
const check = createPlagiarismChecker(new SourceIndex(read));
check(text); // warm-up
const runs: number[] = [];
let result = check(text);
for (let i = 0; i < 5; i++) {
  started = performance.now();
  result = check(text);
  runs.push(performance.now() - started);
}
runs.sort((a, b) => a - b);
const flagged = new Map(result.results.filter((r) => r.is_plagiarised).map((r) => [r.sentence, r.link]));
const found = copied.filter((c) => flagged.get(c.text) === c.link).length;

console.log(`sources: ${DOCUMENTS} documents, ${sourceWords} words, ${index.sentences} sentences; text: ${textWords} words`);
console.log(`index build: ${(buildMs / 1000).toFixed(2)} s; saved in ${writeMs.toFixed(0)} ms (${fileMiB.toFixed(0)} MiB), read back in ${readMs.toFixed(0)} ms`);
console.log(`check: median ${runs[2]!.toFixed(0)} ms, max ${runs[4]!.toFixed(0)} ms (5 runs)`);
console.log(`copied sentences flagged with the right link: ${found} of ${copied.length}; false flags: ${flagged.size - found}`);
