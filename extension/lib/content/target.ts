import { askPage, readThroughPage } from '../page/bridge.ts';
import { DomText } from './dom-text.ts';
import { BLOCK_DOCUMENT, CODE_EDITOR, CODE_EDITOR_ROOT, FIELD, familyOf, type EditorFamily } from './editors.ts';
import { fieldText, type FieldText } from './field-text.ts';

/** Where a check's text comes from, and how to point back into it. */
export interface Target {
  kind: 'field' | 'editor' | 'selection' | 'page';
  /** The field, the editor root, or the element around the selection. */
  element: HTMLElement;
  /** The editor family: how its text is edited and what its undo keeps. */
  family: EditorFamily;
  readText(): string;
  /** Calls back when the text may have changed; returns the unsubscribe function. */
  observe(onChange: () => void): () => void;
  /** Selects [start, end) of the text where the DOM selection cannot (an editor's own selection); false when it could not. */
  select?(start: number, end: number): boolean;
}

/** A target whose text is a value: a field, or a code editor's document read through its API. */
export interface ValueTarget extends Target {
  kind: 'field';
  /** The value as captured text, with offsets both ways (the text is the value in most fields). */
  fieldText(): FieldText;
}

export interface FieldTarget extends ValueTarget {
  element: HTMLTextAreaElement | HTMLInputElement;
}

export interface DomTarget extends Target {
  kind: 'editor' | 'selection' | 'page';
  /** A fresh text model of the target. */
  model(): DomText;
}

const TEXT_INPUT_TYPES = new Set(['text', 'search', 'email', 'url', '']);

/** Password, hidden, read-only and disabled fields are never read. */
export function isCheckableField(element: Element | null): element is HTMLTextAreaElement | HTMLInputElement {
  if (element instanceof HTMLTextAreaElement) return !element.readOnly && !element.disabled && isVisible(element);
  if (element instanceof HTMLInputElement) {
    return TEXT_INPUT_TYPES.has(element.getAttribute('type')?.toLowerCase() ?? '') && !element.readOnly && !element.disabled && isVisible(element);
  }
  return false;
}

function isVisible(element: HTMLElement): boolean {
  return element.getClientRects().length > 0 && getComputedStyle(element).visibility !== 'hidden';
}

/** The outermost editable ancestor of a node (the editor root), unless it is read-only. */
export function editingHost(node: Node | null): HTMLElement | undefined {
  let element = node instanceof HTMLElement ? node : node?.parentElement ?? null;
  if (!element?.isContentEditable) return undefined;
  while (element.parentElement?.isContentEditable) element = element.parentElement;
  if (element.getAttribute('aria-readonly') === 'true' || element.getAttribute('aria-disabled') === 'true') return undefined;
  return element;
}

/** The element holding the whole document around an editing host: its block list in a block editor, else the host itself. */
export function editorRoot(host: HTMLElement): HTMLElement {
  return host.parentElement?.closest<HTMLElement>(BLOCK_DOCUMENT) ?? host;
}

/** Whether the target's text can be edited in place. */
export function isEditable(target: Target): boolean {
  return target.kind === 'field' || target.element.isContentEditable || target.element.matches(BLOCK_DOCUMENT);
}

/**
 * Whether the writer cannot edit the target now: a read-only or disabled field, an editor root
 * switched off (`contenteditable="false"`: Tiptap's and Quill's read-only modes), or an editor
 * whose own state is read-only while its DOM still takes edits (asked in the page's world,
 * editor-api.content.ts: Lexical's `setEditable(false)` leaves its root editable, and a native
 * edit would still reach its model; TinyMCE's, CodeMirror's and the other editors' read-only
 * modes, from their APIs). An edit the writer could not make must not be made for them, and they
 * are told why nothing changed.
 */
export function isReadOnly(target: Target): boolean {
  if (target.kind === 'field') {
    const field = target.element as FieldTarget['element'];
    return field.readOnly || field.disabled;
  }
  return target.element.getAttribute('contenteditable') === 'false' || askPage(target.element, { op: 'locked' });
}

/** Focuses the editing host that holds `at` (a block of a block editor), else the target's element. */
export function focusEditor(element: HTMLElement, at?: Node): void {
  const host = (at && element.contains(at) && editingHost(at)) || element;
  host.focus({ preventScroll: true });
}

