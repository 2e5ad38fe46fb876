import { askPage } from '../page/bridge.ts';
import type { CaptureOptions } from './dom-text.ts';

/**
 * Editor families: how each kind of editor is recognised, captured and edited, and what it
 * keeps of an edit in its undo history. One place, so the apply ladder, the capture and the
 * panel's wording agree. Root markers follow the editors' own documented DOM.
 */

/**
 * Ways to put text over the selected range, tried in a family's order (see apply.ts).
 * `editor-api`: the editor's own API, run in the page's world (lib/page/bridge.ts).
 */
export type Strategy = 'editor-api' | 'beforeinput' | 'execCommand' | 'paste';

export interface EditorFamily {
  name: string;
  /** Whether this family's root marker is on (or around) the editable root. */
  matches(root: HTMLElement): boolean;
  capture?: CaptureOptions;
  strategies: Strategy[];
  /** What undo does after an accepted suggestion, as tested (README, "Editors"). */
  undo: UndoBehaviour;
  /**
   * The editor reads a native edit back from its DOM as the shortest change between the old
   * text and the new, and gives the inserted characters the formatting at that change's start,
   * whatever the DOM shows (ProseMirror): formatting runs a part removes whole go first, in an
   * edit of their own (edit-regions.ts, `runsRemovedFirst`), and a part that only deletes is
   * deleted with nothing written back (apply.ts, `editForChangeStart`).
   */
  marksFromChangeStart?: true;
  /**
   * A part that only deletes goes in as a `beforeinput` deletion of what it removes rather than as
   * text written back over it: the editor puts text written at a link's end after the link, so the
   * letter written back would leave the link a letter short (Lexical: "fosterin").
   */
  deletesThroughBeforeinput?: true;
  /** What undo does when the page-world script cannot reach the editor's API (`editor-api` families). */
  undoWithoutApi?: UndoBehaviour;
}

export interface UndoBehaviour {
  /** One accept is one undo step in the editor. */
  acceptIsOneStep: boolean;
  /**
   * Not one step of its own: the editor's undo takes an accept back together with the writer's
   * typing since their last word, and its redo brings both back (wysihtml: it keeps a step at each
   * word's end and before its own commands, and none can be asked for before an edit it did not make).
   */
  withTypingBefore?: true;
  /**
   * Accept all: one undo step for all, one per suggestion, or `grouped`: the editor merges edits
   * made close together in time (Quill: within a second), so usually one step, but more when
   * the edits were slow (a busy page). `each-unless-grouped`: one per suggestion in the browser's
   * own undo, but an editor not recognised may keep a history of its own that groups them
   * (Squire: one step for all, measured).
   */
  acceptAll: 'one' | 'grouped' | 'each' | 'each-unless-grouped';
}

/** The Firefox build (WXT defines `import.meta.env.FIREFOX`; absent where this module runs under Node, in tests). */
const IN_FIREFOX = (import.meta as { env?: { FIREFOX?: boolean } }).env?.FIREFOX === true;

const inside = (selector: string) => (root: HTMLElement) => root.matches(selector) || root.closest(selector) !== null;
/** The root is the body of a frame inside `selector` (an editor that writes its editable's frame itself). */
const framedIn = (selector: string) => (root: HTMLElement) => root.ownerDocument.defaultView?.frameElement?.closest(selector) != null;

/**
 * Editors that keep a model and re-render the DOM from it handle `beforeinput` themselves;
 * `execCommand` would change their DOM behind their model's back (the screen changes, the
 * document does not), so it is not on their ladder.
 */
const MODEL_FIRST: Strategy[] = ['beforeinput', 'paste'];
const DEFAULT: Strategy[] = ['beforeinput', 'execCommand', 'paste'];

