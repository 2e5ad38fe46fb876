import { PAGE_API_EVENT, PAGE_REPLY_EVENT, type PageRequest } from '../lib/page/bridge.ts';
import { editNatively } from '../lib/page/native-edit.ts';

/**
 * Runs in the page's own world, where editor instances are reachable, and works through an
 * editor's public API when the content script asks (lib/page/bridge.ts):
 * - TinyMCE (and HugeRTE, its fork) records no undo level for an edit made through the browser's
 *   input pipeline; through its API, an accept is one step of its own undo manager.
 * - Summernote's undo restores its own snapshots, which an edit through the input pipeline
 *   does not make: the accept is put between two snapshots.
 * - CKEditor 4 the same (its undo manager's images), and its `change` event, which apps read,
 *   comes only from such a snapshot.
 * - RoosterJS the same (its snapshots, which Ctrl+Z restores).
 * - Trumbowyg copies its contenteditable into its value (its textarea) and fires `tbwchange`
 *   only on the writer's keys, cut, paste and drop: both are done after the edit.
 * - ContentTools copies a paragraph's DOM into its model only on the writer's keyup and on blur:
 *   it is copied after the edit.
 * - SCEditor fires `valuechanged` only after the writer's keys, a paste or a command: it is fired
 *   after the edit.
 * - Simditor's undo restores its own states of the HTML, which an edit through the input pipeline
 *   does not make in time (and none while its editable lacks the focus): the accept is put between
 *   two states.
 * - Froala's undo restores its own snapshots of the HTML, and it takes none before an edit through
 *   the input pipeline: the accept is put between two snapshots.
 * - Code editors that draw their own lines over a hidden textarea (CodeMirror 5, Ace, Monaco)
 *   keep the document only in their model: it is read, selected and edited there.
 * Text goes only to the content script that asked, in a reply event on the same element.
 */

type Mark = { start: number; end: number; className: string };
/** A box in the viewport: left, top, right, bottom. */
type Box = [number, number, number, number];

/** What the page-world script can do with one editor. Offsets are UTF-16 offsets into its document. */
interface EditorApi {
  /** The editor, for an editor the content script cannot tell by its DOM (it asks with `probe`). */
  editor?: 'RoosterJS';
  readOnly(): boolean;
  /** Puts text over the selection as one undo step; `range` is the document selection (TinyMCE). */
  insert(text: string, range: Range | undefined): boolean;
  read?(): string;
  /** Selects and scrolls into view. */
  select?(start: number, end: number): void;
  /** Marks in place of the ones this script made before in the same layer. */
  mark?(layer: string, marks: Mark[]): void;
  caret?(): number;
  offsetAt?(x: number, y: number): number | undefined;
  /** The boxes of the first and last characters of [start, end). */
  boxes?(start: number, end: number): Box[];
}

/** How to clear the marks this script made in each editor, per layer (AI sentences, sources). */
const madeMarks = new WeakMap<object, Map<string, () => void>>();

function replaceMarks(editor: object, layer: string, make: () => () => void): void {
  let layers = madeMarks.get(editor);
  if (!layers) madeMarks.set(editor, (layers = new Map()));
  layers.get(layer)?.();
  layers.set(layer, make());
}

/** The mark classes' style, once per document. */
function installMarkStyle(doc: Document, css: string): void {
  let style = doc.querySelector<HTMLStyleElement>('style[data-redline-marks]');
  if (!style) {
    style = doc.createElement('style');
    style.dataset.redlineMarks = '';
    doc.head.append(style);
  }
  if (style.textContent !== css) style.textContent = css;
}

interface TinyEditor {
  getBody(): HTMLElement;
  insertContent(html: string): void;
  selection: { setRng(range: Range): void };
  dom: { encode(text: string): string };
  undoManager: { add(): unknown; transact(work: () => void): unknown };
  mode?: { isReadOnly(): boolean };
}

/**
 * The first editor `find` sees in this window or a same-origin parent: editors in classic mode
 * (TinyMCE, CKEditor 4) keep their API in the page around the iframe their body is in.
 */
function fromThisOrParentWindows<T>(find: (view: Window) => T | undefined): T | undefined {
  for (let view: Window = window; ; view = view.parent) {
    try {
      const editor = find(view);
      if (editor) return editor;
    } catch {
      return undefined; // a cross-origin parent
    }
    if (view === view.parent) return undefined;
  }
}

/**
 * The TinyMCE editor whose body is `root`, from the page's `tinymce` global or, for HugeRTE (the
 * MIT fork of TinyMCE 6, the same API), its `hugerte` global: without it an accept in HugeRTE
 * went in as a native edit, which it kept no undo level of and fired no `change` for (measured).
 */
function tinymceFor(root: Element): TinyEditor | undefined {
  return fromThisOrParentWindows((view) => {
    const globals = view as unknown as Record<'tinymce' | 'hugerte', { get?(): TinyEditor[] } | undefined>;
    for (const manager of [globals.tinymce, globals.hugerte]) {
      const editor = manager?.get?.()?.find((candidate) => candidate.getBody() === root);
      if (editor) return editor;
    }
    return undefined;
  });
}

