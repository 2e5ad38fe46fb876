// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { applyVerified } from '../../extension/lib/content/apply.ts';
import { domTarget } from '../../extension/lib/content/target.ts';
import { beforeInputEditor } from './beforeinput-editor.ts';

/**
 * The edit goes in and the text reads exactly as asked; then, before the apply's 250 ms check, a
 * co-author's words arrive on both sides of the sentence in one update (a shared document's). Not
 * one change beside the replacement (keptBeside), and readRange does not read it as the
 * replacement ('either' where the sentence is in the text twice, 'other' where their new sentence
 * can slide to touch its end), the page not seen moving before: the apply took it for the
 * editor's answer and rolled the whole difference back, deleting the co-author's words
 * ({ status: 'reverted' }, the text as it was before the accept).
 */
describe("a co-author's change on both sides after the text read as asked", () => {
  const SENTENCE = 'It is fine.';
  it.each([
    // The sentence twice: readRange reads the text both ways ('either').
    [`${SENTENCE} ${SENTENCE} We left.`, (text: Text) => text.appendData(' Done.'), `Yes. ${SENTENCE} It is good. We left. Done.`],
    // Their new sentence right after it: the change can slide to touch the range's end ('other').
    [`${SENTENCE} ${SENTENCE} We left.`, (text: Text) => text.insertData(text.length - 'We left.'.length, 'Done. '), `Yes. ${SENTENCE} It is good. Done. We left.`],
    [`Well. ${SENTENCE} We left.`, (text: Text) => text.insertData(text.length - 'We left.'.length, 'Done. '), `Yes. Well. It is good. Done. We left.`],
  ] as const)('deletes nothing of theirs (case %#): %s', async (html, after, expected) => {
    const { root } = beforeInputEditor(html);
    const paragraph = root.querySelector('p')!;
    let arrived = false;
    root.addEventListener('beforeinput', () =>
      setTimeout(() => {
        if (arrived) return;
        arrived = true;
        paragraph.normalize();
        const text = paragraph.firstChild as Text;
        after(text);
        text.insertData(0, 'Yes. ');
      }, 100),
    );
    const target = domTarget('editor', root);
    const start = html.lastIndexOf(SENTENCE);
    const result = await applyVerified(target, start, start + SENTENCE.length, SENTENCE, 'It is good.');
    const text = target.readText();
    expect(result).toEqual({ status: 'unexpected' });
    expect(text).toBe(expected);
  });
});
