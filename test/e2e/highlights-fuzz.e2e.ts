import fc from 'fast-check';
import type { Page } from '@playwright/test';
import { test, expect, type Stack } from './fixtures.ts';
import { cardText, waitForToast } from './page-probes.ts';
import { AI_SENTENCES, PAGE_TEXT } from './pages/text.ts';

/**
 * Live highlights under random writing (real key events, pastes of odd whitespace, undo and
 * redo, caret jumps, scrolling). After every burst, once the writer pauses: every highlight
 * covers exactly an AI-labelled sentence the writer left as it was, at its place; every such
 * sentence in view is highlighted; a textarea's mirror reads as the field; the side panel's
 * live items are the highlighted ones; nothing in the page threw. At the end a highlight's card
 * rewrites its sentence and Accept replaces exactly that sentence.
 *
 * The seed is fixed (HLPROBE_SEED overrides it, HLPROBE_RUNS the runs per page); a failure
 * reports the seed and the shrunk sequence of actions.
 */

const SEED = Number(process.env.HLPROBE_SEED ?? 20261128);
const RUNS = Number(process.env.HLPROBE_RUNS ?? 5);
const SECOND_PARAGRAPH = 'A second paragraph, written by me on a Tuesday.';

type Action =
  | { kind: 'type'; text: string }
  | { kind: 'key'; key: 'Backspace' | 'Delete' | 'Enter'; times: number }
  | { kind: 'paste'; text: string }
  | { kind: 'selectType'; keys: number; backwards: boolean; text: string }
  | { kind: 'undo' | 'redo' }
  | { kind: 'arrows'; key: 'ArrowLeft' | 'ArrowRight' | 'ArrowUp' | 'ArrowDown' | 'Home' | 'End'; times: number }
  | { kind: 'click'; x: number; y: number }
  | { kind: 'scroll'; dy: number }
  /** A click just before an AI sentence or just after it (the caret at a highlight's edge). */
  | { kind: 'edge'; pick: number; end: boolean };

