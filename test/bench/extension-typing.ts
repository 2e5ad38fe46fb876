/**
 * Typing with highlights live, in Chromium with the built extension, paired against the same
 * page without the extension (issue 11). For a textarea and a contenteditable holding a
 * 10,000-word document (its sentences labelled by the BFF's offline detector, or with --labels=upstream by the upstream double), 200 characters
 * are typed in the middle with real key events, and the page's main-thread time per keystroke
 * is read from a Chromium trace: from one keydown to the next, every top-level task of the
 * renderer's main thread (script, style, layout, paint), also split by kind of work and
 * counted in rendering updates. For the contenteditable, a control without the extension
 * where the page registers CSS highlights itself gives the browser's own price of them.
 * Then the time to draw the highlights after a check, for 10,000 and 100,000 words.
 *
 *   npm run bench:extension          (builds the extension first; BENCH_REPS=3 by default)
 *   npm run bench:extension -- --profile --page=textarea --skip-draw   (where the time goes)
 *
 * Run it alone on the machine (flock /tmp/heavy.lock …): other load shows up as main-thread time.
 */
import type { Page } from '@playwright/test';
import { detect } from '@redline/shared/analysis';
import { STOCK_OPENERS, benchDocument } from './typing/document.ts';
import { configureExtension, launch, runDetector, servePages, startBff, waitForToast, type Labels } from './typing/stack.ts';
import { KINDS, breakdown, extensionCallers, type Kind as WorkKind } from './typing/breakdown.ts';
import { topEvents, topFunctions } from './typing/profile.ts';
import { AI_LEVELS, bandDeclarations } from '../../extension/lib/content/styles.ts';
import { invalidations, keystrokeCost, paintsByLayer, keystrokeWindows, mainThread, measures, median, percentile, toFirstPaint, traced } from './typing/trace.ts';

const REPS = Number(process.env.BENCH_REPS ?? 3);
/**
 * `--at=sentence-start`: type a new sentence at the start of an AI-labelled one (a live range
 * grows at its start, so the first keystroke there is followed at once) instead of after a
 * sentence's end.
 */
const AT_SENTENCE_START = process.argv.includes('--at=sentence-start');
const NEW_TEXT = 'Then I typed a new sentence here, slowly and carefully, to see whether the highlights keep up with me as I go along the line. It should all feel instant and smooth, like any ordinary text box would do today.';
const TYPED = AT_SENTENCE_START ? `${NEW_TEXT.slice(0, 199)} ` : ` ${NEW_TEXT}`.slice(0, 200);
const KEY_DELAY_MS = 40;
/** `--profile`: also print where the main thread's time went while typing with highlights live. */
const PROFILE = process.argv.includes('--profile');
/** `--invalidations`: also print paint per keystroke (quantiles, by layer) and what made Chromium restyle, lay out and repaint. */
const INVALIDATIONS = process.argv.includes('--invalidations');
/** `--rebuild-highlights=reset|refill|rewrap|copy`: a control, see rebuildHighlights. */
const REBUILD = process.argv.find((arg) => arg.startsWith('--rebuild-highlights='))?.split('=')[1] as Rebuild | undefined;
/** `--hide-toast`: hide the extension's toast once the check is done (a control: does the toast cost paint while typing?). */
const HIDE_TOAST = process.argv.includes('--hide-toast');
/** `--detach-ui`: take the extension's card and toast hosts out of the page once the check is done (a control: does their presence cost paint?). */
const DETACH_UI = process.argv.includes('--detach-ui');
/** `--page=textarea` or `--page=contenteditable`: only that page; `--skip-draw`, `--skip-typing`: one part only. */
/**
 * `--labels=offline` (default): the BFF's offline detector labels the document (339 of its
 * 1,130 sentences, the issue's 337; until 2026-11-26, when its trained model answered alone,
 * nearly every sentence: 1,110); `--labels=upstream`: the upstream double (also 339).
 */
const LABELS: Labels = process.argv.includes('--labels=upstream') ? 'upstream' : 'offline';
const PAGES = (['textarea', 'contenteditable'] as const).filter((kind) => !process.argv.some((arg) => arg.startsWith('--page=')) || process.argv.includes(`--page=${kind}`));

