import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { humanize } from '@redline/shared/analysis';
import { HUMANIZER_MODELS } from '@redline/shared';
import { editRegions, withRegions, type EditRegion } from '../../extension/lib/content/edit-regions.ts';

/** Words, spaces, punctuation, an emoji and a CJK character: what a sentence and its rewrite are made of. */
const token = fc.constantFrom('the', 'The', 'tools', 'use', 'utilize', 'effective', 'It', 'is', 'important', ' ', ' ', '  ', ',', '.', ';', '"', '😀', '語', '\u00a0', 'e.g.', "it's");
const sentence = fc.array(token, { maxLength: 14 }).map((parts) => parts.join(''));

function expectWellFormed(original: string, replacement: string, regions: readonly EditRegion[]): void {
  expect(withRegions(original, regions)).toBe(replacement);
  let last = -1;
  for (const region of regions) {
    expect(region.start).toBeGreaterThan(last);
    expect(region.end).toBeGreaterThanOrEqual(region.start);
    last = region.end;
    // Never half of a surrogate pair at either edge.
    for (const at of [region.start, region.end]) {
      const code = original.charCodeAt(at);
      expect(at > 0 && at < original.length && code >= 0xdc00 && code <= 0xdfff).toBe(false);
    }
  }
}

describe('edit regions of a rewrite', () => {
  it('turn the original into the replacement exactly, whatever the editor lets merge', () => {
    fc.assert(
      fc.property(sentence, sentence, fc.func(fc.boolean()), (original, replacement, joinable) => {
        const regions = editRegions(original, replacement, (a, b) => joinable(a, b));
        expectWellFormed(original, replacement, regions);
        if (original === replacement) expect(regions).toEqual([]);
      }),
      { numRuns: 3000 },
    );
  });

  it('replace at least one character with at least one whenever the original and the replacement are not empty', () => {
    fc.assert(
      fc.property(sentence.filter((s) => s.length > 0), sentence.filter((s) => s.length > 0), fc.boolean(), (original, replacement, join) => {
        for (const region of editRegions(original, replacement, () => join)) {
          expect(region.end).toBeGreaterThan(region.start);
          expect(region.text.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('are one region when everything may merge, and leave the words between regions untouched when nothing may', () => {
    fc.assert(
      fc.property(sentence, sentence, (original, replacement) => {
        expect(editRegions(original, replacement, () => true).length).toBeLessThanOrEqual(1);
        const apart = editRegions(original, replacement, () => false);
        for (let i = 1; i < apart.length; i++) expect(apart[i]!.start).toBeGreaterThan(apart[i - 1]!.end);
      }),
      { numRuns: 2000 },
    );
  });

  it('keep a formatted phrase the rewrite did not change out of every region', () => {
    const original = 'Moreover, it is important to note that effective communication plays a pivotal role in fostering collaboration across teams.';
    const replacement = 'Also, effective communication plays a key role in fostering collaboration across teams.';
    // "effective communication" (bold) is [39, 62) and "fostering collaboration" (a link) [87, 110): boundaries inside both.
    const boundaries = [39, 62, 87, 110];
    const joinable = (a: number, b: number) => !boundaries.some((at) => at > a && at < b);
    const regions = editRegions(original, replacement, joinable);
    expectWellFormed(original, replacement, regions);
    for (const region of regions) for (const [from, to] of [[39, 62], [87, 110]] as const) expect(region.end <= from || region.start >= to).toBe(true);
    expect(regions.length).toBe(2);
  });

  it('hold for the offline humanizer\'s own rewrites', () => {
    const text =
      'Moreover, organizations must utilize comprehensive tools in order to obtain approximately 25% more value. It is important to note that the team is able to ensure that every release is tested prior to launch. In conclusion, these tools play a pivotal role 😀 in the process.';
    for (const model of HUMANIZER_MODELS) {
      const rewritten = humanize(text, model).humanized_text;
      expectWellFormed(text, rewritten, editRegions(text, rewritten, () => false));
      expect(editRegions(text, rewritten, () => true).length).toBe(rewritten === text ? 0 : 1);
    }
  });
});
