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
