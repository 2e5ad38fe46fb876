import type { LabelledText } from './corpus.ts';
import { leaveOneCorpusOut, loadTexts } from './experiments.ts';
import { auroc, type Scored } from './metrics.ts';

/**
 * `npm run eval:detector:loco`: the leave-one-corpus-out sentence figures of the trained model
 * alone (the LOCO sentence and spliced columns of eval:detector's first table) in seconds rather
 * than minutes: three trainings, no calibration, no other protocol. For trying feature changes;
 * eval:detector remains the figures of record.
 */
const texts = loadTexts();
const byId = new Map(texts.map((t) => [t.id, t]));
const sentence = new Map<string, Scored[]>();
const spliced = new Map<string, Scored[]>();
const push = (map: Map<string, Scored[]>, key: string, items: Scored[]) => map.set(key, [...(map.get(key) ?? []), ...items]);
for (const run of leaveOneCorpusOut(texts, (l) => console.error(l))) {
  const corpus = run.heldOut.value;
  const generators = [...new Set([...run.logits.keys()].map((id) => byId.get(id)!).filter((t) => t.generator !== 'human').map((t) => t.generator))];
  for (const generator of generators) {
    const wantCorpus = texts.some((t) => t.generator === generator && t.label === 'mixed') ? 'seqxgpt-boundaries' : corpus;
    if (wantCorpus !== corpus) continue;
    for (const [id, logits] of run.logits) {
      const t: LabelledText = byId.get(id)!;
      if (t.generator !== generator && t.generator !== 'human') continue;
      push(sentence, generator, logits.map((z, i) => ({ score: z, positive: t.sentenceLabels[i] === 1 })));
    }
  }
  for (const t of run.spliced?.texts ?? []) push(spliced, t.generator, run.spliced!.logits.get(t.id)!.map((z, i) => ({ score: z, positive: t.sentenceLabels[i] === 1 })));
}
const rows = [...sentence.keys()].sort().map((g) => [g, auroc(sentence.get(g)!), auroc(spliced.get(g) ?? [])] as const);
for (const [g, s, sp] of rows) console.log(`${g.padEnd(18)} ${s.toFixed(3)} ${sp.toFixed(3)}`);
const mean = (k: 1 | 2) => rows.reduce((sum, r) => sum + r[k], 0) / rows.length;
console.log(`mean               ${mean(1).toFixed(3)} ${mean(2).toFixed(3)}`);
