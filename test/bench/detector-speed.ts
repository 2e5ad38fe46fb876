import { detect } from '@redline/shared/analysis';
import { mulberry32, sentence, vocabulary } from './synthetic-text.ts';

/**
 * `npm run bench:detector`: sentences per second through the offline detector (v3, the
 * trained model), on texts at the 160,000-character limit. Sentence splitting and offsets
 * included: this is `detect()` as the BFF calls it.
 */

const random = mulberry32(15);
const words = vocabulary(20_000, random);
const texts: string[] = [];
for (let t = 0; t < 5; t++) {
  let text = '';
  while (text.length < 150_000) text += `${sentence(words, random)}${random() < 0.15 ? '\n\n' : ' '}`;
  texts.push(text);
}

detect(texts[0]!); // warm-up: loads the weights
let sentences = 0;
const started = performance.now();
for (const text of texts) sentences += detect(text).chunks.length;
const seconds = (performance.now() - started) / 1000;
console.log(`detector v3: ${sentences} sentences in ${seconds.toFixed(2)} s = ${Math.round(sentences / seconds)} sentences/s (${texts.length} texts of ~150,000 characters)`);
