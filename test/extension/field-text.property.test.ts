import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fieldText } from '../../extension/lib/content/field-text.ts';

/** The captured-text rule for a field (shared/CONTRACT.md), written the plain way as the oracle. */
const canonical = (value: string) =>
  value
    .replace(/(?:\r\n|\r|\n)+/g, (run) => ((run.match(/\r\n|\r|\n/g) ?? []).length >= 2 ? '\n\n' : '\n'))
    .replace(/^\n+|\n+$/g, '');

const isBreak = (text: string) => /^(?:\r\n|\r|\n)$/.test(text);

// Values made of words and every kind of whitespace a field can hold or a script can set.
const UNITS = ['word', 'a', '.', ' ', '  ', '\t', '\n', '\r', '\r\n', '\u2028', '\u2029', '\u00a0', '\u200b'];
const value = fc.array(fc.constantFrom(...UNITS), { maxLength: 40 }).map((units) => units.join(''));

describe('field text: a field value as captured text', () => {
  it('follows the captured-text rule: runs of breaks are "\\n" or "\\n\\n", none at the ends, other whitespace kept', () => {
    expect(fieldText('One.\n\n\n\nTwo.\n').text).toBe('One.\n\nTwo.');
    expect(fieldText('\r\nOne.\r\nTwo.\r\r\rThree.\u2028\u00a0Four.').text).toBe('One.\nTwo.\n\nThree.\u2028\u00a0Four.');
    fc.assert(fc.property(value, (v) => {
        expect(fieldText(v).text).toBe(canonical(v));
      }), { numRuns: 2000 });
  });

  it('maps every text character to exactly its own characters in the value, and offsets back exactly', () => {
    fc.assert(
      fc.property(value, (v) => {
        const field = fieldText(v);
        const { text } = field;
        let previousEnd = 0;
        for (let i = 0; i < text.length; i++) {
          const start = field.toValue(i);
          const end = field.toValue(i + 1, true);
          const unit = v.slice(start, end);
          if (text[i] === '\n') expect(isBreak(unit)).toBe(true);
          else expect(unit).toBe(text[i]);
          // Skipped between characters: only line breaks (a collapsed run or the ends).
          expect(v.slice(previousEnd, start)).toMatch(/^[\r\n]*$/);
          previousEnd = end;
        }
        expect(v.slice(previousEnd)).toMatch(/^[\r\n]*$/);
        for (let t = 0; t <= text.length; t++) {
          expect(field.toText(field.toValue(t))).toBe(t);
          expect(field.toText(field.toValue(t, true))).toBe(t);
        }
        if (field.same) expect(text).toBe(v);
      }),
      { numRuns: 2000 },
    );
  });

  it('replacing a sentence at its mapped value range gives the text with exactly that sentence replaced', () => {
    fc.assert(
      fc.property(value, fc.nat(), fc.nat(), fc.stringMatching(/^[a-z][a-z .,]{0,12}$/), (v, a, b, replacement) => {
        const field = fieldText(v);
        const { text } = field;
        if (!text) return;
        let start = a % text.length;
        let end = start + 1 + (b % (text.length - start));
        // A sentence starts and ends on a character, not on a break.
        if (text[start] === '\n' || text[end - 1] === '\n') return;
        const edited = v.slice(0, field.toValue(start)) + replacement + v.slice(field.toValue(end, true));
        expect(fieldText(edited).text).toBe(text.slice(0, start) + replacement + text.slice(end));
      }),
      { numRuns: 3000 },
    );
  });
});
