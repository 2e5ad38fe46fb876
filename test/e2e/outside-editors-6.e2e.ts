import type { Frame, Page } from '@playwright/test';
import { humanize as rewriteOffline, splitSentences } from '@redline/shared/analysis';
import { test, expect, type Stack } from './fixtures.ts';
import { ORIGINAL, SECOND_ORIGINAL, SUGGESTION, SECOND_SUGGESTION, TYPED, accept, modelText } from './outside-probe.ts';
import { highlightedTexts, overlayMarks, waitForToast } from './page-probes.ts';
import { AI_SENTENCES, FORMATTED_TEXT } from './pages/text.ts';
import { expectUndoAsTheNoteSays } from './undo-probes.ts';
import { acceptEdited } from './formatted-page.ts';

// A sixth outside probe (2026-12-02): editors of React apps the other probes left out, each read
// back from what the app holds (the component's `onChange` state, the editor's model or markdown),
// never from the DOM alone: react-quill-new (Quill 2 as a controlled React component),
// @uiw/react-md-editor (a controlled markdown textarea) and MDXEditor (markdown over Lexical, in
// React). And editors the page makes read-only between the rewrite and the accept that the fifth
// probe left out: Lexical as a rich-text editor, and the collaborative pages (ProseMirror,
// CodeMirror 6, Quill and Lexical bound to Yjs): the panel must say read-only and change nothing.

interface Editor {
  name: string;
  page: string;
  /** The page's query (Vditor's mode). */
  query?: string;
  root: string;
  /** A textarea: highlights are the mirrored overlay's marks. */
  field?: true;
  /** The root is in the page's one child frame (TinyMCE classic): its highlights and toast are there. */
  framed?: true;
  /** Highlights drawn by the editor's API (a code editor's marks): what they cover. */
  marks?: true;
  /**
   * The editor records an undo step this long after an edit, the writer's typing or an accept
   * (Vditor: its `undoDelay`, 800 ms by default): Ctrl+Z before then has nothing to undo.
   */
  undoDelayMs?: number;
  /** Keys that put the caret at the end of the last paragraph (default: Ctrl+End). */
  endKeys?: string[];
  /** Where the last paragraph ends in the model's text, for typing after the second accept (default: the text's end). */
  typedAt?: (text: string) => number;
}

/** The frame that holds the editor's root: the page's, or its one child frame. */
const frameOf = (page: Page, editor: Editor): Frame => (editor.framed ? page.frames().find((frame) => frame !== page.mainFrame())! : page.mainFrame());

/** Opens the editor's page once its value holds `sentence`, focuses the editor and returns the value. */
async function open(page: Page, stack: Stack, editor: Editor, sentence = ORIGINAL): Promise<string> {
  await page.goto(`${stack.pagesUrl}/${editor.page}.html${editor.query ?? ''}`);
  await expect.poll(() => page.evaluate(() => typeof (window as unknown as { editorText?: unknown }).editorText)).toBe('function');
  await expect.poll(() => modelText(page)).toContain(sentence);
  await expect.poll(() => frameOf(page, editor)?.locator(editor.root).count() ?? 0).toBe(1);
  await frameOf(page, editor).locator(editor.root).focus();
  return modelText(page);
}

function highlights(page: Page, editor: Editor): Promise<string[]> {
  if (editor.field) return overlayMarks(page);
  if (editor.marks) return page.evaluate(() => (window as unknown as { markedTexts(): string[] }).markedTexts());
  return highlightedTexts(frameOf(page, editor));
}

async function humanize(page: Page, stack: Stack, editor: Editor): Promise<Page> {
  await stack.configure({ defaultModel: 'cognia' });
  await stack.run(page, 'humanizer');
  await waitForToast(frameOf(page, editor), /rewrite is ready/);
  return stack.openSidePanel(page);
}

/** `text` with `typed` put in where the writer's Ctrl+End left the caret. */
const typedInto = (text: string, typed: string, editor: Editor) => {
  const at = editor.typedAt ? editor.typedAt(text) : text.length;
  return text.slice(0, at) + typed + text.slice(at);
};