export const FAMILIES: EditorFamily[] = [
  { name: 'Slate', matches: inside('[data-slate-editor]'), strategies: MODEL_FIRST, undo: { acceptIsOneStep: true, acceptAll: 'each' } },
  // Yoopta-Editor's block list (BLOCK_DOCUMENT): each block is a Slate editor of its own.
  { name: 'Slate', matches: (root) => root.matches('.yoopta-editor'), strategies: MODEL_FIRST, undo: { acceptIsOneStep: true, acceptAll: 'each' } },
  { name: 'CKEditor 5', matches: inside('.ck-editor__editable'), strategies: MODEL_FIRST, undo: { acceptIsOneStep: true, acceptAll: 'each' } },
  { name: 'Lexical', matches: inside('[data-lexical-editor]'), strategies: DEFAULT, deletesThroughBeforeinput: true, undo: { acceptIsOneStep: true, acceptAll: 'each' } },
  { name: 'ProseMirror', matches: inside('.ProseMirror'), strategies: DEFAULT, marksFromChangeStart: true, undo: { acceptIsOneStep: true, acceptAll: 'each' } },
  // Quill inside a shadow root (a web component's editor): its keyboard module acts only while
  // `document.activeElement` is its root or inside it, never so from a shadow root (the host is),
  // so its Ctrl+Z binding never runs; its history then undoes only on the `historyUndo`
  // `beforeinput` the browser sends for Ctrl+Z, which it sends only with an edit in its own undo
  // stack. An accept through Quill's `beforeinput` handler left none there: Ctrl+Z did nothing,
  // while the panel said it brings the sentence back (measured, Quill 2.0.3 in Chromium). The
  // native edit goes first: Quill reads it into its model and history through its mutation
  // observer, and the browser's undo stack has a step, whose Ctrl+Z Quill's history answers.
  // In Firefox an `execCommand` from the content script fires a `beforeinput`, which Quill takes
  // and makes the edit through its model, so the browser's undo stack had none and Ctrl+Z left the
  // accept in (measured, 2026-11-29); from the page's world it fires none: there it goes first.
  {
    name: 'Quill',
    matches: (root) => inside('.ql-editor')(root) && root.getRootNode() instanceof ShadowRoot,
    strategies: [...(IN_FIREFOX ? (['editor-api'] as const) : []), 'execCommand', 'beforeinput', 'paste'],
    undo: { acceptIsOneStep: true, acceptAll: 'grouped' },
  },
  { name: 'Quill', matches: inside('.ql-editor'), strategies: DEFAULT, undo: { acceptIsOneStep: true, acceptAll: 'grouped' } },
  // Draft.js takes no `beforeinput`, and a native edit over more than one of its leaves (a word in
  // italic and the plain words after it) is read back into the wrong leaf: it replaced the
  // sentence before the selection (measured, Draft 0.11 in Chromium). A paste goes through its
  // model at its own selection, which follows the DOM's: the only edit that is safe there. Not in
  // Firefox, where a paste event made by a script carries no data (measured: Draft took it and
  // inserted nothing): there the native edit, safe within one leaf.
  { name: 'Draft.js', matches: inside('.DraftEditor-root'), strategies: IN_FIREFOX ? ['execCommand'] : ['paste'], undo: { acceptIsOneStep: true, acceptAll: 'each' } },
  // CodeMirror 6 keeps the DOM selection to its own while its page has no focus (the writer is in
  // the sidebar): the edit goes through its view (a page-world script), the DOM range read at once.
  { name: 'CodeMirror', matches: inside('.cm-content'), capture: { lines: true }, strategies: ['editor-api', ...DEFAULT], undo: { acceptIsOneStep: true, acceptAll: 'each' } },
  // TinyMCE keeps its own undo levels and records none for an edit through the browser's input
  // pipeline (measured): through its API (an undo transaction in the page's world) an accept is
  // one of its undo steps. Without the API (a page the page-world script cannot reach) it is not.
  {
    name: 'TinyMCE',
    matches: inside('.mce-content-body'),
    strategies: ['editor-api', ...DEFAULT],
    undo: { acceptIsOneStep: true, acceptAll: 'each' },
    undoWithoutApi: { acceptIsOneStep: false, acceptAll: 'each' },
  },
  // CKEditor 4 (classic in an iframe, or inline) takes undo images of its HTML on the writer's keys
  // and none of an edit through the input pipeline: Ctrl+Z after an accept took back the writer's
  // last typing with it, and CKEditor fired no `change` (measured, 4.22.1). Through its API (a
  // page-world script) the accept is put between two images. Its document is its DOM.
  {
    name: 'CKEditor 4',
    matches: inside('.cke_editable'),
    strategies: ['editor-api', ...DEFAULT],
    undo: { acceptIsOneStep: true, acceptAll: 'each' },
    undoWithoutApi: { acceptIsOneStep: false, acceptAll: 'each' },
  },
  // Summernote's Ctrl+Z restores its own snapshots of the HTML, and an edit through the input
  // pipeline makes none: through its API (a page-world script) the accept gets a snapshot before
  // and after. Without the API, undo after an accept jumps to the last snapshot it made.
  {
    name: 'Summernote',
    matches: inside('.note-editable'),
    strategies: ['editor-api', ...DEFAULT],
    undo: { acceptIsOneStep: true, acceptAll: 'each' },
    undoWithoutApi: { acceptIsOneStep: false, acceptAll: 'each' },
  },
  // Trumbowyg's value is its textarea, copied from its contenteditable, and `tbwchange` fired, on
  // the writer's keys, cut, paste and drop: an edit through the input pipeline alone left the value
  // (and a form's post, and autosave) without the accept while the panel said Accepted (measured,
  // 2.31). Through its API (a page-world script) the value is copied and `tbwchange` fired after
  // the native edit. Its undo is the browser's own. Without the API the value stays stale.
  {
    name: 'Trumbowyg',
    matches: inside('.trumbowyg-editor'),
    strategies: ['editor-api', ...DEFAULT],
    undo: { acceptIsOneStep: true, acceptAll: 'each' },
  },
  // ContentTools keeps each paragraph's content in a model of its own (ContentEdit), copied from
  // the DOM on the writer's keyup and on blur, and saves, autosaves and undoes from that model: an
  // edit through the input pipeline alone left it as it was while the panel said Accepted
  // (measured, 1.6.16). Through its API (a page-world script) the model is copied after the edit.
  // Without the API nothing is tried: an accept would be in the DOM and not in what the page saves.
  { name: 'ContentTools', matches: inside('.ce-element'), strategies: ['editor-api'], undo: { acceptIsOneStep: true, acceptAll: 'each-unless-grouped' } },
  // SCEditor (its body in an iframe it writes itself, over the page's textarea) fires `valuechanged`
  // (what a page's draft autosave listens to) only after the writer's keys, a paste or a command:
  // none came for an accept (measured, 3.2.1). Through its API (a page-world script) it is fired
  // after the edit. Its undo is the browser's own in its frame.
  {
    name: 'SCEditor',
    matches: framedIn('.sceditor-container'),
    strategies: ['editor-api', ...DEFAULT],
    undo: { acceptIsOneStep: true, acceptAll: 'each' },
  },
  // Simditor restores its own states of the HTML on Ctrl+Z, kept at most every 2 s, and overwrites
  // the latest with the HTML as it is on each selection change: parts of an accept went into the
  // state before it, and undo could not bring the original back (measured, 2.3.28). Through its API
  // (a page-world script) the accept is put between two states.
  {
    name: 'Simditor',
    matches: inside('.simditor-body'),
    strategies: ['editor-api', ...DEFAULT],
    undo: { acceptIsOneStep: true, acceptAll: 'each' },
    undoWithoutApi: { acceptIsOneStep: false, acceptAll: 'each' },
  },
  // Froala Editor restores snapshots of its HTML on Ctrl+Z and takes one before the writer's typing
  // on their keydown, none before an edit through the input pipeline: Ctrl+Z after an accept did
  // nothing while the panel said it brings the sentence back (measured, 5.4.0). Through its API (a
  // page-world script) the accept is put between two snapshots. In its iframe mode (`iframe: true`)
  // the editable is the body of a frame in its box, marked only `fr-view`: it was taken for a plain
  // contenteditable, whose note promised an undo that did nothing (measured, until 2026-11-29).
  {
    name: 'Froala',
    matches: (root) => inside('.fr-element')(root) || framedIn('.fr-box')(root),
    strategies: ['editor-api', ...DEFAULT],
    undo: { acceptIsOneStep: true, acceptAll: 'each' },
    undoWithoutApi: { acceptIsOneStep: false, acceptAll: 'each' },
  },
  // wysihtml (its composer a body in an iframe it writes itself, over the page's textarea) keeps an
  // undo history of its own, with a step at each word's end (the writer's Space or Enter), Backspace
  // and its own commands, and Ctrl+Z and Ctrl+Y are its. An accept goes into the step open since the
  // writer's last word: Ctrl+Z after it took back the accept and the word they had typed since
  // (measured, 0.5.5). Its instance cannot be reached from its DOM to close that step before the edit,
  // so the panel says so.
  { name: 'wysihtml', matches: inside('.wysihtml5-editor'), strategies: DEFAULT, undo: { acceptIsOneStep: false, withTypingBefore: true, acceptAll: 'each' } },
  // RoosterJS (Outlook on the web) restores snapshots of its HTML on Ctrl+Z (its ShortcutPlugin),
  // taken on the writer's keys and its own API's edits, and none of an edit through the input
  // pipeline: Ctrl+Z after an accept did nothing, the accept stayed (measured, 9.59). Through its
  // API (a page-world script) the accept is put between two snapshots. Its editable has no mark of
  // its own: the page-world script recognises it, by the list of editors RoosterJS keeps for
  // developer tools (9.59 keeps it). Without that list it is edited as a plain contenteditable
  // (and Ctrl+Z cannot take an accept back).
  {
    name: 'RoosterJS',
    matches: (root) => root.isContentEditable && askPage(root, { op: 'probe', editor: 'RoosterJS' }),
    strategies: ['editor-api', ...DEFAULT],
    undo: { acceptIsOneStep: true, acceptAll: 'each' },
  },
];

