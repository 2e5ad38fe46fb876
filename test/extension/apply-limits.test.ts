// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { applyVerified } from '../../extension/lib/content/apply.ts';
import { domTarget } from '../../extension/lib/content/target.ts';
import { beforeInputEditor } from './beforeinput-editor.ts';

/**
 * A page that draws no frames (a tab in the background: requestAnimationFrame never calls
 * back) gets no edit at all: an editor there could take it and render it only later, after the
 * panel was told otherwise. The e2e suite cannot hide a tab in headless Chromium (every page
 * stays visible), so the frame clock is stopped here instead.
 */
const ORIGINAL = 'The first sentence is long enough.';
const REPLACEMENT = 'A rewritten first sentence.';

const editor = () => beforeInputEditor(`${ORIGINAL} The second one stays.`);

const realFrame = window.requestAnimationFrame;
afterEach(() => {
  window.requestAnimationFrame = realFrame;
});

describe('apply in a page that draws no frames', () => {
  it('ends in timeout within the frame limit, tries nothing, and leaves the text as it was', async () => {
    const { root, attempts } = editor();
    window.requestAnimationFrame = () => 0; // the background tab's frame clock
    const target = domTarget('editor', root);
    const before = target.readText();
    const started = performance.now();
    const result = await applyVerified(target, 0, ORIGINAL.length, ORIGINAL, REPLACEMENT, { budgetMs: 6000, frameMs: 300 });
    expect(result).toEqual({ status: 'timeout' });
    expect(performance.now() - started).toBeLessThan(5000); // bounded by the frame limit, with a wide margin
    expect(attempts).toEqual([]);
    expect(target.readText()).toBe(before);
  });

  it('with frames drawn, the same editor takes the same edit (the limit is what stopped it)', async () => {
    const { root, attempts } = editor();
    const target = domTarget('editor', root);
    const result = await applyVerified(target, 0, ORIGINAL.length, ORIGINAL, REPLACEMENT, { budgetMs: 6000, frameMs: 1500 });
    expect(result).toEqual({ status: 'applied', strategy: 'beforeinput', at: 0 });
    expect(attempts).toEqual(['insertText']);
    expect(target.readText()).toBe(`${REPLACEMENT} The second one stays.`);
  });
});