function tinymceApi(editor: TinyEditor): EditorApi {
  return {
    readOnly: () => editor.mode?.isReadOnly() ?? false,
    insert(text, range) {
      if (!range) return false;
      const html = editor.dom.encode(text).replace(/\r?\n/g, '<br>');
      // The state before, as a level (a no-op when it is the last one already): with an empty
      // history (cleared after loading a document) a transaction alone would leave nothing to undo to.
      editor.undoManager.add();
      editor.undoManager.transact(() => {
        // Words in text nodes of one paragraph are written into those nodes (TinyMCE's document
        // is its DOM; the transaction records it): insertContent rebuilds the runs around them, and
        // spread a link or bold over the new words (Firefox), or, over a link's end, moved the full
        // stop into the link and left a caret character behind (Chromium).
        // The caret goes after the new text in the DOM alone: TinyMCE's setRng puts a caret
        // character (U+FEFF) at the end of a link, into the text read back.
        if (writeIntoTextNodes(range, text)) return;
        editor.selection.setRng(range);
        editor.insertContent(html);
      });
      return true;
    },
  };
}

const BLOCK = 'p, div, li, td, th, h1, h2, h3, h4, h5, h6, blockquote, pre, body';

/**
 * Replaces `range` with `text` when both ends are in text nodes of one block: the new text goes
 * into the first node (taking its formatting, as the writer's typing would), the rest of the
 * range is deleted from the nodes after it, and elements left empty go; the caret is put after
 * the new text. False when the range is not of that kind (then nothing is changed).
 */
function writeIntoTextNodes(range: Range, text: string): boolean {
  const first = range.startContainer;
  const last = range.endContainer;
  if (first.nodeType !== Node.TEXT_NODE || last.nodeType !== Node.TEXT_NODE || /[\r\n]/.test(text)) return false;
  if (first.parentElement?.closest(BLOCK) !== last.parentElement?.closest(BLOCK)) return false;
  const inBetween: Text[] = [];
  if (first !== last) {
    const walker = first.ownerDocument!.createTreeWalker(range.commonAncestorContainer, NodeFilter.SHOW_TEXT);
    walker.currentNode = first;
    for (let node = walker.nextNode(); node && node !== last; node = walker.nextNode()) inBetween.push(node as Text);
  }
  const start = range.startOffset;
  const end = range.endOffset;
  const firstText = first as Text;
  if (first === last) {
    firstText.replaceData(start, end - start, text);
  } else {
    firstText.replaceData(start, firstText.length - start, text);
    for (const node of inBetween) removeWithEmptyParents(node);
    (last as Text).deleteData(0, end);
    if ((last as Text).length === 0) removeWithEmptyParents(last as Text);
  }
  firstText.ownerDocument.getSelection()?.collapse(firstText, start + text.length);
  return true;
}

/** Replaces `range` with `text` through the browser's input pipeline, as the writer's typing would. */
function editRangeNatively(range: Range, text: string): boolean {
  const doc = range.startContainer.ownerDocument!;
  const selection = doc.getSelection()!;
  selection.removeAllRanges();
  selection.addRange(range);
  return editNatively(doc, text);
}

/** Removes a text node, and the inline elements that held nothing else. */
function removeWithEmptyParents(node: Text): void {
  let parent = node.parentElement;
  node.remove();
  while (parent && !parent.matches(BLOCK) && parent.childNodes.length === 0) {
    const up: HTMLElement | null = parent.parentElement;
    parent.remove();
    parent = up;
  }
}

interface SummernoteHistory {
  stack: { contents: string }[];
  stackOffset: number;
  recordUndo(): void;
}

/**
 * Summernote (a jQuery plugin) restores snapshots of its HTML on Ctrl+Z, and takes none of an
 * edit made through the browser's input pipeline: undo after it would jump to the snapshot
 * before (an empty editor, when the page loaded its text through the API). The state before
 * the accept and after it are taken as snapshots around the edit, so undo takes back the accept.
 */
function summernoteFor(root: Element): EditorApi | undefined {
  if (!root.classList.contains('note-editable')) return undefined;
  const jQuery = (window as unknown as { jQuery?: (element: Element) => { data(key: string): unknown } }).jQuery;
  const note = root.closest('.note-editor')?.previousElementSibling;
  const context = note && typeof jQuery === 'function' ? (jQuery(note).data('summernote') as { modules?: { editor?: { history?: SummernoteHistory } } } | undefined) : undefined;
  const history = context?.modules?.editor?.history;
  if (!history || typeof history.recordUndo !== 'function' || !Array.isArray(history.stack)) return undefined;
  const snapshot = () => {
    if (history.stack[history.stackOffset]?.contents !== root.innerHTML) history.recordUndo();
  };
  return {
    readOnly: () => !(root as HTMLElement).isContentEditable,
    insert(text, range) {
      if (!range) return false;
      snapshot();
      const done = editRangeNatively(range, text);
      snapshot();
      return done;
    },
  };
}

