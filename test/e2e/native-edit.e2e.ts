import { readFileSync } from 'node:fs';
import { transformSync } from 'esbuild';
import fc from 'fast-check';
import { test, chromium, type Browser, type Page } from '@playwright/test';
import { expect } from './expect.ts';
import { CHROMIUM_PATH } from '../system.ts';

// The browser's own edit as an accept runs it (extension/lib/page/native-edit.ts), on generated
// paragraphs whose formatting runs begin and end anywhere, spaces included, in Chromium itself
// with no editor library: the paragraph holds exactly the text asked for, no no-break space, and
// its style attribute as it was. Beside it, the same edits without white space preserved: some
// must come out with a no-break space, or the generator would not reach the case it guards.

const WORDS = ['a', 'the', 'Moreover', 'tools', 'of', 'I', 'growth', 'it', 'role', 'x'];
const TAGS = ['', 'em', 'strong', 'a', 'span', 'b'] as const;
const STYLES = [null, 'color: rgb(200, 0, 0)', 'white-space: normal'] as const;

interface Case {
  /** The paragraph's text cut into runs, each plain or in an inline element. */
  runs: { text: string; tag: (typeof TAGS)[number] }[];
  style: (typeof STYLES)[number];
  start: number;
  end: number;
  replacement: string;
}

const sentence = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 12 }).map((words) => words.join(' '));

const cases: fc.Arbitrary<Case> = fc
  .record({
    text: sentence,
    cuts: fc.array(fc.nat(), { maxLength: 6 }),
    tags: fc.array(fc.constantFrom(...TAGS), { minLength: 7, maxLength: 7 }),
    style: fc.constantFrom(...STYLES),
    a: fc.nat(),
    b: fc.nat(),
    replacement: fc.oneof(sentence, sentence.map((text) => ` ${text}`), sentence.map((text) => `${text} `), fc.constant(' '), fc.constant('')),
  })
  .map(({ text, cuts, tags, style, a, b, replacement }) => {
    const points = [...new Set(cuts.map((cut) => cut % text.length))].filter((cut) => cut > 0).sort((x, y) => x - y);
    const bounds = [0, ...points, text.length];
    const runs = bounds.slice(1).map((end, i) => ({ text: text.slice(bounds[i], end), tag: tags[i]! }));
    const [start, end] = [a % (text.length + 1), b % (text.length + 1)].sort((x, y) => x - y) as [number, number];
    return { runs, style, start, end, replacement };
  })
  // What a rewrite's part could be: it changes something, and leaves single spaces between words.
  .filter(({ runs, start, end, replacement }) => {
    const text = runs.map((run) => run.text).join('');
    const result = text.slice(0, start) + replacement + text.slice(end);
    return (start < end || replacement !== '') && result.trim() === result && result !== '' && !/\s\s/.test(result);
  });

async function editInPage(page: Page, edit: Case, preserve: boolean, inShadow = false): Promise<{ text: string; style: string | null; host: string | null }> {
  return page.evaluate(
    ({ edit, preserve, inShadow }) => {
      const host = inShadow ? document.getElementById('shadow-host')!.shadowRoot!.querySelector<HTMLElement>('div')! : document.getElementById('editor')!;
      const paragraph = document.createElement('p');
      if (edit.style !== null) paragraph.setAttribute('style', edit.style);
      for (const run of edit.runs) {
        const node = document.createTextNode(run.text);
        if (!run.tag) paragraph.append(node);
        else {
          const element = document.createElement(run.tag);
          if (run.tag === 'a') element.setAttribute('href', '#');
          element.append(node);
          paragraph.append(element);
        }
      }
      host.replaceChildren(paragraph, Object.assign(document.createElement('p'), { textContent: 'The next paragraph.' }));
      host.focus();
      const point = (offset: number): [Node, number] => {
        const walker = document.createTreeWalker(paragraph, NodeFilter.SHOW_TEXT);
        let last: Text | undefined;
        for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
          if (offset <= node.length) return [node, offset];
          offset -= node.length;
          last = node;
        }
        return [last!, last!.length];
      };
      const range = document.createRange();
      range.setStart(...point(edit.start));
      range.setEnd(...point(edit.end));
      const selection = getSelection()!;
      selection.removeAllRanges();
      selection.addRange(range);
      const api = window as unknown as { editNatively(doc: Document, text: string, editor?: Node): boolean };
      if (preserve) api.editNatively(document, edit.replacement, host);
      else if (edit.replacement) document.execCommand('insertText', false, edit.replacement);
      else document.execCommand('delete');
      return { text: paragraph.textContent ?? '', style: paragraph.getAttribute('style'), host: host.getAttribute('style') };
    },
    { edit, preserve, inShadow },
  );
}

let browser: Browser;
let page: Page;

test.beforeAll(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH });
  page = await browser.newPage();
  const source = readFileSync('extension/lib/page/native-edit.ts', 'utf8');
  const { code } = transformSync(source, { loader: 'ts', format: 'iife', globalName: 'nativeEdit' });
  await page.setContent('<div id="editor" contenteditable="true"></div><div id="shadow-host"></div>');
  // An editor in a shadow root (a web component's), where the document's style sheets do not reach.
  await page.evaluate(() => {
    const shadow = document.getElementById('shadow-host')!.attachShadow({ mode: 'open' });
    shadow.innerHTML = '<style>div { padding: 4px; }</style><div contenteditable="true"></div>';
  });
  await page.addScriptTag({ content: `${code}\nwindow.editNatively = nativeEdit.editNatively;` });
});

test.afterAll(async () => {
  await browser.close();
});

test('the browser edit of an accept writes spaces as given, whatever formatting they border', async () => {
  let withoutPreserving = 0;
  let runs = 0;
  await fc.assert(
    fc.asyncProperty(cases, async (edit) => {
      runs++;
      const text = edit.runs.map((run) => run.text).join('');
      const expected = text.slice(0, edit.start) + edit.replacement + text.slice(edit.end);
      const edited = await editInPage(page, edit, true);
      expect(edited.text).toBe(expected);
      expect(edited.style).toBe(edit.style);
      expect(edited.host).toBeNull();
      const control = await editInPage(page, edit, false);
      if (control.text.includes('\u00a0')) withoutPreserving++;
    }),
    { numRuns: 300, seed: 20261127 },
  );
  console.log(`native edit: ${runs} generated edits; without white space preserved, ${withoutPreserving} left a no-break space`);
  expect(withoutPreserving).toBeGreaterThan(runs / 20);
});

test('in an editor inside a shadow root too (a web component), the browser edit writes spaces as given', async () => {
  let withoutPreserving = 0;
  let runs = 0;
  await fc.assert(
    fc.asyncProperty(cases, async (edit) => {
      runs++;
      const text = edit.runs.map((run) => run.text).join('');
      const edited = await editInPage(page, edit, true, true);
      expect(edited.text).toBe(text.slice(0, edit.start) + edit.replacement + text.slice(edit.end));
      expect(edited.style).toBe(edit.style);
      expect(edited.host).toBeNull();
      if ((await editInPage(page, edit, false, true)).text.includes('\u00a0')) withoutPreserving++;
    }),
    { numRuns: 100, seed: 20261128 },
  );
  console.log(`native edit in a shadow root: ${runs} generated edits; without white space preserved, ${withoutPreserving} left a no-break space`);
  expect(withoutPreserving).toBeGreaterThan(runs / 20);
  // The sheet that preserved white space is gone again.
  expect(await page.evaluate(() => document.getElementById('shadow-host')!.shadowRoot!.adoptedStyleSheets.length)).toBe(0);
});