type Kind = 'textarea' | 'contenteditable';
type Condition = 'no extension' | 'extension idle' | 'highlights live' | 'page highlights';
/**
 * `page highlights` (contenteditable only): no extension, the page itself registers one CSS
 * highlight range per sentence in the viewport, as many as the extension draws. What typing
 * costs then is the browser's own price of CSS Custom Highlights, with none of our code.
 */
const CONDITIONS: Record<Kind, readonly Condition[]> = {
  textarea: ['no extension', 'extension idle', 'highlights live'],
  contenteditable: ['no extension', 'extension idle', 'highlights live', 'page highlights'],
};

const escape = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;');

function pageHtml(kind: Kind, paragraphs: string[]): string {
  const style = 'font: 16px/1.5 Georgia, serif; padding: 12px; box-sizing: border-box; width: 100%;';
  const body =
    kind === 'textarea'
      ? `<textarea id="doc" spellcheck="false" style="${style} height: 85vh;"></textarea><script>document.getElementById('doc').value = ${JSON.stringify(paragraphs.join('\n\n'))};</script>`
      : `<div id="doc" contenteditable="true" spellcheck="false" style="${style} border: 1px solid #888;">${paragraphs.map((paragraph) => `<p>${escape(paragraph)}</p>`).join('')}</div>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${kind}</title></head><body style="max-width: 820px; margin: 24px auto;">${body}</body></html>`;
}

/**
 * The paragraph the caret goes in: the middle one, or with `--at=sentence-start` the first from
 * the middle whose second sentence the offline detector labels AI by a clear margin.
 */
function caretParagraph(paragraphs: string[]): number {
  const middle = Math.floor(paragraphs.length / 2);
  if (!AT_SENTENCE_START) return middle;
  for (let index = middle; index < paragraphs.length; index++) {
    const second = detect(paragraphs[index]!).chunks[1];
    if (second && second.score > 0.8) return index;
  }
  throw new Error('no paragraph after the middle has a second sentence labelled AI');
}

/** Puts the caret after the first sentence of the chosen paragraph (at the second's start with `--at=sentence-start`), in view. */
async function placeCaret(page: Page, kind: Kind, paragraphIndex: number): Promise<void> {
  const step = AT_SENTENCE_START ? 2 : 1;
  await page.evaluate(({ kind, paragraphIndex, step }) => {
    const doc = document.getElementById('doc')!;
    if (kind === 'textarea') {
      const field = doc as HTMLTextAreaElement;
      const paragraphs = field.value.split('\n\n');
      const middle = paragraphIndex;
      const offset = paragraphs.slice(0, middle).join('\n\n').length + 2 + paragraphs[middle]!.indexOf('. ') + step;
      field.focus();
      field.setSelectionRange(offset, offset);
      // Centre the caret's line: the field scrolls to the caret; move it a third of a view further.
      field.blur();
      field.focus();
    } else {
      const paragraphs = doc.querySelectorAll('p');
      const paragraph = paragraphs[paragraphIndex]!;
      paragraph.scrollIntoView({ block: 'center' });
      const node = paragraph.firstChild as Text;
      doc.focus();
      getSelection()!.collapse(node, node.data.indexOf('. ') + step);
      // Focusing the editor scrolled its top into view: bring the caret's paragraph back, so the
      // check, the control's highlights and the typing all see the same part of the document.
      paragraph.scrollIntoView({ block: 'center' });
    }
  }, { kind, paragraphIndex, step });
}

/** Whether one of the extension's highlights starts where the caret is (contenteditable). */
async function highlightStartsAtCaret(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const caret = getSelection()!.getRangeAt(0);
    for (const [name, highlight] of CSS.highlights) {
      if (!name.startsWith('redline-')) continue;
      for (const range of highlight) if (range.startContainer === caret.startContainer && range.startOffset === caret.startOffset) return true;
    }
    return false;
  });
}

async function liveHighlights(page: Page, kind: Kind, prefix: string): Promise<number> {
  return page.evaluate(
    ({ kind, prefix }) => {
      if (kind === 'textarea') return document.querySelector('redline-overlay')?.shadowRoot?.querySelectorAll('mark').length ?? 0;
      let count = 0;
      for (const [name, highlight] of CSS.highlights) if (name.startsWith(prefix)) count += highlight.size;
      return count;
    },
    { kind, prefix },
  );
}

type Rebuild = 'reset' | 'refill' | 'rewrap' | 'fill' | 'fill-delete' | 'copy' | 'read';