interface RoosterEditor {
  isDisposed(): boolean;
  getDOMHelper(): { isNodeInEditor(node: Node): boolean };
  takeSnapshot(): unknown;
}

/**
 * RoosterJS (9; Outlook on the web) restores snapshots of its editable's HTML on Ctrl+Z, taken
 * on the writer's keys and around its own API's edits, and none of an edit made through the
 * browser's input pipeline: Ctrl+Z after an accept did nothing (measured, 9.59). Its editable has
 * no mark of its own; its instance is found in the list it keeps for developer tools
 * (`__ROOSTERJS_DEVTOOLS_EDITORS__`, kept by 9.59, the version tested). A snapshot is taken before the edit and after.
 */
function roosterFor(root: Element): EditorApi | undefined {
  const editors = (root.ownerDocument.defaultView as unknown as { __ROOSTERJS_DEVTOOLS_EDITORS__?: unknown } | null)?.__ROOSTERJS_DEVTOOLS_EDITORS__;
  if (!Array.isArray(editors)) return undefined;
  const editor = (editors as RoosterEditor[]).find(
    (candidate) => typeof candidate?.takeSnapshot === 'function' && typeof candidate.getDOMHelper === 'function' && !candidate.isDisposed() && candidate.getDOMHelper().isNodeInEditor(root),
  );
  if (!editor) return undefined;
  return {
    editor: 'RoosterJS',
    readOnly: () => !(root as HTMLElement).isContentEditable,
    insert(text, range) {
      if (!range) return false;
      editor.takeSnapshot();
      const done = editRangeNatively(range, text);
      editor.takeSnapshot();
      return done;
    },
  };
}

interface TrumbowygInstance {
  $c?: { trigger(event: string): unknown };
  syncTextarea?(): void;
}

/**
 * Trumbowyg (a jQuery plugin) keeps its value in its textarea (what `trumbowyg('html')` returns
 * and a form posts), copied from its contenteditable on the writer's keyup, cut, paste and drop,
 * and fires `tbwchange` (what pages' autosave listens to) only then: an edit through the input
 * pipeline alone left the value as it was (measured, 2.31: the panel said Accepted, the value
 * and `tbwchange` never had it). Its undo is the browser's own (its Ctrl+Z keyup copies the
 * value again), so the edit goes in natively, and the value is copied and `tbwchange` fired
 * after it, as on the writer's keyup.
 */
function trumbowygFor(root: Element): EditorApi | undefined {
  if (!root.classList.contains('trumbowyg-editor')) return undefined;
  const jQuery = (window as unknown as { jQuery?: (element: Element) => { data(key: string): unknown } }).jQuery;
  if (typeof jQuery !== 'function') return undefined;
  // Its instance is on the element it was made on: the textarea it shows in place of, or the editable itself.
  const candidates = [root, ...(root.closest('.trumbowyg-box')?.querySelectorAll('textarea') ?? [])];
  const editor = candidates.map((element) => jQuery(element).data('trumbowyg') as TrumbowygInstance | undefined).find((instance) => typeof instance?.syncTextarea === 'function');
  if (!editor) return undefined;
  return {
    readOnly: () => !(root as HTMLElement).isContentEditable,
    insert(text, range) {
      if (!range) return false;
      const done = editRangeNatively(range, text);
      editor.syncTextarea!();
      editor.$c?.trigger('tbwchange');
      return done;
    },
  };
}

interface ContentEditText {
  _domElement?: Element | null;
  _syncContent?(): void;
}

/**
 * ContentTools (its ContentEdit elements) keeps each paragraph's content in its own model, copied
 * from the DOM on the writer's keyup and on blur; its saves, its autosave (a passive save, which
 * finds nothing to save while no element's model changed) and its undo history read that model.
 * An edit through the input pipeline alone left the model as it was while the DOM showed the
 * rewrite (measured, 1.6.16: the panel said Accepted, `region.html()` still held the original).
 * The element with ContentEdit's focus is the one editable paragraph: its model is copied from the
 * DOM after the native edit, as on the writer's keyup.
 */
function contentEditFor(root: Element): EditorApi | undefined {
  const contentEdit = (root.ownerDocument.defaultView as unknown as { ContentEdit?: { Root?: { get?(): { focused?(): ContentEditText | null } } } } | null)?.ContentEdit;
  const element = contentEdit?.Root?.get?.()?.focused?.();
  if (!element || element._domElement !== root || typeof element._syncContent !== 'function') return undefined;
  return {
    readOnly: () => !(root as HTMLElement).isContentEditable,
    insert(text, range) {
      if (!range) return false;
      const done = editRangeNatively(range, text);
      element._syncContent!();
      return done;
    },
  };
}

/**
 * SCEditor (forums: its WYSIWYG body in an iframe it writes itself, over the page's textarea)
 * reads its value from that body, but fires `valuechanged` (what a page's draft autosave and its
 * own plugins, its undo plugin among them, listen to) only after the writer's keys, a paste or a
 * command: none came for an accept (measured, 3.2.1). The edit goes in natively and
 * `valuechanged` is fired on its container afterwards, as SCEditor fires it (a bubbling event
 * whose detail is the body's HTML), so its own handlers pass it on.
 */
