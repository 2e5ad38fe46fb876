import { sentenceVector, STYLE_FEATURES, type SentenceGrams, type SparseVector } from '../src/analysis/detector/features.ts';
import { decodeTable, decodeWeights, encodeTable, encodeWeights } from '../src/analysis/detector/model.ts';
import { foldOf, type LabelledText } from './corpus.ts';
import { buildLanguageTables, loadTexts, readWith, splicedTexts } from './experiments.ts';
import { DEFAULT_TRAIN_OPTIONS, trainLogistic } from './logistic.ts';
import { auroc, type Scored } from './metrics.ts';
import { TrigramModel, words } from './ngram-lm.ts';

/**
 * `npm run eval:detector:ngram-lm [-- base|perplexity|ratio|both]`: the LOCO sentence and
 * spliced figures of eval:detector:loco with extra dense features from word trigram language
 * models learnt in each training split (not shipped; see the README, "Detector: what else was
 * tried"):
 * - perplexity: one model of all training sentences; a sentence's mean log-probability per
 *   word and its mean gain over the unigram estimate (how predictable the words are from the
 *   two before them), a GLTR-like signal;
 * - ratio: one model of machine and one of human sentences; the mean, minimum and spread of the
 *   per-word log-ratio;
 * each with the mean over the ±4 neighbours. Training texts are read by models learnt without
 * their third of the source groups (cross-fitted; read in-sample the models know every
 * training trigram; IN_SAMPLE=1 reads them so). Also prints the held-out sentence logits normalised within each document
 * (minus a share of the document's mean logit, or z-scored), and, with MASK=t, a model trained
 * without the hashed features whose weights point different ways (beyond ±t) in models learnt
 * on each training corpus alone.
 */

type Mode = 'base' | 'perplexity' | 'ratio' | 'both';
const mode = (process.argv[2] ?? 'both') as Mode;
if (!['base', 'perplexity', 'ratio', 'both'].includes(mode)) throw new Error(`unknown mode ${mode}`);
const inSample = process.env.IN_SAMPLE === '1';
const mask = process.env.MASK === undefined ? undefined : Number(process.env.MASK);

/** Extra features of a sentence, in order; placed after the style features like them. */
type Extra = number[];
const NEIGHBOURS = 4;

interface Models {
  pooled?: TrigramModel;
  classes?: [human: TrigramModel, machine: TrigramModel];
}

