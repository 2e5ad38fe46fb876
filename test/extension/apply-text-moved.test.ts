// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { applyVerified } from '../../extension/lib/content/apply.ts';
import { domTarget } from '../../extension/lib/content/target.ts';
import { beforeInputEditor } from './beforeinput-editor.ts';

/**
 * The text changes after the accept was asked for but before the apply touches anything (here
 * in the frame the apply waits for, as a key typed at that moment would). Whatever changed is
 * kept: the apply compares with, and would roll back to, the text as it is when it starts, not
 * as it was asked. (It once rolled back to the older text: in an editor that takes
 * `beforeinput`, what the writer had just typed was deleted.)
 */
const ORIGINAL = 'The first sentence is long enough.';
const REPLACEMENT = 'A rewritten first sentence.';
const REST = ' The second one stays.';

const editor = () => beforeInputEditor(`${ORIGINAL}${REST}`).root;

const realFrame = window.requestAnimationFrame;
afterEach(() => {
  window.requestAnimationFrame = realFrame;
});

/** The next frame comes after `change` (a key typed, a script's edit) has changed the text. */
function changeBeforeNextFrame(change: () => void): void {
  window.requestAnimationFrame = (callback) => {
    window.requestAnimationFrame = realFrame;
    change();
    return realFrame(callback);
  };
}

describe('the text changes between the accept and the apply', () => {
  it('after the sentence: the suggestion goes in and the new text stays', async () => {
    const root = editor();
    const target = domTarget('editor', root);
    changeBeforeNextFrame(() => root.querySelector('p')!.append(' And I typed this.'));
    const result = await applyVerified(target, 0, ORIGINAL.length, ORIGINAL, REPLACEMENT);
    expect(result).toEqual({ status: 'applied', strategy: 'beforeinput', at: 0 });
    expect(target.readText()).toBe(`${REPLACEMENT}${REST} And I typed this.`);
  });

  it('in the sentence: nothing is applied and the changed sentence stays as it is', async () => {
    const root = editor();
    const target = domTarget('editor', root);
    changeBeforeNextFrame(() => (root.querySelector('p')!.textContent = `The first sentence is long enough!${REST}`));
    const result = await applyVerified(target, 0, ORIGINAL.length, ORIGINAL, REPLACEMENT);
    expect(result).toEqual({ status: 'stale' });
    expect(target.readText()).toBe(`The first sentence is long enough!${REST}`);
  });
});

/**
 * A co-author's words arrive while the apply runs (a shared document): typed at their caret just
 * before the sentence, so each lands at the edge of a part that begins the sentence. Whether such
 * a word is theirs or the editor's answer to the edit cannot be told from the text; it must not be
 * rolled back with the part. (It was: the apply put the sentence's start back over the word.)
 */
describe("a co-author's words arrive at the sentence's edge while it goes in", () => {
  /** A co-author typing at their caret, which starts at the paragraph's start (so, just before the sentence). */
  function coauthorIn(root: HTMLElement): () => void {
    const paragraph = root.querySelector('p')!;
    let caret = 0;
    return () => {
      paragraph.normalize();
      const word = `co${caret / 4} `;
      (paragraph.firstChild as Text).insertData(caret, word);
      caret += word.length;
    };
  }

  it('with the edit: nothing of theirs is deleted, and the sentence is left to be checked', async () => {
    const { root } = beforeInputEditor(`${ORIGINAL}${REST}`);
    const typeWord = coauthorIn(root);
    // Seen typing before anything is tried; then a word in the same task as each edit the editor
    // takes, so the text never reads as asked alone.
    changeBeforeNextFrame(typeWord);
    root.addEventListener('beforeinput', () => typeWord());
    const result = await applyVerified(domTarget('editor', root), 0, ORIGINAL.length, ORIGINAL, REPLACEMENT);
    // Their two words (one before the apply, one with its edit), and the suggestion as it went in.
    expect(domTarget('editor', root).readText()).toBe(`co0 co1 ${REPLACEMENT}${REST}`);
    expect(result).toEqual({ status: 'overlapped' });
  });

  it('after the edit: nothing of theirs is deleted, and the accept stands (the text had read as asked)', async () => {
    const { root } = beforeInputEditor(`${ORIGINAL}${REST}`);
    const typeWord = coauthorIn(root);
    changeBeforeNextFrame(typeWord);
    root.addEventListener('beforeinput', () => setTimeout(typeWord));
    const result = await applyVerified(domTarget('editor', root), 0, ORIGINAL.length, ORIGINAL, REPLACEMENT);
    expect(domTarget('editor', root).readText()).toBe(`co0 co1 ${REPLACEMENT}${REST}`);
    expect(result).toEqual({ status: 'applied', strategy: 'beforeinput', at: 'co0 co1 '.length });
  });

  it('while the sentence is selected: nothing is tried, and nothing of theirs is deleted', async () => {
    const { root } = beforeInputEditor(`${ORIGINAL}${REST}`);
    const typeWord = coauthorIn(root);
    changeBeforeNextFrame(typeWord);
    // Their word lands at the selection's start, which stays before it: the selection now holds it.
    document.addEventListener('selectionchange', () => setTimeout(typeWord), { once: true });
    const result = await applyVerified(domTarget('editor', root), 0, ORIGINAL.length, ORIGINAL, REPLACEMENT);
    expect(domTarget('editor', root).readText()).toBe(`co0 co1 ${ORIGINAL}${REST}`);
    expect(result).toEqual({ status: 'stale' });
  });

  it('after an edit the editor did not take: nothing of theirs is deleted, and the sentence is as it was', async () => {
    // An editor that takes deletions through `beforeinput` (Quill) but not this insertion (ProseMirror takes neither).
    document.body.innerHTML = `<div contenteditable="true"><p>${ORIGINAL}${REST}</p></div>`;
    const root = document.querySelector<HTMLElement>('[contenteditable]')!;
    const typeWord = coauthorIn(root);
    root.addEventListener('beforeinput', (event) => {
      if ((event as InputEvent).data) return void setTimeout(typeWord);
      document.getSelection()!.getRangeAt(0).deleteContents();
      event.preventDefault();
    });
    changeBeforeNextFrame(typeWord);
    // happy-dom has no execCommand (the next strategy): here it changes nothing, as in an editor that ignores it.
    Object.assign(document, { execCommand: () => false });
    const result = await applyVerified(domTarget('editor', root), 0, ORIGINAL.length, ORIGINAL, REPLACEMENT);
    expect(domTarget('editor', root).readText()).toBe(`co0 co1 ${ORIGINAL}${REST}`);
    expect(result).toEqual({ status: 'overlapped' });
  });
});