function sceditorFor(root: Element): EditorApi | undefined {
  const frame = root.ownerDocument.defaultView?.frameElement;
  const container = frame?.closest('.sceditor-container');
  const original = container?.nextElementSibling as (Element & { _sceditor?: unknown }) | null | undefined;
  if (!container || !original?._sceditor) return undefined;
  return {
    readOnly: () => !(root as HTMLElement).isContentEditable,
    insert(text, range) {
      if (!range) return false;
      const done = editRangeNatively(range, text);
      container.dispatchEvent(new CustomEvent('valuechanged', { bubbles: true, cancelable: true, detail: { rawValue: root.innerHTML } }));
      return done;
    },
  };
}

/**
 * Quill inside a shadow root, in Firefox: its history undoes only on the browser's `historyUndo`
 * (its keyboard module never sees Ctrl+Z there), which needs the edit in the browser's undo stack.
 * An `execCommand` from the content script fired a `beforeinput` that Quill took and made through
 * its model (no native edit, nothing to undo: Ctrl+Z left the accept in); from the page's world
 * Firefox fires none, Quill reads the native edit through its mutation observer, and Ctrl+Z undoes it.
 */
function quillInShadowFor(root: Element): EditorApi | undefined {
  if (!root.classList.contains('ql-editor') || !(root.getRootNode() instanceof ShadowRoot)) return undefined;
  return {
    readOnly: () => !(root as HTMLElement).isContentEditable,
    insert: (text, range) => !!range && root.contains(range.startContainer) && editRangeNatively(range, text),
  };
}

interface Froala {
  el?: Element;
  undo?: { saveStep?(): void };
}

/**
 * Froala Editor restores snapshots of its HTML on Ctrl+Z and fires `contentChanged` (what its
 * React, Angular and Vue wrappers set their model from) when it takes one. It takes the snapshot
 * before the writer's typing on their keydown; an edit through the input pipeline has none, and
 * its `input` handler took only the state after it, as the first of an empty stack: Ctrl+Z after
 * an accept did nothing, while the panel said it brings the sentence back (measured, 5.4.0). A
 * snapshot is taken before the edit and after it (Froala skips one equal to its latest). The
 * instance is on the element Froala was made on (`data-froala.editor`, its own data store): its
 * box around the editable (or around the frame whose body is the editable, in its iframe mode), or
 * the textarea beside that box.
 */
function froalaFor(root: Element): EditorApi | undefined {
  // In its iframe mode the editable is the body of a frame inside the box.
  const box = root.classList.contains('fr-element') ? root.closest('.fr-box') : root.ownerDocument.defaultView?.frameElement?.closest('.fr-box');
  const editor = [box, box?.nextElementSibling, box?.previousElementSibling]
    .map((element) => (element as unknown as Record<string, Froala | undefined> | null | undefined)?.['data-froala.editor'])
    .find((candidate) => candidate?.el === root);
  const undo = editor?.undo;
  if (typeof undo?.saveStep !== 'function') return undefined;
  return {
    readOnly: () => !(root as HTMLElement).isContentEditable,
    insert(text, range) {
      if (!range) return false;
      undo.saveStep!();
      const done = editRangeNatively(range, text);
      undo.saveStep!();
      return done;
    },
  };
}

interface SimditorUndo {
  _stack?: { html: string }[];
  currentState?(): { html: string } | null;
  _pushUndoState?(): void;
  resetCaretPosition?(): void;
}
interface Simditor {
  body: { html(): string };
  undoManager?: SimditorUndo;
  inputManager?: { focused?: boolean };
  selection?: { _range?: Range | null; reset?(): void };
  on(event: string, handler: () => unknown): unknown;
}

const dedupedSimditors = new WeakSet<object>();

/**
 * Simditor (jQuery) restores states of its HTML on Ctrl+Z, kept at most every 2 s after its
 * `valuechanged`, and overwrites the latest state with the HTML as it is on every selection
 * change: an edit with no state before it went into the state before (measured, 2.3.28: after the
 * formatted page's Accept all, 8 Ctrl+Z left one part of the rewrite in). The state as it is before
 * the edit and after it are pushed as states of their own; a state equal to the latest one is not
 * pushed again (its throttled push after the edit's `input` would otherwise make an undo step that
 * changes nothing).
 */