/**
 * A control for the extension's paint while typing: once the check is done, the page's own
 * script rebuilds the extension's registered highlights. `reset`: deletes and registers the
 * same Highlight objects again; `refill`: clears each and adds the same ranges back; `rewrap`:
 * registers new Highlight objects built with the same ranges; `fill`: registers new empty
 * Highlight objects, then adds the same ranges to them (`fill-delete`: then takes one out and
 * puts it back); `copy`: new Highlights of new
 * ranges with the same ends; `read`: only reads them (a control for the evaluation itself).
 * The extension's later range updates reach the ranges in all but `copy`.
 */
async function rebuildHighlights(page: Page, how: Rebuild): Promise<void> {
  await page.evaluate((how) => {
    for (const name of [...CSS.highlights.keys()].filter((key) => key.startsWith('redline-'))) {
      const highlight = CSS.highlights.get(name)!;
      const ranges = [...highlight] as Range[];
      if (how === 'read') {
        // Only reads them from the page's world (a control for the evaluation itself).
        void ranges.length;
      } else if (how === 'reset') {
        CSS.highlights.delete(name);
        CSS.highlights.set(name, highlight);
      } else if (how === 'refill') {
        highlight.clear();
        for (const range of ranges) highlight.add(range);
      } else if (how === 'rewrap') {
        CSS.highlights.set(name, new Highlight(...ranges));
      } else if (how === 'fill' || how === 'fill-delete') {
        const fresh = new Highlight();
        CSS.highlights.set(name, fresh);
        for (const range of ranges) fresh.add(range);
        if (how === 'fill-delete' && ranges[0]) {
          fresh.delete(ranges[0]);
          fresh.add(ranges[0]);
        }
      } else {
        const copies = ranges.map((range) => {
          const copy = document.createRange();
          copy.setStart(range.startContainer, range.startOffset);
          copy.setEnd(range.endContainer, range.endOffset);
          return copy;
        });
        highlight.clear();
        CSS.highlights.set(name, new Highlight(...copies));
      }
    }
  }, how);
}

/**
 * The page registers a CSS highlight for every sentence in the viewport (the `page highlights`
 * condition), styled as the extension styles its bands (tint and dotted, dashed or solid
 * underline), the sentences taking the three bands in turn.
 */
async function registerViewportSentences(page: Page): Promise<void> {
  const bands = AI_LEVELS.map((level) => bandDeclarations(level.band, 'light'));
  // As the extension would: with the upstream's labels, the stock-style sentences only.
  const labelled = LABELS === 'upstream' ? STOCK_OPENERS.source : '';
  await page.evaluate(({ bands, labelled }) => {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(bands.map((declarations, band) => `::highlight(bench-sentences-${band}) { ${declarations} }`).join('\n'));
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    const highlights = bands.map(() => new Highlight());
    let count = 0;
    for (const paragraph of document.querySelectorAll('#doc p')) {
      const box = paragraph.getBoundingClientRect();
      if (box.bottom < 0 || box.top > innerHeight) continue;
      const node = paragraph.firstChild as Text;
      for (const match of node.data.matchAll(/[^.?!]+[.?!]/g)) {
        const range = document.createRange();
        const start = match.index + (match[0].length - match[0].trimStart().length);
        range.setStart(node, start);
        range.setEnd(node, match.index + match[0].length);
        const rect = range.getBoundingClientRect();
        if (labelled && !new RegExp(labelled).test(match[0].trimStart())) continue;
        if (rect.bottom >= 0 && rect.top <= innerHeight) highlights[count++ % highlights.length]!.add(range);
      }
    }
    highlights.forEach((highlight, band) => CSS.highlights.set(`bench-sentences-${band}`, highlight));
  }, { bands, labelled });
}

/** How far the document (contenteditable) or the field (textarea) is scrolled. */
async function view(page: Page, kind: Kind): Promise<number> {
  return page.evaluate((kind) => (kind === 'textarea' ? document.getElementById('doc')!.scrollTop : scrollY), kind);
}

async function text(page: Page, kind: Kind): Promise<string> {
  return page.evaluate((kind) => (kind === 'textarea' ? (document.getElementById('doc') as HTMLTextAreaElement).value : document.getElementById('doc')!.innerText), kind);
}

