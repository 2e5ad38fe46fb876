import { buildSync } from 'esbuild';
import fc from 'fast-check';
import { test, chromium, type Browser, type Page } from '@playwright/test';
import { expect } from './expect.ts';
import { CHROMIUM_PATH } from '../system.ts';
import '../fast-check-seed.ts';

// The DOM highlighter's holding of a burst (DomHighlighter.holdEdit), in Chromium itself with no
// extension and no editor library: generated sentences, some labelled, some with a bold run, are
// drawn; then bursts of the browser's own edits (typing, Backspace, Delete, typing over a
// selection) at a caret put anywhere, often at a highlight's edge. After each edit the highlighter
// is asked whether the edit may wait for the pause; when it says yes, every highlight must show
// exactly a labelled sentence that no edit since the last draw touched, at that sentence's place
// (the edits are known exactly: the caret's offset and what went in or out). When it says no, or
// at the pause, the session's update is run (spans remapped, drawn with the edit) and what is
// drawn must be the spans.

const WORDS = ['a', 'aa', 'ab', 'b', 'M', 'Moreover', 'the', 'it', 'x'];
const TYPED = ['a', 'M', 'b', 'ab', ' ', 'x', 'aa', '. '];

interface Sentence {
  words: string[];
  labelled: boolean;
  /** Which word (if any) is bold: a sentence whose range spans three text nodes. */
  bold: number;
}

const sentence = fc.record({
  words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }),
  labelled: fc.boolean(),
  bold: fc.integer({ min: -1, max: 3 }),
});

type Keystroke = { kind: 'type'; text: string } | { kind: 'backspace' } | { kind: 'delete' } | { kind: 'selectType'; length: number; text: string };

const keystroke: fc.Arbitrary<Keystroke> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('type' as const), text: fc.constantFrom(...TYPED) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('backspace' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('selectType' as const), length: fc.integer({ min: 1, max: 3 }), text: fc.constantFrom(...TYPED, '') }) },
);