function simditorFor(root: Element): EditorApi | undefined {
  if (!root.classList.contains('simditor-body')) return undefined;
  const jQuery = (window as unknown as { jQuery?: (element: Element) => { data(key: string): unknown } }).jQuery;
  const wrapper = root.closest('.simditor');
  const editor = wrapper && typeof jQuery === 'function' ? (jQuery(wrapper).data('simditor') as Simditor | undefined) : undefined;
  const undo = editor?.undoManager;
  if (!editor || typeof undo?._pushUndoState !== 'function' || typeof undo.currentState !== 'function') return undefined;
  const isLatest = () => undo.currentState!()?.html === editor.body.html();
  if (!dedupedSimditors.has(editor)) {
    dedupedSimditors.add(editor);
    // `pushundostate` is Simditor's hook before a state is pushed: false skips it.
    editor.on('pushundostate', () => (isLatest() ? false : undefined));
  }
  return {
    readOnly: () => !(root as HTMLElement).isContentEditable,
    insert(text, range) {
      if (!range) return false;
      pushSimditorState(editor, undo, range);
      const done = editRangeNatively(range, text);
      const selection = root.ownerDocument.getSelection();
      pushSimditorState(editor, undo, selection?.rangeCount ? selection.getRangeAt(0) : range);
      return done;
    },
  };
}

/**
 * Pushes Simditor's state with `caret` as its caret. Simditor keeps a state only with a caret,
 * which it knows only while its editable has the focus: with the writer in the side panel (the
 * page's document without the focus: its editable had a blur) it kept none, and Ctrl+Z after an
 * accept did nothing (measured, Firefox with the sidebar beside the page). For that moment its
 * editable is taken as focused, with the edit's range as its selection.
 */
function pushSimditorState(editor: Simditor, undo: SimditorUndo, caret: Range): void {
  const input = editor.inputManager;
  const selection = editor.selection;
  if (!input || input.focused || typeof selection?.reset !== 'function' || typeof undo.resetCaretPosition !== 'function') {
    undo._pushUndoState!();
    return;
  }
  input.focused = true;
  selection.reset();
  selection._range = caret;
  undo.resetCaretPosition();
  try {
    undo._pushUndoState!();
  } finally {
    input.focused = false;
    selection.reset();
    undo.resetCaretPosition();
  }
}

interface CkEditor4 {
  editable(): { $: Element } | null;
  readOnly?: boolean;
  fire(event: string): unknown;
}

/** The CKEditor 4 instance whose editable is `root`. */
function ckeditor4For(root: Element): CkEditor4 | undefined {
  if (!root.classList.contains('cke_editable')) return undefined;
  return fromThisOrParentWindows((view) => {
    const instances = (view as unknown as { CKEDITOR?: { instances?: Record<string, CkEditor4> } }).CKEDITOR?.instances;
    return instances && Object.values(instances).find((candidate) => candidate.editable()?.$ === root);
  });
}

/**
 * CKEditor 4 keeps images of its HTML for undo, taken on the writer's keys: an edit through the
 * browser's input pipeline makes none, so Ctrl+Z after an accept went back to the image before
 * the writer's last typing (the accept and their typing undone together, measured in 4.22), and
 * CKEditor fired no `change`. An image before and after the edit (`saveSnapshot`, which also
 * fires `change` when the HTML differs) makes the accept one step of its own. Its document is its
 * DOM, so the words are written into its text nodes, as in TinyMCE: Chromium's `insertText`
 * writes a space beside a run of formatting as a no-break space, which CKEditor then submits
 * (`&nbsp;`, four after an Accept all of the formatted text).
 */
function ckeditor4Api(editor: CkEditor4): EditorApi {
  return {
    readOnly: () => editor.readOnly === true,
    insert(text, range) {
      if (!range) return false;
      editor.fire('saveSnapshot');
      const done = writeIntoTextNodes(range, text) || editRangeNatively(range, text);
      editor.fire('saveSnapshot');
      return done;
    },
  };
}

type CodeMirrorPosition = { line: number; ch: number };

interface CodeMirror5 {
  getValue(): string;
  getOption(name: 'readOnly'): unknown;
  posFromIndex(index: number): CodeMirrorPosition;
  indexFromPos(position: CodeMirrorPosition): number;
  setSelection(anchor: CodeMirrorPosition, head: CodeMirrorPosition): void;
  replaceSelection(text: string): void;
  operation(work: () => void): void;
  markText(from: CodeMirrorPosition, to: CodeMirrorPosition, options: { className: string }): { clear(): void };
  getCursor(): CodeMirrorPosition;
  coordsChar(point: { left: number; top: number }, mode: 'window'): CodeMirrorPosition & { outside?: boolean };
  charCoords(position: CodeMirrorPosition, mode: 'window'): { left: number; right: number; top: number; bottom: number };
  scrollIntoView(range: { from: CodeMirrorPosition; to: CodeMirrorPosition }, margin?: number): void;
  changeGeneration(closeEvent: boolean): number;
}