export function fieldTarget(field: HTMLTextAreaElement | HTMLInputElement): FieldTarget {
  return {
    kind: 'field',
    element: field,
    family: FIELD,
    readText: () => fieldText(field.value).text,
    fieldText: () => fieldText(field.value),
    observe(onChange) {
      field.addEventListener('input', onChange);
      return () => field.removeEventListener('input', onChange);
    },
  };
}

/**
 * The input element of a code editor that draws its own lines (CodeMirror 5, Ace, Monaco: a
 * hidden textarea, or Monaco's EditContext element), as a field whose value is the editor's
 * document, read through its API in the page's world; undefined when that API does not answer.
 */
export function codeEditorTarget(field: HTMLElement): ValueTarget | undefined {
  if (!CODE_EDITOR.matches(field)) return undefined;
  const editor = field.closest<HTMLElement>(CODE_EDITOR_ROOT)!;
  if (!askPage(field, { op: 'probe' })) return undefined;
  const value = () => readThroughPage(field) ?? '';
  return {
    kind: 'field',
    element: field,
    family: CODE_EDITOR,
    readText: () => fieldText(value()).text,
    fieldText: () => fieldText(value()),
    observe(onChange) {
      // Typing arrives through the input element; undo, redo and other commands only redraw the lines.
      const observer = new MutationObserver(onChange);
      observer.observe(editor, { subtree: true, childList: true, characterData: true });
      field.addEventListener('input', onChange);
      return () => (observer.disconnect(), field.removeEventListener('input', onChange));
    },
    select(start, end) {
      const offsets = fieldText(value());
      field.focus({ preventScroll: true });
      return askPage(field, { op: 'select', start: offsets.toValue(start), end: offsets.toValue(end, true) });
    },
  };
}

export function domTarget(kind: 'editor' | 'selection', root: HTMLElement, bounds?: Range): DomTarget {
  const family = familyOf(root);
  return {
    kind,
    element: root,
    family,
    model: () => new DomText(root, bounds, family.capture),
    readText: () => new DomText(root, bounds, family.capture).text,
    observe(onChange) {
      const observer = new MutationObserver(onChange);
      observer.observe(root, { subtree: true, childList: true, characterData: true });
      return () => observer.disconnect();
    },
  };
}

/** The focused element, looking into open shadow roots; a host whose shadow root is closed stays the answer. */
export function deepActiveElement(doc: Document = document): Element | null {
  let active = doc.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active;
}

/** Whether the element is inside a code editor that draws its own lines (where findTarget finds nothing, its API is out of reach). */
export function isInCodeEditor(element: Element | null): boolean {
  return element instanceof HTMLElement && CODE_EDITOR.matches(element);
}

/** A focused custom element with no open shadow root: its text is out of reach. */
export function isClosedComponent(element: Element | null): boolean {
  return !!element && element.localName.includes('-') && !element.shadowRoot && !(element as HTMLElement).isContentEditable;
}

/**
 * The text the user means: the focused field; else a selection (inside an editor or on the
 * page); else the focused editor (in open shadow roots too). Undefined when there is none.
 */
export function findTarget(doc: Document = document): Target | undefined {
  const active = deepActiveElement(doc);
  // Its input element holds a line or a window of the document at most: without the editor's API it is not read.
  if (isInCodeEditor(active)) return codeEditorTarget(active as HTMLElement);
  if (isCheckableField(active)) return fieldTarget(active);
  if (active instanceof HTMLInputElement || active instanceof HTMLTextAreaElement) return undefined; // skipped kinds

  const selection = doc.getSelection();
  if (selection && !selection.isCollapsed && selection.rangeCount > 0 && selection.toString().trim()) {
    const range = selection.getRangeAt(0).cloneRange();
    const container = range.commonAncestorContainer;
    const root = container instanceof HTMLElement ? container : container.parentElement!;
    // A selection inside the focused editor is checked in its editor, so it can be edited there.
    const host = editingHost(root);
    return domTarget('selection', host && host.contains(active) ? host : root, range);
  }
  const host = editingHost(active);
  return host ? domTarget('editor', editorRoot(host)) : undefined;
}