const ODD_PASTES = ['\tword\t', 'a\u00a0b ', 'line\r\nnext ', 'x\u2028y', '😀 ', 'e\u0301 ', 'שלום עולם ', ' \u00a0 ', 'مرحبا ', '\r\n', 'tab\there'];
const WORDS = ['word ', ' ', 'x', 'Hello. ', 'typed ', 'é', 'and', '. '];

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('type' as const), text: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }).map((words) => words.join('')) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('key' as const), key: fc.constantFrom('Backspace' as const, 'Delete' as const, 'Enter' as const), times: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('paste' as const), text: fc.constantFrom(...ODD_PASTES) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('selectType' as const), keys: fc.integer({ min: 1, max: 12 }), backwards: fc.boolean(), text: fc.constantFrom('', 'word', 'x ', 'Z') }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('undo' as const, 'redo' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('arrows' as const), key: fc.constantFrom('ArrowLeft' as const, 'ArrowRight' as const, 'ArrowUp' as const, 'ArrowDown' as const, 'Home' as const, 'End' as const), times: fc.integer({ min: 1, max: 8 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('click' as const), x: fc.double({ min: 0.02, max: 0.98, noNaN: true }), y: fc.double({ min: 0.02, max: 0.98, noNaN: true }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('scroll' as const), dy: fc.integer({ min: -600, max: 600 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('edge' as const), pick: fc.double({ min: 0, max: 0.999, noNaN: true }), end: fc.boolean() }) },
);

/** Bursts: a few actions in quick succession, then a pause (the burst ends) and the checks. */
const scenario = fc.record({
  start: fc.record({ x: fc.double({ min: 0.05, max: 0.95, noNaN: true }), y: fc.double({ min: 0.05, max: 0.95, noNaN: true }) }),
  bursts: fc.array(fc.array(action, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 6 }),
  accept: fc.double({ min: 0, max: 0.999, noNaN: true }),
});

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

interface Surface {
  name: string;
  page: string;
  root: string;
  /** Paragraphs of PAGE_TEXT (2 AI sentences each): from 32 on, only the spans in view are registered. */
  paragraphs: number;
  field?: boolean;
}

const SURFACES: Surface[] = [
  { name: 'textarea (overflowing: edits held)', page: 'plain', root: '#field', paragraphs: 4, field: true },
  { name: 'textarea, long', page: 'plain', root: '#field', paragraphs: 36, field: true },
  { name: 'contenteditable', page: 'plain', root: '#editor', paragraphs: 1 },
  { name: 'contenteditable, long (viewport window)', page: 'plain', root: '#editor', paragraphs: 36 },
  { name: 'Quill', page: 'quill', root: '.ql-editor', paragraphs: 1 },
];

/** What the page shows: the text (a field's value, an editor's text nodes joined) and every highlight in it. */
interface Shown {
  text: string;
  highlights: { start: number; text: string }[];
  /** Problems seen on the way: stray ranges, held marks left, a mirror that reads otherwise than the field. */
  problems: string[];
}

function readShown(page: Page, surface: Surface): Promise<Shown> {
  return page.evaluate(
    ([selector, field]) => {
      const root = document.querySelector(selector)!;
      const problems: string[] = [];
      if (field) {
        const value = (root as HTMLTextAreaElement).value;
        const mirror = document.querySelector('redline-overlay')?.shadowRoot?.querySelector('.mirror');
        const highlights: { start: number; text: string; end: number }[] = [];
        let text = '';
        if (mirror) {
          const walker = document.createTreeWalker(mirror, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
            const mark = node.parentElement?.closest('mark');
            if (mark) {
              if (mark.classList.contains('held')) problems.push(`a held mark after the pause: "${node.data}"`);
              const last = highlights.at(-1);
              if (last && last.end === text.length) {
                last.text += node.data;
                last.end += node.data.length;
              } else highlights.push({ start: text.length, text: node.data, end: text.length + node.data.length });
            }
            text += node.data;
          }
        }
        text = text.replace(/\u200b$/, '');
        if (mirror && text !== value) problems.push(`the mirror reads ${JSON.stringify(text.slice(0, 400))}…, the field ${JSON.stringify(value.slice(0, 400))}…`);
        return { text: value, highlights: highlights.map(({ start, text }) => ({ start, text })), problems };
      }
      const text = root.textContent ?? '';
      const ranges: Range[] = [];
      for (const name of ['redline-ai-1', 'redline-ai-2', 'redline-ai-3']) for (const range of CSS.highlights.get(name) ?? []) ranges.push(range as Range);
      ranges.sort((a, b) => a.compareBoundaryPoints(Range.START_TO_START, b));
      const highlights = ranges.flatMap((range) => {
        if (!range.startContainer.isConnected || !root.contains(range.startContainer) || !root.contains(range.endContainer)) {
          problems.push(`a range outside the editor's text: "${range.toString()}"`);
          return [];
        }
        const before = document.createRange();
        before.setStart(root, 0);
        before.setEnd(range.startContainer, range.startOffset);
        return [{ start: before.toString().length, text: range.toString() }];
      });
      return { text, highlights, problems };
    },
    [surface.root, !!surface.field] as const,
  );
}

/** An AI sentence of the document as checked, followed through the writer's edits. */
interface Instance {
  sentence: string;
  start: number;
  /** intact: no edit touched it (it must be highlighted when in view); changed: it must not be, unless its text is back where it was. */
  state: 'intact' | 'changed';
}

/** The edit from `before` to `after` as one replaced region, taken with the longest common prefix first, or the longest common suffix first. */
function diff(before: string, after: string, suffixFirst: boolean): { start: number; removed: number; inserted: number } {
  const shorter = Math.min(before.length, after.length);
  let prefix = 0;
  let suffix = 0;
  if (suffixFirst) {
    while (suffix < shorter && before[before.length - 1 - suffix] === after[after.length - 1 - suffix]) suffix++;
    while (prefix < shorter - suffix && before[prefix] === after[prefix]) prefix++;
  } else {
    while (prefix < shorter && before[prefix] === after[prefix]) prefix++;
    while (suffix < shorter - prefix && before[before.length - 1 - suffix] === after[after.length - 1 - suffix]) suffix++;
  }
  return { start: prefix, removed: before.length - prefix - suffix, inserted: after.length - prefix - suffix };
}

/** Follows the instances through one edit of the text: an instance either alignment of the edit leaves alone moves with it, the others are changed. */
function follow(instances: Instance[], before: string, after: string): void {
  if (before === after) return;
  const edits = [diff(before, after, false), diff(before, after, true)];
  for (const instance of instances) {
    const end = instance.start + instance.sentence.length;
    let moved: number | undefined;
    for (const edit of edits) {
      if (end <= edit.start) moved = instance.start;
      else if (instance.start >= edit.start + edit.removed) moved = instance.start + edit.inserted - edit.removed;
      if (moved !== undefined) break;
    }
    if (moved !== undefined && backAtItsStart(instance, moved, edits, after)) moved = instance.start;
    if (moved === undefined) {
      // Where it was, as far as the edit lets it be known (its text may come back there: an undo).
      const edit = edits[0]!;
      instance.state = 'changed';
      if (instance.start > edit.start) instance.start = instance.start >= edit.start + edit.removed ? instance.start + edit.inserted - edit.removed : edit.start;
    } else instance.start = moved;
  }
}

/**
 * A changed sentence whose text an edit at its start puts back right where it was (an undo of what
 * was deleted there) is there, not past what went in, where its text is not.
 */
function backAtItsStart(instance: Instance, moved: number, edits: { start: number }[], after: string): boolean {
  if (instance.state !== 'changed' || after.startsWith(instance.sentence, moved)) return false;
  return edits.some((edit) => edit.start === instance.start) && after.startsWith(instance.sentence, instance.start);
}

async function act(page: Page, surface: Surface, step: Action): Promise<void> {
  switch (step.kind) {
    case 'type':
      return page.keyboard.type(step.text, { delay: 15 });
    case 'key':
      for (let i = 0; i < step.times; i++) await page.keyboard.press(step.key, { delay: 10 });
      return;
    case 'paste': {
      const pasted = await page.evaluate((text) => navigator.clipboard.writeText(text).then(() => true, () => false), step.text);
      if (pasted) await page.keyboard.press('Control+V');
      else await page.keyboard.insertText(step.text);
      return;
    }
    case 'selectType':
      for (let i = 0; i < step.keys; i++) await page.keyboard.press(step.backwards ? 'Shift+ArrowLeft' : 'Shift+ArrowRight');
      if (step.text) await page.keyboard.type(step.text, { delay: 15 });
      else await page.keyboard.press('Backspace');
      return;
    case 'undo':
      return page.keyboard.press('Control+z');
    case 'redo':
      return page.keyboard.press('Control+y');
    case 'arrows':
      for (let i = 0; i < step.times; i++) await page.keyboard.press(step.key);
      return;
    case 'click': {
      const box = await visibleBox(page, surface);
      if (box) await page.mouse.click(box.x + step.x * box.width, box.y + step.y * box.height);
      return;
    }
    case 'edge': {
      const point = await edgePoint(page, surface, step.pick, step.end);
      if (point) await page.mouse.click(point.x, point.y);
      return;
    }
    case 'scroll': {
      const box = await visibleBox(page, surface);
      if (box) await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.wheel(0, step.dy);
      await page.waitForTimeout(50);
      return;
    }
  }
}

/** A point just inside the first or last character of an AI sentence in view, or undefined when none is in view. */
function edgePoint(page: Page, surface: Surface, pick: number, end: boolean): Promise<{ x: number; y: number } | undefined> {
  return page.evaluate(
    ([selector, field, pick, end, edges]) => {
      const root = field ? document.querySelector('redline-overlay')?.shadowRoot?.querySelector('.mirror') : document.querySelector(selector);
      if (!root) return undefined;
      const points: { x: number; y: number }[] = [];
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      const clip = (field ? document.querySelector(selector)! : document.documentElement).getBoundingClientRect();
      for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
        for (const edge of edges) {
          for (let at = node.data.indexOf(edge); at >= 0; at = node.data.indexOf(edge, at + 1)) {
            const range = document.createRange();
            const offset = end ? at + edge.length - 1 : at;
            range.setStart(node, offset);
            range.setEnd(node, offset + 1);
            const rect = range.getClientRects()[0];
            if (!rect || rect.top < Math.max(0, clip.top) + 2 || rect.bottom > Math.min(innerHeight, clip.bottom) - 2) continue;
            points.push({ x: end ? rect.right - 1 : rect.left + 1, y: rect.top + rect.height / 2 });
          }
        }
      }
      return points[Math.floor(pick * points.length)];
    },
    [surface.root, !!surface.field, pick, end, end ? ['innovation.', 'paradigm.'] : ["In today's", 'Moreover,']] as const,
  );
}

/** The part of the editor in the viewport. */
async function visibleBox(page: Page, surface: Surface): Promise<{ x: number; y: number; width: number; height: number } | undefined> {
  return page.locator(surface.root).evaluate((element) => {
    const rect = element.getBoundingClientRect();
    const top = Math.max(rect.top, 0);
    const bottom = Math.min(rect.bottom, innerHeight);
    return bottom - top < 10 ? undefined : { x: rect.left + 4, y: top + 4, width: rect.width - 8, height: bottom - top - 8 };
  });
}

/** The instances whose text is in view now (the extension registers at least those). */
function inView(page: Page, surface: Surface, instances: Instance[]): Promise<boolean[]> {
  return page.evaluate(
    ([selector, field, spans]) => {
      const root = document.querySelector(selector)!;
      if (field) return spans.map(() => true); // the mirror marks every span in the end
      const nodes: Text[] = [];
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) nodes.push(node);
      const at = (offset: number) => {
        let start = 0;
        for (const node of nodes) {
          if (offset <= start + node.length) return { node, offset: offset - start };
          start += node.length;
        }
        return undefined;
      };
      return spans.map(([start, end]) => {
        const from = at(start!);
        const to = at(end!);
        if (!from || !to) return false;
        const range = document.createRange();
        range.setStart(from.node, from.offset);
        range.setEnd(to.node, to.offset);
        const rect = range.getBoundingClientRect();
        // Well inside the view: the extension's window is read from the same boxes.
        return rect.bottom > 20 && rect.top < innerHeight - 20;
      });
    },
    [surface.root, !!surface.field, instances.map((instance) => [instance.start, instance.start + instance.sentence.length] as [number, number])] as const,
  );
}

