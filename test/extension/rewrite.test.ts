import { describe, expect, it } from 'vitest';
import { humanize } from '@redline/shared/analysis';
import { reviewFlags } from '../../extension/lib/review-aids.ts';
import { buildSuggestions } from '../../extension/lib/rewrite.ts';

describe('reviewFlags', () => {
  it('flags a changed number and a changed link, saying what changed', () => {
    const flags = reviewFlags('We sold 25% more at https://shop.example/a today.', 'We sold 30% more at https://shop.example/b today.');
    expect(flags.map((flag) => [flag.kind, flag.value])).toEqual([
      ['url', 'https://shop.example/a'],
      ['number', '25%'],
    ]);
    expect(flags[0]!.message).toBe('Link “https://shop.example/a” is changed or dropped.');
  });

  it('flags dropped dates, e-mail addresses, quotations, names and kept terms', () => {
    const original = 'On 2024-05-01 Ada Lovelace wrote to team@example.org: "Keep the Engine". Use the FooBar API.';
    const flags = reviewFlags(original, 'Someone wrote to us. Use the API.', ['FooBar API']);
    expect(flags.map((flag) => flag.kind).sort()).toEqual(['email', 'name', 'name', 'number', 'quotation', 'term', 'name', 'name'].sort());
    expect(flags.find((flag) => flag.kind === 'term')?.message).toBe('Kept term “FooBar API” is changed or dropped.');
  });

  it('has nothing to say when only plain words change', () => {
    expect(reviewFlags('Moreover, we utilize 3 tools from Acme.', 'Plus, we use 3 tools from Acme.')).toEqual([]);
  });

  it("reads a sentence with a long run without spaces (an inline image's data) in linear time, e-mail addresses beside it still checked", () => {
    // The e-mail pattern was tried from every character of such a run: 9 s for 40,000 characters, minutes for an image.
    const run = 'QUJDREVGR0hJSktMTU5PUFFSU1RVVldY'.repeat(3_000);
    const flags = reviewFlags(`Write to ada@example.org about ![chart](data:image/png;base64,${run}) today.`, `Write to us about ![chart](data:image/png;base64,${run}) now.`);
    expect(flags.map((flag) => flag.value)).toEqual(['ada@example.org']);
  });
});

describe('buildSuggestions', () => {
  it('aligns sentences one to one and skips unchanged ones, with offsets into the original', () => {
    const original = 'Moreover, we utilize tools. I like cats. It is important to note that this works.';
    const rewritten = 'Plus, we use tools. I like cats. Note that this works.';
    const suggestions = buildSuggestions(original, rewritten);
    expect(suggestions.map((s) => [s.original, s.suggestion])).toEqual([
      ['Moreover, we utilize tools.', 'Plus, we use tools.'],
      ['It is important to note that this works.', 'Note that this works.'],
    ]);
    for (const s of suggestions) expect(original.slice(s.start, s.end)).toBe(s.original);
  });

  it('pairs a sentence the rewrite split into two', () => {
    const original = 'Organizations must utilize comprehensive tools to obtain value; they are required to work through regulation. Short one.';
    const rewritten = humanize(original, 'cognia_v2').humanized_text;
    const suggestions = buildSuggestions(original, rewritten);
    expect(suggestions).toHaveLength(1);
    expect(suggestions[0]!.original).toBe(original.slice(0, original.indexOf(' Short')));
    expect(suggestions[0]!.suggestion.split('. ').length).toBe(2);
  });
});
