import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HUMANIZER_MODELS } from '../src/upstream/requests.ts';
import { detect } from '../src/analysis/detector.ts';
import { humanizeWithOutcome } from '../src/analysis/humanizer.ts';
import type { GrammarProblem } from '../src/analysis/rewrite/grammar-guard.ts';
import { readRows } from './corpus.ts';

/**
 * `npm run eval:humanizer`: the four rewrite models over the detector corpus (human, machine
 * and mixed texts): how much each changes, what the grammar guard refused, what the rewrite
 * does to the offline detector's ai_percentage, and how often two models give the same rewrite
 * of a machine text (the models should differ). Writes shared/training/humanizer-evaluation.md.
 * STEP=n evaluates every n-th text (default 1: all).
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const step = Number(process.env.STEP ?? 1);
const rows = readRows().filter((_, i) => i % step === 0);

function wordEdits(a: string[], b: string[]): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

const words = (text: string) => text.split(/\s+/u).filter(Boolean);
const lines = [
  `Humanizer evaluation (\`npm run eval:humanizer\`, ${rows.length} texts of the detector corpus: ${rows.filter((r) => r.label === 'human').length} human, ${rows.filter((r) => r.label !== 'human').length} machine or mixed).`,
  '',
  '| model | words changed (word edit distance / words) | sentences rewritten | rewrites refused by the grammar guard | refused, by problem | detector ai% on machine texts, before → after |',
  '|---|---|---|---|---|---|',
];
const started = Date.now();
let aiBefore = 0;
const machine = rows.filter((r) => r.label === 'ai');
for (const row of machine) aiBefore += detect(row.text).ai_percentage / machine.length;
/** Each model's rewrite of each machine text, for the agreement table. */
const rewritesOf = new Map<string, string[]>();
for (const model of HUMANIZER_MODELS) {
  let totalWords = 0;
  let edits = 0;
  let sentences = 0;
  let rewritten = 0;
  let refused = 0;
  let aiAfter = 0;
  const problems = new Map<GrammarProblem, number>();
  for (const row of rows) {
    const { humanized_text, outcome } = humanizeWithOutcome(row.text, model);
    totalWords += words(row.text).length;
    sentences += outcome.rewritten.length + outcome.refused.length;
    rewritten += outcome.rewritten.length;
    refused += outcome.refused.length;
    for (const { original, rewrite } of outcome.rewritten) edits += wordEdits(words(original), words(rewrite));
    for (const refusal of outcome.refused) for (const problem of new Set(refusal.problems)) problems.set(problem, (problems.get(problem) ?? 0) + 1);
    if (row.label === 'ai') {
      aiAfter += detect(humanized_text).ai_percentage / machine.length;
      rewritesOf.set(row.id, [...(rewritesOf.get(row.id) ?? []), humanized_text]);
    }
  }
  const byProblem = [...problems].sort((a, b) => b[1] - a[1]).map(([problem, count]) => `${problem} ${count}`).join(', ') || 'none';
  lines.push(
    `| ${model} | ${((100 * edits) / totalWords).toFixed(1)}% | ${rewritten} | ${refused} (${((100 * refused) / Math.max(sentences, 1)).toFixed(1)}% of attempted) | ${byProblem} | ${aiBefore.toFixed(1)} → ${aiAfter.toFixed(1)} |`,
  );
  console.error(`${model} done (${((Date.now() - started) / 1000).toFixed(0)} s)`);
}
const percent = (count: number, of: number) => `${((100 * count) / Math.max(of, 1)).toFixed(1)}%`;
const agreement = (subset: typeof machine) => {
  const same = (a: number, b: number) => subset.filter((row) => rewritesOf.get(row.id)![a] === rewritesOf.get(row.id)![b]).length;
  const pairs: string[] = [];
  for (let a = 0; a < HUMANIZER_MODELS.length; a++) for (let b = a + 1; b < HUMANIZER_MODELS.length; b++) pairs.push(percent(same(a, b), subset.length));
  const allDistinct = subset.filter((row) => new Set(rewritesOf.get(row.id)).size === HUMANIZER_MODELS.length).length;
  const unchanged = HUMANIZER_MODELS.map((_, m) => percent(subset.filter((row) => rewritesOf.get(row.id)![m] === row.text).length, subset.length));
  return { pairs, allDistinct: percent(allDistinct, subset.length), unchanged };
};
const pairNames: string[] = [];
for (let a = 0; a < HUMANIZER_MODELS.length; a++) for (let b = a + 1; b < HUMANIZER_MODELS.length; b++) pairNames.push(`${HUMANIZER_MODELS[a]} = ${HUMANIZER_MODELS[b]}`);
lines.push(
  '',
  'Agreement on machine texts: the share of texts for which two models give exactly the same rewrite (lower is more distinct), the share with four different rewrites, and the share each model leaves unchanged.',
  '',
  `| texts | ${pairNames.join(' | ')} | four different rewrites | unchanged (${HUMANIZER_MODELS.join(' / ')}) |`,
  `|---|${pairNames.map(() => '---|').join('')}---|---|`,
);
const chatgpt = machine.filter((row) => row.generator === 'chatgpt');
for (const [name, subset] of [[`all machine texts (${machine.length})`, machine], [`ChatGPT essays (${chatgpt.length})`, chatgpt]] as const) {
  const { pairs, allDistinct, unchanged } = agreement(subset);
  lines.push(`| ${name} | ${pairs.join(' | ')} | ${allDistinct} | ${unchanged.join(' / ')} |`);
}
const report = lines.join('\n');
writeFileSync(path.resolve(here, 'humanizer-evaluation.md'), `${report}\n`);
console.log(report);