async function tabState(stack: Stack, page: Page): Promise<any> {
  const tabId = await stack.tabIdOf(page);
  return stack.serviceWorker.evaluate(async (id) => (await chrome.storage.session.get(`tab-${id}`))[`tab-${id}`], tabId);
}
declare const chrome: any;

async function openAndCheck(page: Page, stack: Stack, surface: Surface, start: { x: number; y: number }): Promise<string> {
  await page.goto(`${stack.pagesUrl}/${surface.page}.html`);
  await expect.poll(() => page.evaluate(() => typeof (window as unknown as { editorText?: unknown }).editorText)).toBe('function');
  const root = page.locator(surface.root);
  if (surface.field) {
    await root.evaluate((element: HTMLTextAreaElement, count) => {
      element.style.height = '240px';
      element.value = [...Array.from({ length: count }, () => element.value.split('\n\n')[0]), element.value.split('\n\n')[1]].join('\n\n');
    }, surface.paragraphs);
  } else if (surface.paragraphs > 1) {
    await root.evaluate((element, [count, text, second]) => {
      element.innerHTML = [...Array.from({ length: count as number }, () => `<p>${text}</p>`), `<p>${second}</p>`].join('');
    }, [surface.paragraphs, PAGE_TEXT, SECOND_PARAGRAPH] as const);
  }
  await root.click();
  const box = (await visibleBox(page, surface))!;
  await page.mouse.click(box.x + start.x * box.width, box.y + start.y * box.height);
  await stack.run(page, 'detector');
  await waitForToast(page, new RegExp(`${(2 * surface.paragraphs).toLocaleString('en')} sentences? labelled AI`));
  return (await readShown(page, surface)).text;
}

