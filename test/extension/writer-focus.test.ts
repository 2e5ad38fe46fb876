// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { domTarget, fieldTarget } from '../../extension/lib/content/target.ts';
import { selectText } from '../../extension/lib/content/select.ts';
import fc from 'fast-check';
import { placeAfter, writerFocus } from '../../extension/lib/content/writer-focus.ts';

/**
 * The writer's focus and selection, taken before an apply selects a sentence in the editor and
 * put back after it: what they type next goes where they were, not over the suggestion.
 */
const SENTENCE = 'The first sentence is long enough.';
const REST = ' The second one stays.';
const SUGGESTION = 'A first sentence.';

function page(): { editor: HTMLElement; title: HTMLInputElement; notes: HTMLTextAreaElement } {
  document.body.innerHTML = `<input id="title" value="My title"><div contenteditable="true"><p>${SENTENCE}${REST}</p></div><textarea id="notes">${SENTENCE}${REST}</textarea>`;
  return {
    editor: document.querySelector<HTMLElement>('[contenteditable]')!,
    title: document.querySelector<HTMLInputElement>('#title')!,
    notes: document.querySelector<HTMLTextAreaElement>('#notes')!,
  };
}

/** What an apply does to the editor: the sentence selected and replaced. */
function replaceSentence(editor: HTMLElement): void {
  const target = domTarget('editor', editor);
  selectText(target, 0, SENTENCE.length, { focus: true });
  const text = editor.querySelector('p')!.firstChild as Text;
  text.replaceData(0, SENTENCE.length, SUGGESTION);
  document.getSelection()!.collapse(text, SUGGESTION.length);
}

describe('writerFocus', () => {
  it('puts the focus back in another field of the page, with its caret', () => {
    const { editor, title } = page();
    title.focus();
    title.setSelectionRange(3, 3);
    const restore = writerFocus(domTarget('editor', editor), 0, SENTENCE.length);
    replaceSentence(editor);
    expect(document.activeElement).toBe(editor);
    expect(restore()).toBe(true);
    expect(document.activeElement).toBe(title);
    expect([title.selectionStart, title.selectionEnd]).toEqual([3, 3]);
  });

  it('puts the caret back after the sentence, shifted by the change in length', () => {
    const { editor } = page();
    const text = editor.querySelector('p')!.firstChild as Text;
    editor.focus();
    document.getSelection()!.collapse(text, SENTENCE.length + REST.length);
    const restore = writerFocus(domTarget('editor', editor), 0, SENTENCE.length);
    replaceSentence(editor);
    expect(restore()).toBe(true);
    const selection = document.getSelection()!;
    expect(selection.isCollapsed).toBe(true);
    expect(domTarget('editor', editor).model().offsetOf(selection.focusNode!, selection.focusOffset)).toBe(SUGGESTION.length + REST.length);
  });

  it('keeps a selection before the sentence where it was, direction and all', () => {
    document.body.innerHTML = `<div contenteditable="true"><p>Before it. ${SENTENCE}</p></div>`;
    const editor = document.querySelector<HTMLElement>('[contenteditable]')!;
    const text = editor.querySelector('p')!.firstChild as Text;
    editor.focus();
    document.getSelection()!.setBaseAndExtent(text, 6, text, 0);
    const start = 'Before it. '.length;
    const restore = writerFocus(domTarget('editor', editor), start, start + SENTENCE.length);
    selectText(domTarget('editor', editor), start, start + SENTENCE.length, { focus: true });
    text.replaceData(start, SENTENCE.length, SUGGESTION);
    expect(restore()).toBe(true);
    const selection = document.getSelection()!;
    expect([selection.anchorOffset, selection.focusOffset]).toEqual([6, 0]);
  });

  it('leaves a caret that was inside the sentence at the suggestion: its place there is gone', () => {
    const { editor } = page();
    const text = editor.querySelector('p')!.firstChild as Text;
    editor.focus();
    document.getSelection()!.collapse(text, 5);
    const restore = writerFocus(domTarget('editor', editor), 0, SENTENCE.length);
    replaceSentence(editor);
    expect(restore()).toBe(false);
    expect(document.getSelection()!.focusOffset).toBe(SUGGESTION.length);
  });

  it('in a textarea: the caret after the sentence is shifted, the focus kept', () => {
    const { notes } = page();
    notes.focus();
    notes.setSelectionRange(notes.value.length, notes.value.length);
    const target = fieldTarget(notes);
    const restore = writerFocus(target, 0, SENTENCE.length);
    notes.setRangeText(SUGGESTION, 0, SENTENCE.length, 'end');
    expect(restore()).toBe(true);
    expect(document.activeElement).toBe(notes);
    expect([notes.selectionStart, notes.selectionEnd]).toEqual([notes.value.length, notes.value.length]);
  });

  it('with the focus nowhere, the editor the apply focused is left again', () => {
    const { editor } = page();
    (document.activeElement as HTMLElement | null)?.blur();
    const restore = writerFocus(domTarget('editor', editor), 0, SENTENCE.length);
    replaceSentence(editor);
    expect(document.activeElement).toBe(editor);
    expect(restore()).toBe(true);
    expect(document.activeElement).not.toBe(editor);
  });

  it('a field that left the page meanwhile is not focused', () => {
    const { editor, title } = page();
    title.focus();
    const restore = writerFocus(domTarget('editor', editor), 0, SENTENCE.length);
    replaceSentence(editor);
    title.remove();
    expect(restore()).toBe(false);
    expect(document.activeElement).toBe(editor);
  });
});

