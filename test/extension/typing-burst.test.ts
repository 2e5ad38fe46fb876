// @vitest-environment happy-dom
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TypingBurst, type Caret } from '../../extension/lib/content/typing-burst.ts';

/**
 * A burst lasts while each edit leaves the caret where typing would (typed characters,
 * Backspace, Delete) and ends at the writer's pause; a caret that goes anywhere else ends it at
 * once, so two edits in different places are never followed as one.
 */

const PAUSE = 250;

/** A text node being typed in, with the caret the document's selection would report. */
function editorWith(text: string) {
  const node = document.createTextNode(text);
  const caret = { node: node as Node, offset: 0, collapsed: true };
  const readCaret = (): Caret | undefined => (caret.collapsed ? { node: caret.node, offset: caret.offset, length: caret.node === node ? node.length : (caret.node as Text).length } : undefined);
  return {
    node,
    caret,
    readCaret,
    type(characters: string) {
      node.insertData(caret.offset, characters);
      caret.offset += characters.length;
    },
    backspace() {
      node.deleteData(caret.offset - 1, 1);
      caret.offset -= 1;
    },
    forwardDelete() {
      node.deleteData(caret.offset, 1);
    },
  };
}

/** A burst over an editor holding `text`, the caret at `offset`. */
function burstIn(text: string, offset = 0, longestMs?: number) {
  const editor = editorWith(text);
  editor.caret.offset = offset;
  const onEnd = vi.fn();
  return { editor, onEnd, burst: new TypingBurst(PAUSE, onEnd, editor.readCaret, longestMs) };
}

describe('TypingBurst', () => {
  beforeEach(() => void vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] }));
  afterEach(() => void vi.useRealTimers());

  it('follows typing, Backspace and Delete in one place as one burst, ended once by the pause', () => {
    const { editor, onEnd, burst } = burstIn('Hello world. More text here.', 12);
    const steps = [() => editor.type('a'), () => editor.type('b'), () => editor.backspace(), () => editor.forwardDelete(), () => editor.type('xyz')];
    const starts = steps.map((step) => {
      step();
      const started = burst.edited();
      expect(burst.caretMoved()).toBe(true);
      vi.advanceTimersByTime(100);
      return started;
    });
    expect(starts).toEqual([true, false, false, false, false]);
    expect(onEnd).not.toHaveBeenCalled();
    // Each edit pushed the end back: 100 ms after the last one the burst still lasts.
    expect(burst.active).toBe(true);
    vi.advanceTimersByTime(PAUSE);
    expect(onEnd).toHaveBeenCalledTimes(1);
    expect(burst.active).toBe(false);
  });

  it('ends at once when the caret jumps within the node, to another node, or selects text', () => {
    for (const jump of ['within', 'node', 'select'] as const) {
      const { editor, onEnd, burst } = burstIn('One sentence. Another sentence.', 3);
      editor.type('x');
      burst.edited();
      if (jump === 'within') editor.caret.offset = 20;
      else if (jump === 'node') editor.caret.node = document.createTextNode('elsewhere');
      else editor.caret.collapsed = false;
      expect(burst.caretMoved(), jump).toBe(false);
      expect(onEnd, jump).toHaveBeenCalledTimes(1);
      expect(burst.active, jump).toBe(false);
    }
  });

  it('an edit that lands elsewhere before any selectionchange ends the burst with it', () => {
    const { editor, onEnd, burst } = burstIn('Typing here, and later there.', 6);
    editor.type('!');
    burst.edited();
    editor.caret.offset = 25;
    editor.type('?');
    expect(burst.edited()).toBe(false);
    expect(onEnd).toHaveBeenCalledTimes(1);
  });

  it('ends after its longest time however fast the typing', () => {
    const { editor, onEnd, burst } = burstIn('Some text.', 0, 1000);
    for (let elapsed = 0; elapsed < 900; elapsed += 100) {
      editor.type('a');
      burst.edited();
      vi.advanceTimersByTime(100);
    }
    expect(onEnd).not.toHaveBeenCalled();
    editor.type('b');
    burst.edited();
    vi.advanceTimersByTime(150);
    expect(onEnd).toHaveBeenCalledTimes(1);
  });

  it('cancel forgets the burst without calling back', () => {
    const { editor, onEnd, burst } = burstIn('Some text.');
    editor.type('a');
    burst.edited();
    burst.cancel();
    vi.advanceTimersByTime(PAUSE * 2);
    expect(onEnd).not.toHaveBeenCalled();
    expect(burst.caretMoved()).toBe(false);
  });

  it('any mix of typing keys keeps one burst; the first jump ends it, whatever came before', () => {
    const key = fc.oneof(
      fc.constantFrom('backspace' as const, 'delete' as const),
      fc.string({ minLength: 1, maxLength: 3 }).map((text) => ({ type: text })),
    );
    fc.assert(
      fc.property(fc.array(key, { maxLength: 12 }), fc.integer({ min: 2, max: 40 }), fc.boolean(), (keys, distance, jumpForward) => {
        const { editor, onEnd, burst } = burstIn('A sentence long enough to type in and to jump around in.', 30);
        editor.type('k');
        burst.edited();
        for (const step of keys) {
          if (step === 'backspace') {
            if (editor.caret.offset === 0) continue;
            editor.backspace();
          } else if (step === 'delete') {
            if (editor.caret.offset >= editor.node.length) continue;
            editor.forwardDelete();
          } else editor.type(step.type);
          burst.edited();
          expect(burst.caretMoved()).toBe(true);
        }
        expect(onEnd).not.toHaveBeenCalled();
        const from = editor.caret.offset;
        editor.caret.offset = Math.max(0, Math.min(editor.node.length, from + (jumpForward ? distance : -distance)));
        // A jump clamped to where the caret already was is no jump.
        const jumped = editor.caret.offset !== from;
        expect(burst.caretMoved()).toBe(!jumped);
        expect(onEnd).toHaveBeenCalledTimes(jumped ? 1 : 0);
        burst.cancel();
      }),
    );
  });
});