async function expectShown(page: Page, stack: Stack, surface: Surface, instances: Instance[], trail: string): Promise<Shown> {
  let shown: Shown | undefined;
  await expect(async () => {
    shown = await readShown(page, surface);
    expect(shown.problems, trail).toEqual([]);
    const { text, highlights } = shown;
    let end = 0;
    for (const highlight of highlights) {
      expect(highlight.start, `${trail}\nhighlights overlap or are out of order`).toBeGreaterThanOrEqual(end);
      end = highlight.start + highlight.text.length;
      expect(text.slice(highlight.start, end), trail).toBe(highlight.text);
      const instance = instances.find((candidate) => candidate.start === highlight.start && candidate.sentence === highlight.text);
      expect(instance, `${trail}\n"${highlight.text}" at ${highlight.start} is no AI sentence at its place; sentences: ${JSON.stringify(instances)}`).toBeDefined();
      if (instance!.state === 'changed') expect(text.slice(instance!.start, instance!.start + instance!.sentence.length), `${trail}\na changed sentence is highlighted`).toBe(instance!.sentence);
    }
    const intact = instances.filter((instance) => instance.state === 'intact');
    const visible = await inView(page, surface, intact);
    const missing = intact.filter((instance, i) => visible[i] && !highlights.some((highlight) => highlight.start === instance.start));
    expect(missing, `${trail}\nsentences no edit touched, not highlighted`).toEqual([]);
  }).toPass({ timeout: 3_000 });

  // The side panel's live items: the sentences highlighted (all of them unless only the view is registered).
  const windowed = !surface.field && surface.paragraphs * 2 >= 64;
  const highlighted = shown!.highlights.map((highlight) => highlight.text).sort();
  await expect
    .poll(
      async () => {
        const check = (await tabState(stack, page))?.checks?.detector;
        const chunks: { text: string; type: string }[] = check?.response?.result?.data?.details?.chunks ?? [];
        const live: number[] = check?.live ?? chunks.map((_, index) => index);
        const texts = live.filter((index) => chunks[index]?.type === 'AI').map((index) => chunks[index]!.text.trim()).sort();
        return windowed ? texts.length >= highlighted.length && texts.length <= instances.length : JSON.stringify(texts) === JSON.stringify(highlighted);
      },
      { message: `${trail}\nthe side panel's live items are not the highlighted sentences (${JSON.stringify(highlighted)})`, timeout: 3_000 },
    )
    .toBe(true);
  return shown!;
}