/** Where a burst starts: a span's start or end (plus a small shift), or anywhere in the text. */
const caret = fc.oneof(
  fc.record({ kind: fc.constant('edge' as const), span: fc.nat(), end: fc.boolean(), shift: fc.integer({ min: -1, max: 2 }) }),
  fc.record({ kind: fc.constant('anywhere' as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
);

const scenario = fc.record({
  paragraphs: fc.array(fc.array(sentence, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 2 }),
  bursts: fc.array(fc.record({ caret, keys: fc.array(keystroke, { minLength: 1, maxLength: 4 }) }), { minLength: 1, maxLength: 4 }),
});

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

/** Runs a scenario in the page; returns the first problem seen, or undefined. */
function runInPage(page: Page, scenario: Scenario): Promise<string | undefined> {
  return page.evaluate((scenario) => {
    const lib = (window as unknown as { hold: any }).hold;
    const root = document.getElementById('editor')!;
    root.replaceChildren();
    for (const paragraph of scenario.paragraphs) {
      const p = document.createElement('p');
      paragraph.forEach((sentence: Sentence, i: number) => {
        if (i > 0) p.append(' ');
        sentence.words.forEach((word, w) => {
          const piece = `${w > 0 ? ' ' : ''}${word}${w === sentence.words.length - 1 ? '.' : ''}`;
          if (w === sentence.bold && sentence.words.length > 2 && w > 0 && w < sentence.words.length - 1) p.append(Object.assign(document.createElement('b'), { textContent: piece }));
          else p.append(piece);
        });
      });
      p.normalize();
      root.append(p);
    }
    const target = { kind: 'editor', element: root, family: lib.CONTENTEDITABLE, model: () => new lib.DomText(root), readText: () => new lib.DomText(root).text, observe: () => () => {} };
    const live = new lib.LiveDomText(target);
    const highlighter = new lib.DomHighlighter(target, 'ai', live);
    try {
      // The labelled sentences' spans, in the model's text.
      let text: string = live.model().text;
      let spans: { start: number; end: number; index: number; kind: 'ai'; score: number }[] = [];
      let from = 0;
      let index = 0;
      for (const paragraph of scenario.paragraphs) {
        for (const sentence of paragraph) {
          const words = `${sentence.words.join(' ')}.`;
          const at = text.indexOf(words, from);
          if (at < 0) return `sentence "${words}" not found in ${JSON.stringify(text)}`;
          from = at + words.length;
          if (sentence.labelled) spans.push({ start: at, end: at + words.length, index, kind: 'ai', score: 0.9 });
          index++;
        }
      }
      highlighter.draw(spans);

      /** Every range registered, as its offset in the text and what it shows. */
      const shown = () => {
        const found: { start: number; text: string }[] = [];
        for (const name of ['redline-ai-1', 'redline-ai-2', 'redline-ai-3']) {
          for (const range of (CSS.highlights.get(name) ?? []) as Iterable<Range>) {
            const start = live.model().offsetOf(range.startContainer, range.startOffset);
            found.push({ start: start ?? -1, text: range.toString() });
          }
        }
        return found.sort((a, b) => a.start - b.start);
      };
      const drawnRight = (when: string) => {
        const expected = spans.map((span) => ({ start: span.start, text: text.slice(span.start, span.end) })).filter((span) => span.text);
        const actual = shown();
        return JSON.stringify(actual) === JSON.stringify(expected) ? undefined : `${when}: drawn ${JSON.stringify(actual)}, spans ${JSON.stringify(expected)} in ${JSON.stringify(text)}`;
      };
      const update = () => {
        const now: string = live.model().text;
        // As the session's update: the same text drawn again (the edits since may have moved the ranges).
        if (now === text) return highlighter.draw(spans);
        const edit = lib.diffText(text, now);
        spans = lib.remapSpans(text, now, spans, edit);
        text = now;
        highlighter.draw(spans, edit);
      };
      const problem = drawnRight('first draw');
      if (problem) return problem;

      const selection = getSelection()!;
      const caretOffset = () => live.model().offsetOf(selection.anchorNode!, selection.anchorOffset) as number | undefined;
      const log: string[] = [];
      for (const burst of scenario.bursts) {
        // The caret goes elsewhere: the burst before it was followed (the session ends a burst then).
        update();
        const problem = drawnRight(`after ${log.join(' ')}`);
        if (problem) return problem;
        let at: number;
        if (burst.caret.kind === 'edge' && spans.length) {
          const span = spans[burst.caret.span % spans.length]!;
          at = (burst.caret.end ? span.end : span.start) + burst.caret.shift;
        } else at = Math.round((burst.caret.kind === 'anywhere' ? burst.caret.at : 0.5) * text.length);
        at = Math.max(0, Math.min(text.length, at));
        const point = live.model().position(at);
        if (!point) continue;
        selection.collapse(point.node, point.offset);
        log.push(`caret@${at}`);
        // The sentences as drawn, followed exactly through the burst's edits.
        const instances = spans.map((span) => ({ start: span.start, sentence: text.slice(span.start, span.end), touched: false }));
        let before = text;
        for (const key of burst.keys) {
          log.push(JSON.stringify(key));
          const offset = caretOffset();
          if (offset === undefined) break;
          let edit: { start: number; removed: number; inserted: string } | undefined;
          if (key.kind === 'type') {
            document.execCommand('insertText', false, key.text);
            edit = { start: offset, removed: 0, inserted: key.text };
          } else if (key.kind === 'backspace') {
            document.execCommand('delete');
          } else if (key.kind === 'delete') {
            document.execCommand('forwardDelete');
          } else {
            for (let i = 0; i < key.length; i++) selection.modify('extend', 'forward', 'character');
            const end = live.model().offsetOf(selection.focusNode!, selection.focusOffset) ?? offset;
            if (key.text) document.execCommand('insertText', false, key.text);
            else document.execCommand('delete');
            edit = { start: offset, removed: end - offset, inserted: key.text };
          }
          const held = highlighter.holdEdit();
          const after: string = live.model().text;
          if (key.kind === 'backspace') edit = { start: offset - (before.length - after.length), removed: before.length - after.length, inserted: '' };
          if (key.kind === 'delete') edit = { start: offset, removed: before.length - after.length, inserted: '' };
          const exact = edit && before.slice(0, edit.start) + edit.inserted + before.slice(edit.start + edit.removed) === after;
          if (exact) {
            // What was typed over the same characters changed nothing there ("a" typed over "a").
            const removed = before.slice(edit!.start, edit!.start + edit!.removed);
            let same = 0;
            while (same < removed.length && same < edit!.inserted.length && removed[same] === edit!.inserted[same]) same++;
            let tail = 0;
            while (tail < removed.length - same && tail < edit!.inserted.length - same && removed.at(-1 - tail) === edit!.inserted.at(-1 - tail)) tail++;
            edit = { start: edit!.start + same, removed: removed.length - same - tail, inserted: edit!.inserted.slice(same, edit!.inserted.length - tail) };
          }
          for (const instance of instances) {
            const end = instance.start + instance.sentence.length;
            if (!exact) {
              // The browser did something else: only the text tells, and an instance any change reaches is touched.
              const e = lib.diffText(before, after);
              if (!e) continue;
              if (e.start + e.removed <= instance.start && !(e.removed === 0 && e.start === instance.start)) instance.start += e.inserted - e.removed;
              else if (e.start >= end) {
                /* before it: unchanged */
              } else instance.touched = true;
              continue;
            }
            if (edit!.removed === 0 && !edit!.inserted) continue;
            const removedEnd = edit!.start + edit!.removed;
            if (removedEnd <= instance.start && (edit!.removed > 0 || edit!.start <= instance.start)) instance.start += edit!.inserted.length - edit!.removed;
            else if (edit!.start >= end) {
              /* after it: unchanged */
            } else instance.touched = true;
          }
          before = after;
          if (!held) {
            update();
            const problem = drawnRight(`after ${log.join(' ')} (not held)`);
            if (problem) return problem;
            instances.splice(0, instances.length, ...spans.map((span) => ({ start: span.start, sentence: text.slice(span.start, span.end), touched: false })));
            continue;
          }
          for (const range of shown()) {
            const instance = instances.find((candidate) => candidate.start === range.start && candidate.sentence === range.text);
            if (!instance || instance.touched) {
              return `held after ${log.join(' ')}: "${range.text}" at ${range.start} is ${instance ? 'a sentence an edit touched' : 'no labelled sentence at its place'} in ${JSON.stringify(after)}; sentences ${JSON.stringify(instances)}`;
            }
          }
        }
      }
      update();
      return drawnRight(`at the end, after ${log.join(' ')}`);
    } finally {
      highlighter.dispose();
      live.dispose();
    }
  }, scenario);
}

let browser: Browser;
let page: Page;

test.beforeAll(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH });
  page = await browser.newPage();
  const { outputFiles } = buildSync({
    stdin: {
      contents: [
        "export { DomHighlighter } from './extension/lib/content/highlighters.ts';",
        "export { LiveDomText } from './extension/lib/content/live-text.ts';",
        "export { DomText } from './extension/lib/content/dom-text.ts';",
        "export { diffText, remapSpans } from './extension/lib/content/remap.ts';",
        "export { CONTENTEDITABLE } from './extension/lib/content/editors.ts';",
      ].join('\n'),
      resolveDir: process.cwd(),
      loader: 'ts',
    },
    bundle: true,
    write: false,
    format: 'iife',
    globalName: 'hold',
    // The extension's build (WXT) fills import.meta.env; here it is empty, so the Chromium paths run.
    define: { 'import.meta.env': '{}' },
  });
  await page.setContent('<div id="editor" contenteditable="true" style="white-space: pre-wrap"></div>');
  await page.addScriptTag({ content: `${outputFiles[0]!.text}\nwindow.hold = hold;` });
  await page.focus('#editor');
});