function codeMirror5Api(cm: CodeMirror5): EditorApi {
  const at = (index: number) => cm.posFromIndex(index);
  const box = (index: number): Box => {
    const { left, top, right, bottom } = cm.charCoords(at(index), 'window');
    return [left, top, right, bottom];
  };
  return {
    readOnly: () => Boolean(cm.getOption('readOnly')),
    read: () => cm.getValue(),
    select(start, end) {
      cm.setSelection(at(start), at(end));
      cm.scrollIntoView({ from: at(start), to: at(end) }, 60);
    },
    // Its own history event: CodeMirror would merge edits made close together (Accept all) into one.
    insert(text) {
      cm.changeGeneration(true);
      cm.operation(() => cm.replaceSelection(text));
      cm.changeGeneration(true);
      return true;
    },
    mark: (layer, marks) =>
      replaceMarks(cm, layer, () => {
        const made: { clear(): void }[] = [];
        cm.operation(() => marks.forEach((mark) => made.push(cm.markText(at(mark.start), at(mark.end), { className: mark.className }))));
        return () => cm.operation(() => made.forEach((marker) => marker.clear()));
      }),
    caret: () => cm.indexFromPos(cm.getCursor()),
    offsetAt(x, y) {
      const position = cm.coordsChar({ left: x, top: y }, 'window');
      return position.outside ? undefined : cm.indexFromPos(position);
    },
    boxes: (start, end) => [box(start), box(Math.max(start, end - 1))],
  };
}

type AcePosition = { row: number; column: number };
type AceRange = { start: AcePosition; end: AcePosition };

interface AceEditor {
  getValue(): string;
  getReadOnly(): boolean;
  getSelectionRange(): AceRange & { constructor: new (startRow: number, startColumn: number, endRow: number, endColumn: number) => AceRange };
  getCursorPosition(): AcePosition;
  session: {
    doc: { indexToPosition(index: number, startRow?: number): AcePosition; positionToIndex(position: AcePosition, startRow?: number): number };
    addMarker(range: AceRange, className: string, type: 'text', inFront: boolean): number;
    markUndoGroup(): void;
    removeMarker(id: number): void;
  };
  selection: { setSelectionRange(range: AceRange): void };
  renderer: {
    lineHeight: number;
    characterWidth: number;
    screenToTextCoordinates(x: number, y: number): AcePosition;
    textToScreenCoordinates(row: number, column: number): { pageX: number; pageY: number };
    scrollSelectionIntoView(from: AcePosition, to: AcePosition): void;
  };
  container: HTMLElement;
  insert(text: string): void;
}

function aceApi(editor: AceEditor): EditorApi {
  const { doc } = editor.session;
  const at = (index: number) => doc.indexToPosition(index, 0);
  const box = (index: number): Box => {
    const { row, column } = at(index);
    const { pageX, pageY } = editor.renderer.textToScreenCoordinates(row, column);
    return [pageX, pageY, pageX + editor.renderer.characterWidth, pageY + editor.renderer.lineHeight];
  };
  return {
    readOnly: () => editor.getReadOnly(),
    read: () => editor.getValue(),
    select(start, end) {
      editor.selection.setSelectionRange({ start: at(start), end: at(end) });
      editor.renderer.scrollSelectionIntoView(at(start), at(end));
    },
    // Its own undo group: Ace merges the edits of one moment (Accept all) into one.
    insert(text) {
      editor.session.markUndoGroup();
      editor.insert(text);
      editor.session.markUndoGroup();
      return true;
    },
    mark: (layer, marks) =>
      replaceMarks(editor, layer, () => {
        // Ace's own Range class, without requiring its module system.
        const AceRange = editor.getSelectionRange().constructor;
        const ids = marks.map((mark) => {
          const [from, to] = [at(mark.start), at(mark.end)];
          return editor.session.addMarker(new AceRange(from.row, from.column, to.row, to.column), mark.className, 'text', false);
        });
        return () => ids.forEach((id) => editor.session.removeMarker(id));
      }),
    caret: () => doc.positionToIndex(editor.getCursorPosition(), 0),
    offsetAt(x, y) {
      const bounds = editor.container.getBoundingClientRect();
      if (x < bounds.left || x > bounds.right || y < bounds.top || y > bounds.bottom) return undefined;
      return doc.positionToIndex(editor.renderer.screenToTextCoordinates(x, y), 0);
    },
    boxes: (start, end) => [box(start), box(Math.max(start, end - 1))],
  };
}

type MonacoPosition = { lineNumber: number; column: number };
type MonacoRange = { startLineNumber: number; startColumn: number; endLineNumber: number; endColumn: number };

interface MonacoEditor {
  getDomNode(): HTMLElement | null;
  getModel(): { getValue(): string; getPositionAt(offset: number): MonacoPosition; getOffsetAt(position: MonacoPosition): number } | null;
  getRawOptions(): { readOnly?: boolean };
  getSelection(): MonacoRange | null;
  setSelection(range: MonacoRange): void;
  revealRangeInCenterIfOutsideViewport(range: MonacoRange): void;
  executeEdits(source: string, edits: { range: MonacoRange; text: string; forceMoveMarkers: boolean }[]): boolean;
  pushUndoStop(): boolean;
  createDecorationsCollection(decorations: { range: MonacoRange; options: { inlineClassName: string; stickiness: number } }[]): { clear(): void };
  getPosition(): MonacoPosition | null;
  getTargetAtClientPoint(x: number, y: number): { type: number; position: MonacoPosition | null } | null;
  getScrolledVisiblePosition(position: MonacoPosition): { top: number; left: number; height: number } | null;
}