for (const surface of SURFACES) {
  test(`${surface.name}: after random writing, highlights cover exactly the AI sentences left as they were, and Accept replaces exactly its sentence`, async ({ page, stack }) => {
    test.setTimeout(300_000);
    // The settings live in the worker's browser: the other tests get theirs back.
    const settings = await stack.serviceWorker.evaluate(async () => (await chrome.storage.local.get('settings')).settings);
    test.info().attach('seed', { body: `HLPROBE_SEED=${SEED} HLPROBE_RUNS=${RUNS}` });
    await stack.configure({ confirmAboveWords: 100_000, defaultModel: 'cognia' });
    await stack.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(stack.pagesUrl).origin });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      // The test pages have no icon: the browser's request for one is no error of the page.
      if (message.type() === 'error' && !message.location().url.endsWith('/favicon.ico')) errors.push(`console error: ${message.text()} (${message.location().url})`);
    });
    let runs = 0;
    const failures: string[] = [];
    await fc.assert(
      fc.asyncProperty(scenario, async (scenario) => {
        runs++;
        try {
          await writeAndCheck(page, stack, surface, scenario, errors);
        } catch (error) {
          failures.push(`${(error as Error).message.slice(0, 3000)}`);
          throw error;
        }
      }),
      { seed: SEED, numRuns: RUNS, interruptAfterTimeLimit: 150_000, verbose: 0 },
    ).finally(async () => {
      await stack.serviceWorker.evaluate(async (settings) => chrome.storage.local.set({ settings }), settings);
      console.log(`${surface.name}: ${runs} runs (seed ${SEED}, ${RUNS} asked), ${failures.length} failed`);
      if (failures.length) console.log(`first failure:\n${failures[0]}\nlast (shrunk) failure:\n${failures.at(-1)}`);
    });
  });
}