test.afterAll(async () => {
  await browser.close();
});

test('cases found by the property: a held edit inside a sentence is not taken for typing before it', async () => {
  // "a" typed after the first letter of "a.": "aa." ends with the sentence, as if typed before
  // it; the range was moved one on and painted over "a." the writer had just edited.
  const typedInside: Scenario = {
    paragraphs: [[{ words: ['a'], labelled: true, bold: 0 }]],
    bursts: [{ caret: { kind: 'edge', span: 0, end: false, shift: 1 }, keys: [{ kind: 'type', text: 'a' }] }],
  };
  // A space typed over in the bold word of "a <b>a</b> a.": the range's ends are in the text
  // nodes around it, so the edit was held and the sentence painted with it.
  const inBoldWord: Scenario = {
    paragraphs: [[{ words: ['a', 'a', 'a'], labelled: true, bold: 1 }, { words: ['a'], labelled: false, bold: 0 }]],
    bursts: [{ caret: { kind: 'edge', span: 0, end: false, shift: 1 }, keys: [{ kind: 'selectType', length: 1, text: 'a' }] }],
  };
  // "ab" typed before "a.", then "aba" typed over with "a": the range's start went to the
  // selection's start and it read "a." again, though the sentence's own "a" was gone (CI's seed).
  const typedOverItsStart: Scenario = {
    paragraphs: [[{ words: ['a'], labelled: true, bold: 0 }]],
    bursts: [
      { caret: { kind: 'anywhere', at: 0 }, keys: [{ kind: 'type', text: 'ab' }] },
      { caret: { kind: 'anywhere', at: 0 }, keys: [{ kind: 'selectType', length: 3, text: 'a' }, { kind: 'type', text: 'a' }] },
    ],
  };
  expect(await runInPage(page, typedInside)).toBeUndefined();
  expect(await runInPage(page, inBoldWord)).toBeUndefined();
  expect(await runInPage(page, typedOverItsStart)).toBeUndefined();
});

test('a held edit leaves every highlight on a labelled sentence no edit touched, at its place; the update after it draws the spans', async () => {
  await fc.assert(
    fc.asyncProperty(scenario, async (scenario) => {
      expect(await runInPage(page, scenario)).toBeUndefined();
    }),
    { numRuns: Number(process.env.HOLD_RUNS ?? 300) },
  );
});
