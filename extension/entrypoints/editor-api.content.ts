import { PAGE_API_EVENT, PAGE_REPLY_EVENT, type PageRequest } from '../lib/page/bridge.ts';

/**
 * Runs in the page's own world, where editor instances are reachable, and works through an
 * editor's public API when the content script asks (lib/page/bridge.ts):
 * - TinyMCE records no undo level for an edit made through the browser's input pipeline;
 *   through its API, an accept is one step of its own undo manager.
 * - Code editors that draw their own lines over a hidden textarea (CodeMirror 5, Ace) keep the
 *   document only in their model: it is read, selected and edited there.
 * Text goes only to the content script that asked, in a reply event on the same element.
 */

/** What the page-world script can do with one editor. */
interface EditorApi {
  readOnly(): boolean;
  /** Puts text over the selection as one undo step; `range` is the document selection (TinyMCE). */
  insert(text: string, range: Range | undefined): boolean;
  read?(): string;
  select?(start: number, end: number): void;
}

interface TinyEditor {
  getBody(): HTMLElement;
  insertContent(html: string): void;
  selection: { setRng(range: Range): void };
  dom: { encode(text: string): string };
  undoManager: { add(): unknown; transact(work: () => void): unknown };
  mode?: { isReadOnly(): boolean };
}

/** The TinyMCE editor whose body is `root`, from this window or a same-origin parent (classic mode's iframe). */
function tinymceFor(root: Element): TinyEditor | undefined {
  for (let view: Window = window; ; view = view.parent) {
    try {
      const editors = (view as unknown as { tinymce?: { get(): TinyEditor[] } }).tinymce?.get();
      const editor = editors?.find((candidate) => candidate.getBody() === root);
      if (editor) return editor;
    } catch {
      return undefined; // a cross-origin parent
    }
    if (view === view.parent) return undefined;
  }
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
        editor.selection.setRng(range);
        editor.insertContent(html);
      });
      return true;
    },
  };
}

interface CodeMirror5 {
  getValue(): string;
  getOption(name: 'readOnly'): unknown;
  posFromIndex(index: number): unknown;
  setSelection(anchor: unknown, head: unknown): void;
  replaceSelection(text: string): void;
  operation(work: () => void): void;
}

function codeMirror5Api(cm: CodeMirror5): EditorApi {
  return {
    readOnly: () => Boolean(cm.getOption('readOnly')),
    read: () => cm.getValue(),
    select: (start, end) => cm.setSelection(cm.posFromIndex(start), cm.posFromIndex(end)),
    insert: (text) => (cm.operation(() => cm.replaceSelection(text)), true),
  };
}

interface AceEditor {
  getValue(): string;
  getReadOnly(): boolean;
  session: { doc: { indexToPosition(index: number, startRow?: number): { row: number; column: number } } };
  selection: { setSelectionRange(range: { start: { row: number; column: number }; end: { row: number; column: number } }): void };
  insert(text: string): void;
}

function aceApi(editor: AceEditor): EditorApi {
  const at = (index: number) => editor.session.doc.indexToPosition(index, 0);
  return {
    readOnly: () => editor.getReadOnly(),
    read: () => editor.getValue(),
    select: (start, end) => editor.selection.setSelectionRange({ start: at(start), end: at(end) }),
    insert: (text) => (editor.insert(text), true),
  };
}

function editorApiFor(root: Element): EditorApi | undefined {
  const codeMirror = (root.closest('.CodeMirror') as (Element & { CodeMirror?: CodeMirror5 }) | null)?.CodeMirror;
  if (codeMirror && typeof codeMirror.getValue === 'function') return codeMirror5Api(codeMirror);
  const ace = (root.closest('.ace_editor') as (Element & { env?: { editor?: AceEditor } }) | null)?.env?.editor;
  if (ace && typeof ace.getValue === 'function') return aceApi(ace);
  const tiny = tinymceFor(root);
  return tiny && tinymceApi(tiny);
}

const isElement = (node: unknown): node is Element => typeof node === 'object' && node !== null && (node as Node).nodeType === Node.ELEMENT_NODE;

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
  const editor = editorApiFor(root);
  if (!editor || editor.readOnly()) return;
  switch (request.op) {
    case 'probe':
      break;
    case 'read': {
      if (!editor.read) return;
      root.dispatchEvent(new CustomEvent(PAGE_REPLY_EVENT, { detail: editor.read() }));
      break;
    }
    case 'select':
      if (!editor.select || !Number.isInteger(request.start) || !Number.isInteger(request.end)) return;
      editor.select(request.start, request.end);
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
