import { PAGE_API_EVENT, type PageRequest } from '../lib/page/bridge.ts';

/**
 * Runs in the page's own world, where editor instances are reachable, and edits through an
 * editor's public API when the content script asks (lib/page/bridge.ts). TinyMCE records no
 * undo level for an edit made through the browser's input pipeline; through its API, an accept
 * is one step of its own undo manager. Nothing here reads or sends the page's text.
 */

interface TinyEditor {
  getBody(): HTMLElement;
  insertContent(html: string): void;
  selection: { setRng(range: Range): void };
  dom: { encode(text: string): string };
  undoManager: { add(): unknown; transact(work: () => void): unknown; undo(): unknown; hasUndo(): boolean };
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
  const editor = tinymceFor(root);
  if (!editor || editor.mode?.isReadOnly()) return;
  switch (request.op) {
    case 'probe':
      break;
    case 'insert': {
      const selection = root.ownerDocument.getSelection();
      if (!selection?.rangeCount || typeof request.text !== 'string') return;
      const range = selection.getRangeAt(0);
      const html = editor.dom.encode(request.text).replace(/\r?\n/g, '<br>');
      // The state before, as a level (a no-op when it is the last one already): with an empty
      // history (cleared after loading a document) a transaction alone would leave nothing to undo to.
      editor.undoManager.add();
      editor.undoManager.transact(() => {
        editor.selection.setRng(range);
        editor.insertContent(html);
      });
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