/** Monaco's `MouseTargetType.CONTENT_TEXT` and `TrackedRangeStickiness.NeverGrowsWhenTypingAtEdges`. */
const MONACO_CONTENT_TEXT = 6;
const MONACO_NEVER_GROWS = 1;

/**
 * The Monaco editor around `root`. Its instances are reachable only through the page's
 * `monaco` global (pages that load it with its AMD loader, from a CDN or a React wrapper); a
 * Monaco bundled into the page's own code is out of reach, and is then not read at all.
 */
function monacoFor(root: Element): MonacoEditor | undefined {
  const container = root.closest('.monaco-editor');
  if (!container) return undefined;
  const editors = (window as unknown as { monaco?: { editor?: { getEditors?(): readonly MonacoEditor[] } } }).monaco?.editor?.getEditors?.();
  return editors?.find((editor) => editor.getDomNode() === container && editor.getModel() !== null);
}

function monacoApi(editor: MonacoEditor): EditorApi {
  const model = () => editor.getModel()!;
  const range = (start: number, end: number): MonacoRange => {
    const [from, to] = [model().getPositionAt(start), model().getPositionAt(end)];
    return { startLineNumber: from.lineNumber, startColumn: from.column, endLineNumber: to.lineNumber, endColumn: to.column };
  };
  const box = (index: number): Box => {
    const position = model().getPositionAt(index);
    const next = model().getPositionAt(index + 1);
    const at = editor.getScrolledVisiblePosition(position);
    const bounds = editor.getDomNode()!.getBoundingClientRect();
    if (!at) return [bounds.left, bounds.top, bounds.left, bounds.top];
    const after = next.lineNumber === position.lineNumber ? editor.getScrolledVisiblePosition(next) : null;
    const left = bounds.left + at.left;
    const top = bounds.top + at.top;
    return [left, top, after && after.left > at.left ? bounds.left + after.left : left + at.height / 2, top + at.height];
  };
  return {
    readOnly: () => editor.getRawOptions().readOnly === true,
    read: () => model().getValue(),
    select(start, end) {
      editor.setSelection(range(start, end));
      editor.revealRangeInCenterIfOutsideViewport(range(start, end));
    },
    // Its own undo stops around the edit: Monaco would merge it with the writer's typing before or after.
    insert(text) {
      const selection = editor.getSelection();
      if (!selection) return false;
      editor.pushUndoStop();
      const done = editor.executeEdits('redline', [{ range: selection, text, forceMoveMarkers: true }]);
      editor.pushUndoStop();
      return done;
    },
    mark: (layer, marks) =>
      replaceMarks(editor, layer, () => {
        const made = editor.createDecorationsCollection(
          marks.map((mark) => ({ range: range(mark.start, mark.end), options: { inlineClassName: mark.className, stickiness: MONACO_NEVER_GROWS } })),
        );
        return () => made.clear();
      }),
    caret() {
      const position = editor.getPosition();
      return position ? model().getOffsetAt(position) : 0;
    },
    offsetAt(x, y) {
      const target = editor.getTargetAtClientPoint(x, y);
      return target?.type === MONACO_CONTENT_TEXT && target.position ? model().getOffsetAt(target.position) : undefined;
    },
    boxes: (start, end) => [box(start), box(Math.max(start, end - 1))],
  };
}

interface CodeMirror6View {
  state: { readOnly: boolean; doc: { length: number } };
  contentDOM: HTMLElement;
  posAtDOM(node: Node, offset?: number): number;
  dispatch(spec: { changes: { from: number; to: number; insert: string }; selection: { anchor: number }; userEvent: string; scrollIntoView: boolean }): void;
}

/** CodeMirror 6's view, from its content element (6.38+: `cmTile`; before: `cmView`), as its own `EditorView.findFromDOM` finds it. */
function codeMirror6For(root: Element): CodeMirror6View | undefined {
  const content = root.closest('.cm-content') as (Element & { cmTile?: { root?: { view?: CodeMirror6View } }; cmView?: { rootView?: { view?: CodeMirror6View } } }) | null;
  const view = content?.cmTile?.root?.view ?? content?.cmView?.rootView?.view;
  return view && typeof view.dispatch === 'function' && typeof view.posAtDOM === 'function' ? view : undefined;
}

function codeMirror6Api(view: CodeMirror6View): EditorApi {
  return {
    readOnly: () => view.state.readOnly || !view.contentDOM.isContentEditable,
    insert(text, range) {
      if (!range || !view.contentDOM.contains(range.startContainer) || !view.contentDOM.contains(range.endContainer)) return false;
      const from = view.posAtDOM(range.startContainer, range.startOffset);
      const to = view.posAtDOM(range.endContainer, range.endOffset);
      if (!(from <= to)) return false;
      // One transaction, typed input: one step of CodeMirror's history.
      view.dispatch({ changes: { from, to, insert: text }, selection: { anchor: from + text.length }, userEvent: 'input.type', scrollIntoView: true });
      return true;
    },
  };
}

