// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { applyVerified } from '../../extension/lib/content/apply.ts';
import { domTarget } from '../../extension/lib/content/target.ts';
import { beforeInputEditor } from './beforeinput-editor.ts';

/**
 * An image or a mention inside the words a rewrite changes would go with them, while the text
 * read back (which has no character for an image) looks right: nothing is tried. Words beside
 * such an item, not over it, still go in.
 */
const editor = (html: string) => beforeInputEditor(html).root;

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
