// @vitest-environment happy-dom
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomText } from '../../extension/lib/content/dom-text.ts';

/**
 * A text offset as a DOM position, at the boundary of two runs of formatting: the start of a
 * range is the character after it (in the later node), the end of a range the character before
 * it (in the earlier node). An end put at the start of the next run (a bold word, a link) made
 * Firefox's TinyMCE spread that run over the words inserted before it.
 */
const run = fc.record({
  text: fc.constantFrom('one ', 'two', ' three', 'four. ', 'é', '😀', 'x', 'link\ufeff', '\ufeffcaret'),
  tag: fc.constantFrom('', 'b', 'i', 'a', 'span'),
});
const paragraph = fc.array(run, { minLength: 1, maxLength: 12 });
const html = (runs: { text: string; tag: string }[]) => runs.map(({ text, tag }) => (tag ? `<${tag}>${text}</${tag}>` : `<span>${text}</span>`)).join('');

describe('DomText.position at run boundaries', () => {
  it('puts a start in the node holding the character after it, an end in the node holding the character before it', () => {
    fc.assert(
      fc.property(fc.array(paragraph, { minLength: 1, maxLength: 3 }), (paragraphs) => {
        document.body.innerHTML = `<div contenteditable="true">${paragraphs.map((runs) => `<p>${html(runs)}</p>`).join('')}</div>`;
        const model = new DomText(document.querySelector('[contenteditable]')!);
        const text = model.text;
        // An editor's caret character (TinyMCE's after a link) is not text.
        expect(text).not.toMatch(/\ufeff/);
        for (let offset = 0; offset <= text.length; offset++) {
          const start = model.position(offset)!;
          if (offset < text.length && text[offset] !== '\n') expect(start.node.data[start.offset]).toBe(text[offset]);
          const end = model.position(offset, true)!;
          if (offset > 0 && text[offset - 1] !== '\n') expect(end.node.data[end.offset - 1]).toBe(text[offset - 1]);
        }
      }),
      { numRuns: 300 },
    );
  });
});
