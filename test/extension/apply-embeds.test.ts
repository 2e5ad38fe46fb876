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

  // Plate draws such a spacer before a link and at its end (slate-react's examples the same): in
  // no model, and read as text it made every edited accept in a link's sentence "embedded".
  it("a link's spacers (a no-break space in a non-editable span of font size 0) are not text, and a rewrite across one goes in", async () => {
    const spacer = '<span contenteditable="false" style="font-size: 0px; line-height: 0;">\u00a0</span>';
    const root = editor(`It plays a crucial role in ${spacer}<a href="#">our work${spacer}</a>.`);
    const target = domTarget('editor', root);
    expect(target.readText()).toBe(ORIGINAL);
    const result = await applyVerified(target, 0, ORIGINAL.length, ORIGINAL, 'It plays a crucial role for their work.');
    expect(result.status).toBe('applied');
    expect(target.readText()).toBe('It plays a crucial role for their work.');
  });

  it('a mention chip in a smaller font (font size 0.9em) is no spacer: nothing is tried and it stays', async () => {
    const root = editor('It plays a <span contenteditable="false" style="font-size: 0.9em">@Dana</span> role in our work.');
    const target = domTarget('editor', root);
    const original = target.readText();
    expect(original).toContain('@Dana');
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