function editorApiFor(root: Element): EditorApi | undefined {
  const codeMirror6 = codeMirror6For(root);
  if (codeMirror6) return codeMirror6Api(codeMirror6);
  const monaco = monacoFor(root);
  if (monaco) return monacoApi(monaco);
  const codeMirror = (root.closest('.CodeMirror') as (Element & { CodeMirror?: CodeMirror5 }) | null)?.CodeMirror;
  if (codeMirror && typeof codeMirror.getValue === 'function') return codeMirror5Api(codeMirror);
  const ace = (root.closest('.ace_editor') as (Element & { env?: { editor?: AceEditor } }) | null)?.env?.editor;
  if (ace && typeof ace.getValue === 'function') return aceApi(ace);
  const summernote = summernoteFor(root);
  if (summernote) return summernote;
  const trumbowyg = trumbowygFor(root);
  if (trumbowyg) return trumbowyg;
  const contentEdit = contentEditFor(root);
  if (contentEdit) return contentEdit;
  const sceditor = sceditorFor(root);
  if (sceditor) return sceditor;
  const simditor = simditorFor(root);
  if (simditor) return simditor;
  const froala = froalaFor(root);
  if (froala) return froala;
  const quillInShadow = quillInShadowFor(root);
  if (quillInShadow) return quillInShadow;
  const ckeditor4 = ckeditor4For(root);
  if (ckeditor4) return ckeditor4Api(ckeditor4);
  const rooster = roosterFor(root);
  if (rooster) return rooster;
  const tiny = tinymceFor(root);
  return tiny && tinymceApi(tiny);
}

/**
 * Whether the editor around `root` is read-only in its own state while its DOM stays editable.
 * Lexical's `setEditable(false)` leaves its root `contenteditable` unless the app changes it too
 * (vanilla Lexical does not): the writer's typing then never reaches its model, but a native edit
 * (`execCommand`) does, read in from the DOM (measured, Lexical 0.52 in Chromium).
 */
function lockedInModel(root: Element): boolean {
  const lexical = (root.closest('[data-lexical-editor]') as (Element & { __lexicalEditor?: { isEditable?(): boolean } }) | null)?.__lexicalEditor;
  return lexical?.isEditable?.() === false;
}

const isElement = (node: unknown): node is Element => typeof node === 'object' && node !== null && (node as Node).nodeType === Node.ELEMENT_NODE;

const reply = (root: Element, detail: string) => root.dispatchEvent(new CustomEvent(PAGE_REPLY_EVENT, { detail }));

function handle(event: Event): void {
  const target = event.composedPath()[0];
  // Asked at an iframe: the editor is the one whose body is that frame's (see askPage).
  const root = target instanceof HTMLIFrameElement ? target.contentDocument?.body : target;
  // `instanceof Element` would fail for a frame's body: it is another window's Element.
  if (!isElement(root) || typeof (event as CustomEvent).detail !== 'string') return;
  let request: PageRequest;
  try {
    request = JSON.parse((event as CustomEvent<string>).detail) as PageRequest;
  } catch {
    return;
  }
  if (request.op === 'locked') {
    if (lockedInModel(root) || editorApiFor(root)?.readOnly()) event.preventDefault();
    return;
  }
  const editor = editorApiFor(root);
  // A read-only editor is neither read nor edited, as a read-only field.
  if (!editor || editor.readOnly()) return;
  switch (request.op) {
    case 'probe':
      if (request.editor !== undefined && request.editor !== editor.editor) return;
      break;
    case 'read': {
      if (!editor.read) return;
      reply(root, editor.read());
      break;
    }
    case 'select':
      if (!editor.select || !Number.isInteger(request.start) || !Number.isInteger(request.end)) return;
      editor.select(request.start, request.end);
      break;
    case 'mark':
      if (!editor.mark || !Array.isArray(request.marks)) return;
      installMarkStyle(root.ownerDocument, String(request.css));
      editor.mark(String(request.layer), request.marks.filter((mark) => Number.isInteger(mark.start) && Number.isInteger(mark.end) && /^redline-[a-z0-9-]+$/.test(mark.className)));
      break;
    case 'caret':
      if (!editor.caret) return;
      reply(root, String(editor.caret()));
      break;
    case 'offsetAt': {
      const offset = editor.offsetAt?.(request.x, request.y);
      if (offset === undefined) return;
      reply(root, String(offset));
      break;
    }
    case 'boxes':
      if (!editor.boxes) return;
      reply(root, JSON.stringify(editor.boxes(request.start, request.end)));
      break;
    case 'insert': {
      if (typeof request.text !== 'string') return;
      const selection = root.ownerDocument.getSelection();
      if (!editor.insert(request.text, selection?.rangeCount ? selection.getRangeAt(0) : undefined)) return;
      break;
    }
    default:
      return;
  }
  event.preventDefault();
}

export default defineContentScript({
  matches: ['<all_urls>'],
  world: 'MAIN',
  runAt: 'document_idle',
  allFrames: true,
  matchAboutBlank: true,
  matchOriginAsFallback: true,
  main() {
    window.addEventListener(PAGE_API_EVENT, handle, true);
  },
});