interface Typing {
  p95: number;
  longestTask: number;
  longTasks: number;
  updateP95?: number;
  labelled?: number;
  /** Marks in the mirror, or ranges registered with CSS.highlights, after typing. */
  drawn?: number;
  /** Per kind of work: mean and p95 of its time per keystroke (ms). */
  kinds: Record<WorkKind, { mean: number; p95: number }>;
  /** Rendering updates (main-thread commits) per keystroke. */
  framesPerKey: number;
}

async function main(): Promise<void> {
  const bff = await startBff(LABELS);
  const documents = { 10_000: benchDocument(10_000), 100_000: benchDocument(100_000) };
  const server = await servePages({
    'textarea-10000': pageHtml('textarea', documents[10_000]),
    'contenteditable-10000': pageHtml('contenteditable', documents[10_000]),
    'textarea-100000': pageHtml('textarea', documents[100_000]),
    'contenteditable-100000': pageHtml('contenteditable', documents[100_000]),
  });

  async function openPage(kind: Kind, words: number, condition: Condition) {
    const browser = await launch(condition !== 'no extension' && condition !== 'page highlights');
    if (browser.worker) await configureExtension(browser.worker, bff.url, bff.token);
    const page = await browser.context.newPage();
    await page.goto(`${server.url}/${kind}-${words}`);
    await placeCaret(page, kind, caretParagraph(documents[words as 10_000 | 100_000]));
    return { browser, page };
  }

  async function check(page: Page, worker: NonNullable<Awaited<ReturnType<typeof launch>>['worker']>): Promise<{ labelled: number; draw?: number; toPaint?: number }> {
    let toast = '';
    const events = await traced(page, async () => {
      await runDetector(worker, page);
      toast = await waitForToast(page, /sentences? labelled AI/);
      await page.waitForTimeout(300);
    });
    // The session's measure of the whole first draw holds the highlighter's own: the longest is the whole.
    const draw = measures(events, 'redline:draw').sort((a, b) => b.duration - a.duration)[0];
    if (PROFILE && draw) {
      const mark = events.find((event) => event.name === 'redline:draw')!;
      const toPaint = toFirstPaint(events, draw) ?? draw.duration;
      console.log(`\nFirst draw: self time on the main thread from redline:draw to the first paint after it (${toPaint.toFixed(1)} ms)`);
      for (const { name, ms } of topEvents(events, { pid: mark.pid, tid: mark.tid }, draw.start, draw.start + toPaint * 1000)) console.log(`  ${ms.toFixed(1).padStart(8)} ms  ${name}`);
    }
    return { labelled: Number(/(\d[\d,]*) sentences? labelled AI/.exec(toast)![1]!.replaceAll(',', '')), draw: draw?.duration, toPaint: draw && toFirstPaint(events, draw) };
  }

  async function typing(kind: Kind, condition: Condition): Promise<Typing> {
    const { browser, page } = await openPage(kind, 10_000, condition);
    try {
      let labelled: number | undefined;
      if (condition === 'highlights live') labelled = (await check(page, browser.worker!)).labelled;
      if (HIDE_TOAST) await page.evaluate(() => document.querySelector<HTMLElement>('redline-toast')?.style.setProperty('display', 'none'));
      if (DETACH_UI) await page.evaluate(() => document.querySelectorAll('redline-card, redline-toast').forEach((host) => host.remove()));
      if (condition === 'highlights live' && AT_SENTENCE_START && kind === 'contenteditable' && !(await highlightStartsAtCaret(page))) throw new Error('contenteditable: no highlight starts at the caret');
      if (condition === 'page highlights') await registerViewportSentences(page);
      if (condition === 'highlights live' && REBUILD) await rebuildHighlights(page, REBUILD);
      await page.waitForTimeout(500);
      const before = await text(page, kind);
      const viewBefore = await view(page, kind);
      const events = await traced(page, () => page.keyboard.type(TYPED, { delay: KEY_DELAY_MS }), PROFILE, INVALIDATIONS);
      await page.waitForTimeout(200);
      const after = await text(page, kind);
      // The highlights that count are those in view while typing: the view must not have jumped
      // since the check (focusing the editor once scrolled it to its top, so the check drew and the
      // control registered highlights at the top while the typing happened in the middle).
      const viewAfter = await view(page, kind);
      if (Math.abs(viewAfter - viewBefore) > 200) throw new Error(`${kind}: the view moved by ${viewAfter - viewBefore} px while typing`);
      if (after.length - before.length !== TYPED.length || !after.includes(TYPED)) throw new Error(`${kind}: the typed text did not land in the document`);
      const drawn = condition === 'highlights live' || condition === 'page highlights' ? await liveHighlights(page, kind, condition === 'page highlights' ? 'bench-' : 'redline-') : undefined;
      if (drawn === 0) throw new Error(`${kind}: no highlights left after typing`);
      const cost = keystrokeCost(events);
      if (cost.perKey.length !== TYPED.length) throw new Error(`${kind}: the trace holds ${cost.perKey.length} keydowns, expected ${TYPED.length}`);
      const updates = measures(events, 'redline:update').map((measure) => measure.duration);
      const thread = mainThread(events, 'keydown');
      const windows = keystrokeWindows(events);
      const perKey = breakdown(events, thread, windows);
      const kinds = Object.fromEntries(
        KINDS.map((work) => {
          const values = perKey.map((key) => key[work]);
          return [work, { mean: values.reduce((sum, value) => sum + value, 0) / values.length, p95: percentile(values, 95) }];
        }),
      ) as Typing['kinds'];

      if (INVALIDATIONS) {
        const paint = perKey.map((key) => key.paint + key['pre-paint']).sort((x, y) => x - y);
        console.log(`\n${kind}, ${condition}: pre-paint + paint per keystroke, p10/p25/p50/p75/p90/max: ${[10, 25, 50, 75, 90, 100].map((q) => percentile(paint, q).toFixed(2)).join(' / ')} ms`);
        for (const { where, count, ms } of paintsByLayer(events, thread).slice(0, 8)) console.log(`  Paint ${where}: ${count} times, ${ms.toFixed(1)} ms`);
        console.log(`${kind}, ${condition}: invalidations over ${TYPED.length} keystrokes`);
        for (const { what, count } of invalidations(events).slice(0, 25)) console.log(`  ${String(count).padStart(6)}  ${what}`);
      }
      if (PROFILE && condition !== 'extension idle') {
        const thread = mainThread(events, 'keydown');
        const keys = events.filter((event) => event.name === 'EventDispatch' && event.args?.data?.type === 'keydown').map((event) => event.ts);
        console.log(`\n${kind}, ${condition}: self time on the main thread over ${TYPED.length} keystrokes`);
        for (const { name, ms } of topEvents(events, thread, Math.min(...keys), Math.max(...keys) + 50_000)) console.log(`  ${ms.toFixed(1).padStart(8)} ms  ${name}`);
        console.log("  The extension's script by caller (total time, calls):");
        for (const { caller, ms, calls } of extensionCallers(events, thread)) console.log(`  ${ms.toFixed(1).padStart(8)} ms  ${caller}, ${calls} calls`);
        console.log('  JavaScript, self time:');
        for (const { name, ms } of topFunctions(events, thread)) console.log(`  ${ms.toFixed(1).padStart(8)} ms  ${name}`);
      }
      return {
        p95: percentile(cost.perKey, 95),
        longestTask: cost.longestTask,
        longTasks: cost.longTasks,
        updateP95: updates.length ? percentile(updates, 95) : undefined,
        labelled,
        drawn,
        kinds,
        framesPerKey: events.filter((event) => event.name === 'Commit' && event.pid === thread.pid && event.tid === thread.tid).length / TYPED.length,
      };
    } finally {
      await browser.close();
    }
  }

  const ms = (value: number | undefined) => (value === undefined ? '–' : `${value.toFixed(1)} ms`);
  console.log(`\nTyping ${TYPED.length} characters in the middle of a 10,000-word document${AT_SENTENCE_START ? ', at the start of a sentence labelled AI' : ''} (${KEY_DELAY_MS} ms between keys; sentences labelled ${LABELS === 'upstream' ? 'by the upstream double' : 'by the offline detector'}), medians of ${REPS} reps; main-thread time per keystroke, p95\n`);
  console.log('| page | no extension | extension idle | highlights live | added | longest task (live) | extension update p95 | CSS highlights alone (no extension) |');
  console.log('|---|---|---|---|---|---|---|---|');
  const breakdowns: { kind: Kind; results: Partial<Record<Condition, Typing[]>> }[] = [];
  for (const kind of process.argv.includes('--skip-typing') ? [] : PAGES) {
    const results: Partial<Record<Condition, Typing[]>> = {};
    for (let rep = 0; rep < REPS; rep++) {
      // Interleaved, so slow drift of the machine touches every condition alike.
      for (const condition of CONDITIONS[kind]) (results[condition] ??= []).push(await typing(kind, condition));
    }
    const p95 = (condition: Condition) => median((results[condition] ?? []).map((result) => result.p95));
    const live = results['highlights live']!;
    const longest = Math.max(...live.map((result) => result.longestTask));
    const longTasks = live.reduce((sum, result) => sum + result.longTasks, 0);
    breakdowns.push({ kind, results });
    console.log(
      `| ${kind} (${live[0]!.labelled} highlights, ${live[0]!.drawn} drawn) | ${ms(p95('no extension'))} | ${ms(p95('extension idle'))} | ${ms(p95('highlights live'))} | **${(p95('highlights live') - p95('no extension') >= 0 ? '+' : '')}${(p95('highlights live') - p95('no extension')).toFixed(1)} ms** | ${ms(longest)}${longTasks ? ` (${longTasks} over 50 ms)` : ''} | ${ms(median(live.map((result) => result.updateP95 ?? 0)))} | ${results['page highlights'] ? `${ms(p95('page highlights'))} (${results['page highlights'][0]!.drawn} ranges): +${(p95('page highlights') - p95('no extension')).toFixed(1)} ms` : '–'} |`,
    );
  }

  for (const { kind, results } of breakdowns) {
    console.log(`\n${kind}: where a keystroke's main-thread time goes (self time by kind of work from the trace; mean / p95 per keystroke, medians of ${REPS} reps)\n`);
    const conditions = CONDITIONS[kind];
    console.log(`| work | ${conditions.join(' | ')} | added by highlights live (mean) |`);
    console.log(`|---|${conditions.map(() => '---|').join('')}---|`);
    const mean = (condition: Condition, work: WorkKind) => median(results[condition]!.map((result) => result.kinds[work].mean));
    const cell = (condition: Condition, work: WorkKind) => `${mean(condition, work).toFixed(2)} / ${median(results[condition]!.map((result) => result.kinds[work].p95)).toFixed(1)} ms`;
    const sum = (condition: Condition) => KINDS.reduce((total, work) => total + mean(condition, work), 0);
    for (const work of KINDS) {
      const added = mean('highlights live', work) - mean('no extension', work);
      console.log(`| ${work} | ${conditions.map((condition) => cell(condition, work)).join(' | ')} | ${added >= 0 ? '+' : ''}${added.toFixed(2)} ms |`);
    }
    const frames = (condition: Condition) => median(results[condition]!.map((result) => result.framesPerKey));
    console.log(`| rendering updates (commits) per keystroke | ${conditions.map((condition) => frames(condition).toFixed(2)).join(' | ')} | ${(frames('highlights live') - frames('no extension')).toFixed(2)} |`);
    const total = sum('highlights live') - sum('no extension');
    console.log(`| all (mean) | ${conditions.map((condition) => `${sum(condition).toFixed(2)} ms`).join(' | ')} | ${total >= 0 ? '+' : ''}${total.toFixed(2)} ms |`);
  }

  console.log(`\nFirst draw after a check (redline:draw, and from its start to the first paint after it), worst of ${REPS} reps\n`);
  console.log('| page | words | highlights | redline:draw | to first paint |');
  console.log('|---|---|---|---|---|');
  for (const words of process.argv.includes('--skip-draw') ? [] : [10_000, 100_000]) {
    for (const kind of PAGES) {
      const draws: { labelled: number; draw?: number; toPaint?: number }[] = [];
      let failure: string | undefined;
      for (let rep = 0; rep < REPS && !failure; rep++) {
        const { browser, page } = await openPage(kind, words, 'highlights live');
        try {
          draws.push(await check(page, browser.worker!));
        } catch (error) {
          failure = (error as Error).message.slice(0, 160);
        } finally {
          await browser.close();
        }
      }
      if (failure) {
        console.log(`| ${kind} | ${words.toLocaleString('en')} | – | the check failed: ${failure} | – |`);
        continue;
      }
      const worst = (values: (number | undefined)[]) => (values.includes(undefined) ? undefined : Math.max(...(values as number[])));
      console.log(`| ${kind} | ${words.toLocaleString('en')} | ${draws[0]!.labelled} | ${ms(worst(draws.map((draw) => draw.draw)))} | ${ms(worst(draws.map((draw) => draw.toPaint)))} |`);
    }
  }

  server.close();
  bff.stop();
}

await main();
