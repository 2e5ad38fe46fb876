/** Where the caret is: a collapsed selection's node and offset, and how long that node is. */
export interface Caret {
  node: Node;
  offset: number;
  /** The length of its node: characters of a text node or a field's value, children of an element. */
  length: number;
}

/** The caret of the document's selection, or of the focused text field (whose caret the document's selection does not show). */
export function currentCaret(): Caret | undefined {
  const active = document.activeElement;
  if (active instanceof HTMLTextAreaElement || active instanceof HTMLInputElement) {
    const { selectionStart, selectionEnd } = active;
    return selectionStart !== null && selectionStart === selectionEnd ? { node: active, offset: selectionStart, length: active.value.length } : undefined;
  }
  const selection = document.getSelection();
  const node = selection?.isCollapsed ? selection.anchorNode : null;
  if (!node) return undefined;
  return { node, offset: selection!.anchorOffset, length: node.nodeType === Node.TEXT_NODE ? (node as Text).length : node.childNodes.length };
}

/**
 * A burst of typing in one place: edits that each leave the caret where the next keystroke
 * continues. While one lasts, following the edits can wait for the writer to pause (live ranges
 * move with the text meanwhile), so a burst costs one update instead of one per keystroke. A
 * caret that goes anywhere typing would not have put it (a click, arrow keys, a selection, an
 * editor's script) ends the burst at once: two edits in different places are never diffed as
 * one, which would drop every span between them.
 */
export class TypingBurst {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #started = 0;
  #lastEdit = 0;
  /** Where the caret was at the last edit or caret move of the burst, and its node's length then. */
  #caret: Caret | undefined;

  constructor(
    /** How long the writer pauses before the burst ends. */
    private readonly pauseMs: number,
    /** Called when the burst ends (a pause, or the caret left the place being typed in). */
    private readonly onEnd: () => void,
    private readonly caret: () => Caret | undefined = currentCaret,
    /** The longest a burst lasts, however fast the typing: what waits for its end never waits longer. */
    private readonly longestMs = 2000,
  ) {}

  get active(): boolean {
    return this.#timer !== undefined;
  }

  /**
   * The text changed. True when this edit starts a burst. An edit that does not continue the
   * burst's place ends it now (the update then covers both: the caret moved without a
   * selectionchange in between, which a writer's jump always fires first).
   */
  edited(): boolean {
    this.#lastEdit = performance.now();
    if (this.active) {
      if (!this.#caretFollows()) this.end();
      return false;
    }
    this.#caret = this.caret();
    this.#started = this.#lastEdit;
    this.#timer = setTimeout(this.#onTimer, this.pauseMs);
    return true;
  }

  /** The selection changed: false (and the burst ended) when the caret is not where typing left it. */
  caretMoved(): boolean {
    if (!this.active) return false;
    if (this.#caretFollows()) return true;
    this.end();
    return false;
  }

  /** Ends the burst now and calls onEnd. */
  end(): void {
    this.cancel();
    this.onEnd();
  }

  /** Forgets the burst without calling onEnd (the edits were followed some other way). */
  cancel(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#caret = undefined;
  }

  readonly #onTimer = () => {
    const wait = Math.min(this.#lastEdit + this.pauseMs, this.#started + this.longestMs) - performance.now();
    if (wait > 1) this.#timer = setTimeout(this.#onTimer, wait);
    else this.end();
  };

  /**
   * Typing moves the caret by no more than it changes its text node's length (one character
   * typed: both +1; Backspace: both -1; Delete: the length only). Anything else is a jump.
   */
  #caretFollows(): boolean {
    const before = this.#caret;
    const now = this.caret();
    this.#caret = now;
    return !!before && !!now && before.node === now.node && Math.abs(now.offset - before.offset) <= Math.abs(now.length - before.length);
  }
}