async function writeAndCheck(page: Page, stack: Stack, surface: Surface, { start, bursts, accept }: Scenario, errors: string[]): Promise<void> {
  errors.length = 0;
  let text = await openAndCheck(page, stack, surface, start);
  const instances: Instance[] = [];
  for (const sentence of AI_SENTENCES) for (let at = text.indexOf(sentence); at >= 0; at = text.indexOf(sentence, at + 1)) instances.push({ sentence, start: at, state: 'intact' });
  instances.sort((a, b) => a.start - b.start);
  const trail: string[] = [];
  for (const burst of bursts) {
    for (const step of burst) {
      trail.push(JSON.stringify(step));
      await act(page, surface, step);
      const now = (await readShown(page, surface)).text;
      follow(instances, text, now);
      text = now;
    }
    trail.push('(pause)');
    await page.waitForTimeout(350);
    const now = (await readShown(page, surface)).text;
    follow(instances, text, now);
    text = now;
    await expectShown(page, stack, surface, instances, trail.join('\n'));
    expect(errors, trail.join('\n')).toEqual([]);
  }

  // A highlight's card after the edits: Rewrite this sentence, then Accept replaces exactly that sentence.
  const shown = await expectShown(page, stack, surface, instances, trail.join('\n'));
  if (shown.highlights.length === 0) return;
  const chosen = shown.highlights[Math.floor(accept * shown.highlights.length)]!;
  const point = await pointOn(page, surface, chosen.start, chosen.text.length);
  if (!point) return;
  const card = page.locator('redline-card');
  // A card the caret opened (its sentence holds the caret) sits beside that sentence, maybe over the one to hover: closed first.
  if (await cardText(page)) await card.getByRole('button', { name: 'Close' }).click();
  await page.mouse.move(point.x, point.y);
  await expect.poll(() => cardText(page), { message: trail.join('\n') }).toContain('Labelled AI by the detector');
  await card.getByRole('button', { name: 'Rewrite this sentence' }).click();
  const suggestion = card.locator('.suggestion');
  await expect(suggestion).toBeVisible();
  const version = (skipped: string) => suggestion.evaluate((box, skipped) => [...box.childNodes].filter((node) => (node as Element).localName !== skipped).map((node) => node.textContent).join('').trim(), skipped);
  expect(await version('ins'), `${trail.join('\n')}\nthe card's sentence`).toBe(chosen.text);
  const rewrite = await version('del');
  const before = (await readShown(page, surface)).text;
  await card.getByRole('button', { name: 'Accept' }).click();
  await waitForToast(page, /Sentence replaced with the rewrite/);
  const after = (await readShown(page, surface)).text;
  expect(after, `${trail.join('\n')}\naccepting "${chosen.text}" at ${chosen.start}`).toBe(before.slice(0, chosen.start) + rewrite + before.slice(chosen.start + chosen.text.length));
  expect(errors, trail.join('\n')).toEqual([]);
}

/** A point on the highlight of [start, start + length) of the text, scrolled into view (the textarea's mirror follows). */
async function pointOn(page: Page, surface: Surface, start: number, length: number): Promise<{ x: number; y: number } | undefined> {
  return page.evaluate(
    ([selector, field, start, length]) => {
      const root = document.querySelector(selector)!;
      if (field) {
        const area = root as HTMLTextAreaElement;
        area.scrollIntoView({ block: 'center' });
        const mirror = document.querySelector('redline-overlay')!.shadowRoot!.querySelector('.mirror')!;
        let at = 0;
        const walker = document.createTreeWalker(mirror, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
          if (at === start && node.parentElement?.localName === 'mark') {
            const mark = node.parentElement;
            area.scrollTop = Math.max(0, mark.offsetTop - 20);
            return undefined; // read after the mirror follows the scroll
          }
          at += node.length;
        }
        return undefined;
      }
      let at = 0;
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
        if (start < at + node.length) {
          node.parentElement!.scrollIntoView({ block: 'center' });
          const range = document.createRange();
          range.setStart(node, start - at);
          range.setEnd(node, Math.min(node.length, start - at + Math.min(length, 4)));
          const rect = range.getClientRects()[0];
          return rect && { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
        }
        at += node.length;
      }
      return undefined;
    },
    [surface.root, !!surface.field, start, length] as const,
  ).then(async (point) => {
    if (point || !surface.field) return point;
    await page.waitForTimeout(100);
    return page.evaluate((start) => {
      const mirror = document.querySelector('redline-overlay')!.shadowRoot!.querySelector('.mirror')!;
      let at = 0;
      const walker = document.createTreeWalker(mirror, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
        if (at === start && node.parentElement?.localName === 'mark') {
          const rect = node.parentElement.getClientRects()[0]!;
          return { x: rect.left + Math.min(8, rect.width / 2), y: rect.top + rect.height / 2 };
        }
        at += node.length;
      }
      return undefined;
    }, start);
  });
}