/**
 * Block editors, where each paragraph is an editing host of its own (Editor.js, WordPress's
 * block editor, Yoopta-Editor): the document is the list of blocks, so a check from any block
 * covers them all, and an edit goes into the block that holds the sentence. (Yoopta's was not
 * listed until 2026-11-29: a check covered the focused block alone.)
 */
export const BLOCK_DOCUMENT = '.codex-editor__redactor, .block-editor-block-list__layout.is-root-container, .yoopta-editor';

export const CONTENTEDITABLE: EditorFamily = {
  name: 'contenteditable',
  matches: () => true,
  strategies: DEFAULT,
  undo: { acceptIsOneStep: true, acceptAll: 'each-unless-grouped' },
};

/**
 * Code editors that draw their own lines over a hidden input element (CodeMirror 5, Ace, Monaco:
 * a textarea, or an EditContext element): it holds a line, the selection or a window of the
 * document at most, so the document is read, selected and edited through the editor's API in
 * the page's world. The edit is one step of the editor's history.
 */
export const CODE_EDITOR_ROOT = '.CodeMirror, .ace_editor, .monaco-editor';

export const CODE_EDITOR: EditorFamily = {
  name: 'code editor',
  matches: inside(CODE_EDITOR_ROOT),
  strategies: ['editor-api'],
  // As a field: Accept all writes all the suggestions in one edit.
  undo: { acceptIsOneStep: true, acceptAll: 'one' },
};

export const FIELD: EditorFamily = {
  name: 'text field',
  matches: () => true,
  strategies: ['execCommand'],
  undo: { acceptIsOneStep: true, acceptAll: 'one' },
};

export function familyOf(root: HTMLElement): EditorFamily {
  return FAMILIES.find((family) => family.matches(root)) ?? CONTENTEDITABLE;
}