const EDITORS: Editor[] = [
  // Quill's getText() ends with its closing newline, as the state's text does.
  { name: 'react-quill-new (controlled value)', page: 'react-quill-new', root: '.ql-editor', typedAt: (text) => text.length - 1 },
  { name: '@uiw/react-md-editor (controlled value)', page: 'react-md-editor', root: '.w-md-editor-text-input', field: true },
  { name: 'MDXEditor (markdown from onChange)', page: 'mdxeditor', root: '.mdx-content' },
  // Classic mode: the editable body in an iframe.
  { name: '@tinymce/tinymce-react (controlled value)', page: 'tinymce-react', root: 'body#tinymce', framed: true },
  { name: 'react-simplemde-editor (EasyMDE, controlled value)', page: 'react-simplemde', root: '.CodeMirror textarea', marks: true },
  { name: 'Novel (Tiptap 2, JSON from onUpdate)', page: 'novel', root: '.ProseMirror' },
  { name: 'Vditor WYSIWYG (markdown from getValue)', page: 'vditor', query: '?mode=wysiwyg', root: '.vditor-wysiwyg .vditor-reset', undoDelayMs: 1000 },
  { name: 'Vditor instant rendering (markdown from getValue)', page: 'vditor', query: '?mode=ir', root: '.vditor-ir .vditor-reset', undoDelayMs: 1000 },
  { name: 'Vditor markdown source (getValue)', page: 'vditor', query: '?mode=sv', root: '.vditor-sv.vditor-reset', undoDelayMs: 1000, endKeys: ['Control+End', 'ArrowLeft'] },
];