/**
 * The caret's place once an apply replaced the sentence and the page changed other places too
 * (a co-author's words in a shared document): found by the text around it, not by the change in
 * the whole text's length.
 */
describe('placeAfter', () => {
  const was = 'The first sentence is long enough. Then the writer types here and more follows.';
  const [start, end] = [0, SENTENCE.length];
  const caret = was.indexOf('here');
  const accepted = SUGGESTION + was.slice(end);

  it('shifts a caret after the sentence by the change in length when nothing else changed', () => {
    expect(placeAfter(was, accepted, caret, start, end)).toBe(accepted.indexOf('here'));
  });

  it("is not moved by a co-author's words after it", () => {
    const now = `${accepted} co1 co2 co3`;
    expect(placeAfter(was, now, caret, start, end)).toBe(now.indexOf('here'));
  });

  it("moves with a co-author's words between the sentence and it", () => {
    const now = accepted.replace('Then', 'Then co1 co2');
    expect(placeAfter(was, now, caret, start, end)).toBe(now.indexOf('here'));
  });

  it('keeps a caret before the sentence where it was, whatever comes after', () => {
    const before = `Intro words. ${was}`;
    const now = `Intro words. ${accepted} co1`;
    expect(placeAfter(before, now, 'Intro'.length, 'Intro words. '.length, 'Intro words. '.length + SENTENCE.length)).toBe('Intro'.length);
  });

  it('finds it by the text on one side when a co-author typed right beside it', () => {
    const now = accepted.replace('here', 'co1 here').replace('follows.', 'follows. co2');
    // The text after the caret is intact: the caret goes before it (after the co-author's word).
    expect(placeAfter(was, now, caret, start, end)).toBe(now.indexOf('here'));
  });

  it('reads a no-break space the editor wrote beside the sentence as a space', () => {
    const now = `${SUGGESTION}\u00a0${was.slice(end + 1)} co1`;
    expect(placeAfter(was, now, caret, start, end)).toBe(now.indexOf('here'));
  });

  it('property: words inserted anywhere clear of the text around the caret leave it before the same text', () => {
    const rest = ' It is followed by a paragraph of ordinary prose, long enough that a caret and a co-author can be far apart.\nA second paragraph, written by me on a Tuesday, ends the document.';
    const long = SENTENCE + rest;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: rest.length }), fc.integer({ min: 0, max: rest.length }), fc.stringMatching(/^[0-9 ]{1,20}$/), (caretIn, insertIn, words) => {
        fc.pre(insertIn < caretIn - 32 || insertIn > caretIn + 32);
        const now = SUGGESTION + rest.slice(0, insertIn) + words + rest.slice(insertIn);
        const moved = insertIn < caretIn ? words.length : 0;
        return placeAfter(long, now, end + caretIn, start, end) === SUGGESTION.length + caretIn + moved;
      }),
      { numRuns: 2000 },
    );
  });
});
