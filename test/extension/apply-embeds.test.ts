// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { applyVerified } from '../../extension/lib/content/apply.ts';
import { domTarget } from '../../extension/lib/content/target.ts';

/**
 * An image or a mention inside the words a rewrite changes would go with them, while the text
 * read back (which has no character for an image) looks right: nothing is tried. Words beside
 * such an item, not over it, still go in.
 */
function editor(html: string): HTMLElement {
  document.body.innerHTML = `<div contenteditable="true"><p>${html}</p></div>`;
  const root = document.querySelector<HTMLElement>('[contenteditable]')!;
  // An editor that takes beforeinput, as Slate or Lexical do: the selected text becomes the data.
  root.addEventListener('beforeinput', (event) => {
    const range = document.getSelection()!.getRangeAt(0);
    range.deleteContents();
    range.insertNode(document.createTextNode((event as InputEvent).data ?? ''));
    root.normalize();
    event.preventDefault();
  });
  return root;
}

(globalThis as { StaticRange?: unknown }).StaticRange ??= class {
  constructor(range: AbstractRange) {
    Object.assign(this, { startContainer: range.startContainer, startOffset: range.startOffset, endContainer: range.endContainer, endOffset: range.endOffset });
  }
};

const ORIGINAL = 'It plays a crucial role in our work.';

describe('an accept over an embedded item', () => {
  it('an image inside the changed words: nothing is tried and the image stays', async () => {
    const root = editor('It plays a crucial <img alt="chart">role in our work.');
    const target = domTarget('editor', root);
    expect(target.readText()).toBe(ORIGINAL);
    const result = await applyVerified(target, 0, ORIGINAL.length, ORIGINAL, 'It is central to our work.');
    expect(result).toEqual({ status: 'embedded' });
    expect(root.querySelectorAll('img')).toHaveLength(1);
    expect(target.readText()).toBe(ORIGINAL);
  });

  it('a mention inside the changed words: nothing is tried and the mention stays', async () => {
    const root = editor('It plays a <span contenteditable="false">@Dana</span> role in our work.');
    const target = domTarget('editor', root);
    const original = target.readText();
    const result = await applyVerified(target, 0, original.length, original, 'It is central to our work.');
    expect(result).toEqual({ status: 'embedded' });
    expect(root.querySelector('span')?.textContent).toBe('@Dana');
  });

  it('an image outside the changed words: the rewrite goes in and the image stays', async () => {
    const root = editor('It plays a crucial role in our <img alt="chart">work.');
    const target = domTarget('editor', root);
    const result = await applyVerified(target, 0, ORIGINAL.length, ORIGINAL, 'It is central to our work.');
    expect(result.status).toBe('applied');
    expect(target.readText()).toBe('It is central to our work.');
    expect(root.querySelectorAll('img')).toHaveLength(1);
  });
});