for (const editor of EDITORS) {
  test(`${editor.name}: check, highlights, accept in the app's value, Ctrl+Z right after it, another accept and typing after it`, async ({ page, stack }) => {
    const before = await open(page, stack, editor);
    const root = frameOf(page, editor).locator(editor.root);
    await stack.run(page, 'detector');
    expect(await waitForToast(frameOf(page, editor), /labelled AI|nothing|no text|cannot|can't|Click into/i)).toContain('2 sentences labelled AI are highlighted');
    await expect.poll(() => highlights(page, editor)).toEqual(AI_SENTENCES);
    expect(await modelText(page)).toBe(before);

    const panel = await humanize(page, stack, editor);
    const said = await accept(panel, 0);
    console.log(`${editor.name}: panel: ${said}; model: ${JSON.stringify(await modelText(page))}`);
    if (said !== 'Accepted') expect(await modelText(page)).toBe(before);
    expect(said).toBe('Accepted');
    await expect.poll(() => modelText(page), { timeout: 3000 }).toBe(before.replace(ORIGINAL, SUGGESTION));

    await page.bringToFront();
    await root.focus();
    await page.waitForTimeout(editor.undoDelayMs ?? 0);
    await page.keyboard.press('Control+z');
    await expect.poll(() => modelText(page), { timeout: 3000 }).toBe(before);

    expect(await accept(panel, 1)).toBe('Accepted');
    const acceptedSecond = before.replace(SECOND_ORIGINAL, SECOND_SUGGESTION);
    await expect.poll(() => modelText(page), { timeout: 3000 }).toBe(acceptedSecond);
    await page.bringToFront();
    await root.focus();
    for (const key of editor.endKeys ?? ['Control+End']) await page.keyboard.press(key);
    await page.keyboard.type(TYPED, { delay: 20 });
    await expect.poll(() => modelText(page), { timeout: 3000 }).toBe(typedInto(acceptedSecond, TYPED, editor));
    await panel.close();
  });
}

for (const editor of EDITORS) {
  test(`${editor.name}: Accept all goes into the app's value, and undo takes it back in as many steps as the panel says`, async ({ page, stack }) => {
    const before = await open(page, stack, editor);
    const panel = await humanize(page, stack, editor);
    await panel.getByRole('button', { name: 'Accept all (2)' }).click();
    await expect(panel.getByTestId('decision').or(panel.getByTestId('apply-problem'))).toHaveCount(2, { timeout: 30_000 });
    console.log(`${editor.name} (Accept all): ${JSON.stringify(await panel.getByTestId('suggestions').innerText())}`);
    await expect(panel.getByTestId('decision')).toHaveText(['Accepted', 'Accepted']);
    await expect.poll(() => modelText(page), { timeout: 3000 }).toBe(before.replace(ORIGINAL, SUGGESTION).replace(SECOND_ORIGINAL, SECOND_SUGGESTION));
    await page.waitForTimeout(editor.undoDelayMs ?? 0);
    await expectUndoAsTheNoteSays(page, frameOf(page, editor), editor.root, panel, before, modelText);
    await panel.close();
  });
}

interface Lockable extends Editor {
  /** Ctrl+Z takes the accept back (the collaborative pages register no undo history). */
  undo: boolean;
}

const setLocked = (page: Page, locked: boolean) => page.evaluate((locked) => (window as unknown as Record<string, () => void>)[locked ? 'refuseEdits' : 'allowEdits']!(), locked);

const LOCKABLE: Lockable[] = [
  { name: 'Lexical rich text setEditable(false)', page: 'lexical-rich', root: '#editor', undo: true },
  { name: 'ProseMirror with Yjs, editable() false', page: 'collab', root: '.ProseMirror', undo: false },
  { name: 'CodeMirror 6 with Yjs, EditorState.readOnly', page: 'collab-codemirror', root: '.cm-content', undo: true },
  { name: 'Quill with Yjs, disable()', page: 'collab-quill', root: '.ql-editor', undo: true },
  { name: 'Lexical with Yjs, setEditable(false)', page: 'collab-lexical', root: '#editor', undo: false },
  // The React components' own props.
  { name: 'react-quill-new readOnly prop', page: 'react-quill-new', root: '.ql-editor', undo: true },
  { name: 'MDXEditor readOnly prop', page: 'mdxeditor', root: '.mdx-content', undo: true },
  { name: '@tinymce/tinymce-react disabled prop', page: 'tinymce-react', root: 'body#tinymce', framed: true, undo: true },
];

for (const editor of LOCKABLE) {
  test(`${editor.name} between the rewrite and the accept: never Accepted, the text unchanged; editable again, the accept lands`, async ({ page, stack }) => {
    const before = await open(page, stack, editor);
    const panel = await humanize(page, stack, editor);
    await setLocked(page, true);
    const said = await accept(panel, 0);
    console.log(`${editor.name} (read-only): panel: ${said}; model: ${JSON.stringify(await modelText(page))}`);
    expect(said).not.toBe('Accepted');
    expect(said).toContain('read-only');
    await page.waitForTimeout(300);
    expect(await modelText(page)).toBe(before);

    await setLocked(page, false);
    await page.bringToFront();
    await frameOf(page, editor).locator(editor.root).focus();
    const first = panel.getByTestId('suggestions').locator('li.suggestion').first();
    await first.getByRole('button', { name: 'Accept', exact: true }).click();
    await expect(first.getByTestId('decision')).toHaveText('Accepted', { timeout: 20_000 });
    await expect.poll(() => modelText(page), { timeout: 3000 }).toBe(before.replace(ORIGINAL, SUGGESTION));
    if (editor.undo) {
      await page.bringToFront();
      await frameOf(page, editor).locator(editor.root).focus();
      await page.keyboard.press('Control+z');
      await expect.poll(() => modelText(page), { timeout: 3000 }).toBe(before);
    }
    await panel.close();
  });
}

// The formatted page (FORMATTED_HTML, or its markdown: bold words, a link, an italic opener inside
// the AI sentences): Accept all changes only the words the rewrites change, in the app's value too,
// the link and the bold stay on their words there, and undo brings the value back.
const SENTENCES = splitSentences(FORMATTED_TEXT).map((sentence) => sentence.text);
const REWRITTEN = splitSentences(rewriteOffline(FORMATTED_TEXT, 'huma_v2').humanized_text).map((sentence) => sentence.text);
/** The app's value as it is (HTML or markdown), its spaces as spaces (Quill 2 writes them all as `&nbsp;`). */
const rawValue = (page: Page): Promise<string> => page.evaluate(() => (window as unknown as { editorHtml(): string }).editorHtml().replace(/&nbsp;|\u00a0/g, ' '));
const LINKED = /(<a [^>]*>fostering innovation<\/a>|\[fostering innovation\]\(https:\/\/example\.com\/innovation\))/;
const BOLD = (words: string) => new RegExp(`(<strong>${words}</strong>|\\*\\*${words}\\*\\*)`);

const FORMATTED: Editor[] = [
  { name: 'react-quill-new', page: 'react-quill-new', query: '?formatted', root: '.ql-editor' },
  { name: 'MDXEditor', page: 'mdxeditor', query: '?formatted', root: '.mdx-content' },
  { name: 'Vditor WYSIWYG', page: 'vditor', query: '?formatted&mode=wysiwyg', root: '.vditor-wysiwyg .vditor-reset', undoDelayMs: 1000 },
  { name: 'Vditor instant rendering', page: 'vditor', query: '?formatted&mode=ir', root: '.vditor-ir .vditor-reset', undoDelayMs: 1000 },
];

for (const editor of FORMATTED) {
  test(`${editor.name} (formatted): Accept all keeps the link and bold words in the app's value, undo brings the text back`, async ({ page, stack }) => {
    const before = await open(page, stack, editor, SENTENCES[0]);
    const rawBefore = await rawValue(page);
    expect(rawBefore).toMatch(LINKED);
    await stack.configure({ defaultModel: 'huma_v2' });
    await stack.run(page, 'humanizer');
    await waitForToast(page, /rewrite is ready: 2 suggestions/);
    const panel = await stack.openSidePanel(page);
    await panel.getByRole('button', { name: 'Accept all (2)' }).click();
    await expect(panel.getByTestId('decision').or(panel.getByTestId('apply-problem'))).toHaveCount(2, { timeout: 30_000 });
    const rawAfter = await rawValue(page);
    const shown = await panel.getByTestId('suggestions').innerText();
    console.log(`${editor.name}: panel: ${JSON.stringify(shown)}; value: ${JSON.stringify(rawAfter)}`);
    // The text checked and rewritten is the text the writer sees, without the markup an editor hides.
    expect(shown).not.toMatch(/\*\*|\]\(https/);
    await expect(panel.getByTestId('decision')).toHaveText(['Accepted', 'Accepted']);
    const expected = before.replace(SENTENCES[0]!, REWRITTEN[0]!).replace(SENTENCES[2]!, REWRITTEN[2]!);
    await expect.poll(() => modelText(page)).toBe(expected);
    await page.waitForTimeout(500);
    expect(await modelText(page)).toBe(expected);
    expect(await rawValue(page)).toMatch(LINKED);
    expect(await rawValue(page)).toMatch(BOLD('artificial intelligence'));
    expect(await rawValue(page)).toMatch(BOLD('comprehensive tools'));

    await page.bringToFront();
    await page.locator(editor.root).focus();
    await page.waitForTimeout(editor.undoDelayMs ?? 0);
    let presses = 0;
    // The app's value follows the editor a render later (a busy machine: more than 150 ms): each
    // step is given time to bring the text back before the next, which would undo the loaded document.
    const restored = () => expect.poll(() => modelText(page), { timeout: 1500 }).toBe(before).then(() => true, () => false);
    while (presses < 8 && !(presses > 0 && (await restored()))) {
      await page.keyboard.press('Control+z');
      presses++;
      await page.waitForTimeout(editor.undoDelayMs ?? 0);
    }
    console.log(`${editor.name}: ${presses} undo steps; value back exactly: ${(await rawValue(page)) === rawBefore}`);
    expect(await modelText(page)).toBe(before);
    expect(await rawValue(page)).toMatch(LINKED);
    await panel.close();
  });
}

// An edited suggestion whose changed words run out of a bold run (Vditor's instant rendering hides
// the run's `**` in markers that are not text): the accept must not leave half of the markup.
const STRADDLING = SENTENCES[0]!.replace('intelligence plays a crucial role in', 'minds shape');
for (const editor of FORMATTED.filter((candidate) => candidate.page !== 'react-quill-new')) {
  test(`${editor.name} (formatted): an edited suggestion whose change runs out of a bold run leaves balanced markup, or nothing changed`, async ({ page, stack }) => {
    // Vditor (both modes, 3.11.2) until 2026-12-02: the part replaced "intelligence plays a crucial
    // role in " (its space too) with "minds shape ", and the browser wrote it inside the bold run,
    // space and all: `**artificial minds shape **`, which is no bold (the asterisks show as text);
    // the rollback then lost the bold and the space before the link, three undo steps from the
    // original. A space formatted otherwise than a part's start now stays out of the part
    // (edit-regions.ts). Instant rendering then still lost the bold: the part's range held the
    // run's hidden closing `**` marker, which went with the deleted words, and Vditor dropped the
    // opening one too ("artificial minds shape [fostering…"). A part is now cut at such markup
    // (cutAtHiddenMarkup): the new words before the marker, the rest deleted after it.
    const before = await open(page, stack, editor, SENTENCES[0]);
    const rawBefore = await rawValue(page);
    await stack.configure({ defaultModel: 'huma_v2' });
    await stack.run(page, 'humanizer');
    await waitForToast(page, /rewrite is ready: 2 suggestions/);
    const panel = await stack.openSidePanel(page);
    const said = await acceptEdited(panel, 0, STRADDLING);
    await page.waitForTimeout(1000);
    const raw = await rawValue(page);
    const item = await panel.getByTestId('suggestions').locator(':scope > li').first().innerText();
    console.log(`${editor.name} (straddling): ${said}; panel: ${JSON.stringify(item)}; value: ${JSON.stringify(raw)}`);
    if (said === 'accepted') {
      expect(await modelText(page)).toBe(before.replace(SENTENCES[0]!, STRADDLING));
      // Every `**` opens and closes a run: none is left alone, to be shown as text.
      expect((raw.match(/\*\*/g) ?? []).length % 2).toBe(0);
      expect(raw).not.toMatch(/\*\*\w[^*]*\s\*\*/);
      // The bold the sentence began with is still on its first word.
      expect(raw).toMatch(/\*\*artificial[^*]*\*\*|<strong>artificial[^<]*<\/strong>/);
    } else if (item.includes('Use its undo')) {
      // The panel owns up to a change it could not put back: the editor's undo, as it says, brings the value back.
      await page.bringToFront();
      await page.locator(editor.root).focus();
      await page.waitForTimeout(editor.undoDelayMs ?? 0);
      await page.keyboard.press('Control+z');
      await expect.poll(() => rawValue(page), { timeout: 3000 }).toBe(rawBefore);
    } else {
      expect(await modelText(page)).toBe(before);
      expect(raw).toBe(rawBefore);
    }
    await panel.close();
  });
}
