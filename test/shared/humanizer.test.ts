import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HUMANIZER_MODELS } from '@redline/shared';
import { humanize, humanizeWithOutcome } from '../../shared/src/analysis/humanizer.ts';
import { grammarProblems, introducedProblems } from '../../shared/src/analysis/rewrite/grammar-guard.ts';
import { findProtectedSpans } from '../../shared/src/analysis/protected-spans.ts';

// Rewrites seen from the earlier rule-based humanizer (issue #15), each with its original.
const BAD_REWRITES = [
  { original: 'Technology can significantly improve our lives.', bad: 'Technology can a lot improve our lives.', problem: 'modal-without-verb' },
  { original: 'The platform ensures seamless integration.', bad: 'The platform makes sure smooth integration.', problem: 'make-sure-without-clause' },
  { original: 'No matter where they are, people want clean water.', bad: "No matter where they're, people want clean water.", problem: 'clause-final-contraction' },
  { original: 'Several studies have demonstrated this effect.', bad: 'Several studies have showed this effect.', problem: 'past-form-after-have' },
  { original: 'Air pollution could lead to disease, and has led to many early deaths.', bad: 'Air pollution could lead to disease. Has led to many early deaths.', problem: 'fragment' },
] as const;

describe('grammar guard', () => {
  it.each(BAD_REWRITES)('flags "$bad" ($problem) and not its original', ({ original, bad, problem }) => {
    expect(grammarProblems(bad)).toContain(problem);
    expect(grammarProblems(original)).toEqual([]);
    expect(introducedProblems(original, bad)).toContain(problem);
  });

  it('does not flag sound sentences that look alike', () => {
    for (const sentence of ['Can a dog swim?', 'Note that this works.', 'Using tools is good.', 'It is a lot better.', "I think it's great.", 'They have shown interest.', 'Make sure that the door is locked.']) {
      expect(grammarProblems(sentence), sentence).toEqual([]);
    }
  });

  it('counts only problems the rewrite added, not ones the writer had', () => {
    const original = "No matter where they're, we go. The team can a lot improve.";
    expect(introducedProblems(original, original)).toEqual([]);
    expect(introducedProblems(original, `${original} They have showed it.`)).toEqual(['past-form-after-have']);
  });
});

describe('humanizer models never produce the bad rewrites', () => {
  for (const model of HUMANIZER_MODELS) {
    it(`${model}`, () => {
      for (const { original, bad } of BAD_REWRITES) {
        const output = humanize(original, model).humanized_text;
        expect(output).not.toBe(bad);
        expect(introducedProblems(original, output), `${model}: ${output}`).toEqual([]);
      }
      const adjective = humanize('The rules differ in individual cases.', model).humanized_text;
      expect(adjective).not.toContain('person cases');
      for (const list of ['We bought apples, pears, and plums, and we ate them all at home.', 'You need bread, milk and eggs, and some fruit for the children.']) {
        expect(humanize(list, model).humanized_text.split('. ')).toHaveLength(1);
      }
    });
  }
});

describe('rewrites the corpus guard refused once', () => {
  it('does not contract onto a clitic, split a question or split after a dependent clause', () => {
    expect(humanize("They aren't necessary or completely reliable.", 'huma_v2').humanized_text).toBe("They aren't necessary or completely reliable.");
    const question = 'Are you looking for a great price, but you find the car you want in a different color?';
    expect(humanize(question, 'huma_v2').humanized_text).toBe(question);
    const dependent = 'If the class expects you to finish an activity quickly, but that is not how some students learn, those students fall behind.';
    expect(humanize(dependent, 'cognia_v2').humanized_text).toBe(dependent);
  });

  it('keeps "I am" → "I\'m" (the tagger reads "I\'m" as one token, which still carries a verb)', () => {
    expect(humanize('I am a lifelong entrepreneur.', 'huma_v2').humanized_text).toBe("I'm a lifelong entrepreneur.");
  });
});

describe('model characters', () => {
  const text =
    'Moreover, it is important to note that organizations utilize numerous tools in order to work; they are not going to stop, and the costs have demonstrated this.';
  const outputs = Object.fromEntries(HUMANIZER_MODELS.map((model) => [model, humanize(text, model).humanized_text]));

  it('cognia only cuts wordy phrases', () => {
    expect(outputs.cognia).toBe('Moreover, organizations utilize numerous tools to work; they are not going to stop, and the costs have demonstrated this.');
  });
  it('lexi also uses plainer words, with the verb form kept', () => {
    expect(outputs.lexi).toBe('Moreover, organizations use many tools to work; they are not going to stop, and the costs have shown this.');
  });
  it('cognia_v2 restructures at clause joints without swapping words', () => {
    expect(outputs.cognia_v2).toBe('Moreover, organizations utilize numerous tools to work. They are not going to stop. The costs have demonstrated this.');
  });
  it('huma_v2 changes the voice most: connectives, contractions, plain words and splits', () => {
    expect(outputs.huma_v2).toBe("Also, organizations use many tools to work. They're not going to stop. The costs have shown this.");
  });
});

describe('plain phrases and connectives', () => {
  const text = 'However, the team is able to ensure that the data stays private. In addition, a large number of users log in prior to the audit.';
  it('lexi rewords stiff phrases; huma_v2 also opens sentences conversationally; cognia leaves them', () => {
    expect(humanize(text, 'cognia').humanized_text).toBe(text);
    expect(humanize(text, 'lexi').humanized_text).toBe('However, the team can make sure that the data stays private. In addition, many users log in before the audit.');
    expect(humanize(text, 'huma_v2').humanized_text).toBe('But the team can make sure that the data stays private. Also, many users log in before the audit.');
  });
});

const CORPUS = path.resolve(import.meta.dirname, '../../../shared/data/detector-corpus/train.jsonl');

describe('grammar guard over the training corpus', () => {
  it.skipIf(!existsSync(CORPUS))('no model introduces a grammar problem or loses a protected span, on human and machine texts', () => {
    const rows = readFileSync(CORPUS, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { text: string; label: string });
    // Every 40th text: human, machine and mixed ones from all three corpora.
    const sample = rows.filter((_, i) => i % 40 === 0);
    expect(new Set(sample.map((row) => row.label))).toEqual(new Set(['human', 'ai', 'mixed']));
    let rewritten = 0;
    for (const { text } of sample) {
      const kept = findProtectedSpans(text).map((span) => text.slice(span.start, span.end));
      for (const model of HUMANIZER_MODELS) {
        const { humanized_text, outcome } = humanizeWithOutcome(text, model);
        rewritten += outcome.rewritten.length;
        expect(introducedProblems(text, humanized_text), `${model} on ${text.slice(0, 60)}`).toEqual([]);
        for (const span of kept) expect(humanized_text, `${model} keeps ${span}`).toContain(span);
      }
    }
    expect(rewritten).toBeGreaterThan(100);
  }, 120_000);
});