const texts = loadTexts();
const wordsOf = new Map(texts.map((t) => [t.id, t.sentences.map(words)]));
const mean = (values: readonly number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

function learn(train: readonly LabelledText[]): Models {
  const models: Models = {};
  if (mode === 'perplexity' || mode === 'both') models.pooled = new TrigramModel();
  if (mode === 'ratio' || mode === 'both') models.classes = [new TrigramModel(), new TrigramModel()];
  for (const text of train) {
    wordsOf.get(text.id)!.forEach((sentence, i) => {
      models.pooled?.add(sentence);
      models.classes?.[text.sentenceLabels[i]!]!.add(sentence);
    });
  }
  return models;
}

function ownExtra(models: Models, sentence: readonly string[]): Extra {
  const extra: Extra = [];
  if (models.pooled) {
    const { trigram, unigram } = models.pooled.logProbabilities(sentence);
    extra.push((mean(trigram) + 7) / 2, mean(trigram.map((v, i) => v - unigram[i]!)) / 2);
  }
  if (models.classes) {
    const human = models.classes[0].logProbabilities(sentence).trigram;
    const ratio = models.classes[1].logProbabilities(sentence).trigram.map((v, i) => v - human[i]!);
    const m = mean(ratio);
    extra.push(m / 2, Math.max(Math.min(...ratio), -10) / 5, Math.sqrt(mean(ratio.map((v) => (v - m) ** 2))) / 3);
  }
  return extra;
}

/** Own features followed by the unweighted mean of the neighbours' first ones (mean log-probability, gain, mean ratio). */
function withNeighbours(own: readonly Extra[]): Extra[] {
  const keys = mode === 'both' ? [0, 1, 2] : mode === 'perplexity' ? [0, 1] : [0];
  return own.map((extra, i) => {
    const near: Extra[] = [];
    for (let d = -NEIGHBOURS; d <= NEIGHBOURS; d++) if (d !== 0 && own[i + d]) near.push(own[i + d]!);
    return [...extra, ...keys.map((k) => (near.length === 0 ? 0 : mean(near.map((e) => e[k]!))))];
  });
}

const vectorWith = (extras: readonly Extra[], masked?: Uint8Array) => (sentences: readonly SentenceGrams[], at: number): SparseVector => {
  const base = sentenceVector(sentences, at);
  const extra = extras[at] ?? [];
  let indices = Int32Array.from([...base.indices, ...extra.map((_, k) => STYLE_FEATURES.length + k)]);
  let values = Float32Array.from([...base.values, ...extra]);
  if (masked) {
    const keep = [...indices.keys()].filter((k) => !masked[indices[k]!]);
    indices = Int32Array.from(keep, (k) => indices[k]!);
    values = Float32Array.from(keep, (k) => values[k]!);
  }
  return { indices, values };
};

// Extras are looked up by the text's grams array (spliced texts get their own).
const extrasOf = new WeakMap<readonly SentenceGrams[], Extra[]>();
const vector = (masked?: Uint8Array) => (sentences: readonly SentenceGrams[], at: number) => vectorWith(extrasOf.get(sentences) ?? [], masked)(sentences, at);

function maskOf(read: readonly LabelledText[]): Uint8Array | undefined {
  if (mask === undefined) return undefined;
  const corpora = [...new Set(read.map((t) => t.corpus))].sort();
  const perCorpus = corpora.map((c) => trainLogistic(read.filter((t) => t.corpus === c), DEFAULT_TRAIN_OPTIONS, vector()));
  const masked = new Uint8Array(perCorpus[0]!.length);
  for (let i = STYLE_FEATURES.length; i < masked.length; i++) {
    const ws = perCorpus.map((w) => w[i]!);
    if (Math.min(...ws) < -mask && Math.max(...ws) > mask) masked[i] = 1;
  }
  return masked;
}

const NORMALISATIONS: Record<string, (z: number, docMean: number, docSd: number) => number> = {
  'minus 0.25 mean': (z, m) => z - 0.25 * m,
  'minus 0.5 mean': (z, m) => z - 0.5 * m,
  'minus mean': (z, m) => z - m,
  'z-score': (z, m, sd) => (z - m) / (sd || 1),
};
const columns = ['sentence', 'spliced', ...Object.keys(NORMALISATIONS)];
const scored = new Map(columns.map((c) => [c, new Map<string, Scored[]>()]));
const push = (column: string, generator: string, items: Scored[]) => {
  const map = scored.get(column)!;
  map.set(generator, [...(map.get(generator) ?? []), ...items]);
};

for (const corpus of [...new Set(texts.map((t) => t.corpus))].sort()) {
  const started = Date.now();
  const trainTexts = texts.filter((t) => t.corpus !== corpus);
  const raw = buildLanguageTables(trainTexts);
  const tables = { logProbability: decodeTable(encodeTable(raw.logProbability)), logRatio: decodeTable(encodeTable(raw.logRatio)) };
  const train = readWith(trainTexts, tables);
  const test = readWith(texts.filter((t) => t.corpus === corpus), tables);
  if (mode !== 'base') {
    const parts = [0, 1, 2].map((fold) => learn(trainTexts.filter((t) => foldOf(t.group, 3) !== fold)));
    const all = learn(trainTexts);
    const reader = (t: LabelledText) => (inSample ? all : parts[foldOf(t.group, 3)]!);
    for (const t of train) extrasOf.set(t.grams, withNeighbours(wordsOf.get(t.id)!.map((s) => ownExtra(reader(t), s))));
    for (const t of test) extrasOf.set(t.grams, withNeighbours(wordsOf.get(t.id)!.map((s) => ownExtra(all, s))));
  }
  const masked = maskOf(train);
  const encoded = encodeWeights(trainLogistic(train, DEFAULT_TRAIN_OPTIONS, vector(masked)));
  const weights = decodeWeights(encoded.weights, encoded.scale);
  const logits = (t: LabelledText) =>
    t.sentences.map((_, at) => {
      const { indices, values } = vector(masked)(t.grams, at);
      let z = 0;
      for (let k = 0; k < indices.length; k++) z += weights[indices[k]!]! * values[k]!;
      return z;
    });
  console.error(`  corpus ${corpus}: ${Date.now() - started} ms`);
  for (const generator of [...new Set(test.filter((t) => t.generator !== 'human').map((t) => t.generator))]) {
    if (texts.some((t) => t.generator === generator && t.label === 'mixed') && corpus !== 'seqxgpt-boundaries') continue;
    for (const t of test.filter((t) => t.generator === generator || t.generator === 'human')) {
      const z = logits(t);
      const m = mean(z);
      const sd = Math.sqrt(mean(z.map((v) => (v - m) ** 2)));
      const label = (i: number) => t.sentenceLabels[i] === 1;
      push('sentence', generator, z.map((score, i) => ({ score, positive: label(i) })));
      for (const [name, f] of Object.entries(NORMALISATIONS)) push(name, generator, z.map((v, i) => ({ score: f(v, m, sd), positive: label(i) })));
    }
  }
  for (const t of splicedTexts(test, 99)) {
    if (mode !== 'base') {
      const ids = t.id.split('+');
      const sources = ids.map((id) => test.find((x) => x.id === id)!);
      const own = t.grams.map((g) => {
        for (const s of sources) {
          const at = s.grams.indexOf(g);
          if (at >= 0) return extrasOf.get(s.grams)![at]!.slice(0, mode === 'both' ? 5 : mode === 'perplexity' ? 2 : 3);
        }
        throw new Error('spliced sentence without a source');
      });
      extrasOf.set(t.grams, withNeighbours(own));
    }
    push('spliced', t.generator, logits(t).map((score, i) => ({ score, positive: t.sentenceLabels[i] === 1 })));
  }
}

const generators = [...scored.get('sentence')!.keys()].sort();
console.log(`mode ${mode}${inSample ? ', read in-sample' : ''}${mask === undefined ? '' : `, mask ±${mask}`}: LOCO sentence AUROC (trained model alone)`);
console.log(['generator'.padEnd(18), ...columns.map((c) => c.padStart(16))].join(''));
const cell = (column: string, generator: string) => auroc(scored.get(column)!.get(generator) ?? []);
for (const g of generators) console.log([g.padEnd(18), ...columns.map((c) => cell(c, g).toFixed(3).padStart(16))].join(''));
console.log(['mean'.padEnd(18), ...columns.map((c) => mean(generators.map((g) => cell(c, g))).toFixed(3).padStart(16))].join(''));
