import { legendList } from './legend.ts';
import { onWriterClick } from './writer-click.ts';
import { UI_CSS } from './styles.ts';

export interface CardAction {
  label: string;
  run: () => void;
  primary?: boolean;
}

export interface DiffPart {
  value: string;
  added?: boolean;
  removed?: boolean;
}

export interface CardContent {
  title: string;
  /** The highlight's style name, shown as a sample beside the title. */
  swatch: string;
  detail: string;
  note: string;
  actions: CardAction[];
}

/** Space between the sentence's line boxes and the card. */
const GAP = 6;
const MARGIN = 8;
/** Shorter than this a card is not usable: it would rather cover part of a very tall sentence. */
const MIN_HEIGHT = 96;

/**
 * The card over a highlight, in its own shadow root: what the highlight means, and what can be
 * done about the sentence. It is placed above or below the sentence's line boxes, never over
 * them. A card the writer has started using (a click, the keyboard) stays open until closed.
 */
export class Card {
  readonly #host = document.createElement('redline-card');
  readonly #shadow: ShadowRoot;
  readonly #card = document.createElement('div');
  readonly #main = document.createElement('div');
  /** Status and suggestion, below the actions. */
  readonly #extra = document.createElement('div');
  #legend: HTMLElement | undefined;
  /** Which item the card is about (product and index). */
  #shown: string | undefined;
  #pinned = false;
  #rects: DOMRect[] = [];
  /** Called when the card closes from inside (Escape, the close button). */
  onClose: (() => void) | undefined;

  constructor() {
    this.#shadow = this.#host.attachShadow({ mode: 'open' });
    const style = document.createElement('style');
    style.textContent = UI_CSS;
    this.#card.className = 'card';
    this.#card.setAttribute('role', 'dialog');
    this.#card.setAttribute('aria-label', 'Redline: this sentence');
    this.#card.hidden = true;
    this.#extra.setAttribute('aria-live', 'polite');
    this.#card.append(this.#main, this.#extra);
    this.#shadow.append(style, this.#card);
    this.#card.addEventListener('keydown', (event) => this.#onKey(event));
    // Any use of the card keeps it open while the pointer travels.
    this.#card.addEventListener('pointerdown', () => (this.#pinned = true));
    this.#card.addEventListener('focusin', () => (this.#pinned = true));
  }

  /** Whether the card is on screen (reading `hidden` does not invalidate style). */
  get visible(): boolean {
    return !this.#card.hidden;
  }

  get shown(): string | undefined {
    return this.#shown;
  }

  /** The writer is using the card: it stays open until closed. */
  get pinned(): boolean {
    return this.#pinned && !this.#card.hidden;
  }

  /** Whether an event target (retargeted to the host outside the shadow root) is the card. */
  owns(target: EventTarget | null): boolean {
    return target === this.#host;
  }

  hasFocus(): boolean {
    return this.#shadow.activeElement !== null;
  }

  show(item: string, rects: DOMRect[], content: CardContent, options: { keyboard?: boolean } = {}): void {
    if (!this.#host.isConnected) document.documentElement.append(this.#host);
    if (this.#shown !== item) {
      this.#pinned = false;
      this.#legend = undefined;
      this.#main.replaceChildren(...this.#render(content, options.keyboard));
      this.#extra.replaceChildren();
      if (this.#card.hidden) {
        this.#card.classList.add('entering');
        requestAnimationFrame(() => requestAnimationFrame(() => this.#card.classList.remove('entering')));
      }
    }
    this.#shown = item;
    this.#card.hidden = false;
    this.#rects = rects;
    this.#place();
  }

  #render(content: CardContent, keyboard = false): Node[] {
    const title = document.createElement('div');
    title.className = 'label';
    const swatch = document.createElement('span');
    swatch.className = `swatch ${content.swatch}`;
    swatch.setAttribute('aria-hidden', 'true');
    swatch.textContent = 'Aa';
    title.append(swatch, content.title);
    const detail = document.createElement('div');
    detail.textContent = content.detail;
    const note = document.createElement('div');
    note.className = 'note';
    note.textContent = content.note;
    const actions = this.#buttons(content.actions);
    const legend = button('What the colours mean', () => this.#toggleLegend(legend));
    legend.setAttribute('aria-expanded', 'false');
    actions.append(legend);
    const close = button('×', () => this.#close());
    close.className = 'close';
    close.setAttribute('aria-label', 'Close');
    const nodes: Node[] = [close, title, detail, note, actions];
    if (keyboard) {
      const hint = document.createElement('div');
      hint.className = 'hint';
      hint.textContent = 'Alt+Enter: act on this sentence · Escape: close';
      nodes.push(hint);
    }
    return nodes;
  }

  #buttons(actions: CardAction[]): HTMLElement {
    const row = document.createElement('div');
    row.className = 'actions';
    for (const action of actions) {
      const element = button(action.label, action.run);
      if (action.primary) element.className = 'primary';
      row.append(element);
    }
    return row;
  }

  #toggleLegend(toggle: HTMLButtonElement): void {
    if (this.#legend) {
      this.#legend.remove();
      this.#legend = undefined;
    } else {
      this.#legend = legendList();
      toggle.parentElement!.after(this.#legend);
    }
    toggle.setAttribute('aria-expanded', String(!!this.#legend));
    this.#place();
  }

  /** A line of status in the card (working, done, refused), with optional actions; the card stays open. */
  status(text: string, actions: CardAction[] = []): void {
    this.#pinned = true;
    const line = document.createElement('div');
    line.className = 'status';
    line.textContent = text;
    this.#extra.replaceChildren(line, ...(actions.length ? [this.#buttons(actions)] : []));
    this.#place();
    this.#focusIn(this.#extra);
  }

  /** A rewrite of the sentence as a word diff (parts as `diff`'s diffWords gives them), with what can be done with it. */
  suggestion(parts: DiffPart[], actions: CardAction[]): void {
    this.#pinned = true;
    const box = document.createElement('div');
    box.className = 'suggestion';
    box.setAttribute('aria-label', 'Suggested rewrite');
    for (const part of parts) {
      const node = part.added ? document.createElement('ins') : part.removed ? document.createElement('del') : document.createElement('span');
      node.textContent = part.value;
      box.append(node);
    }
    const heading = document.createElement('div');
    heading.className = 'status';
    heading.textContent = 'Suggested rewrite (removed words struck through, new words underlined):';
    this.#extra.replaceChildren(heading, box, this.#buttons(actions));
    this.#place();
    this.#focusIn(this.#extra);
  }

  /** Moves the focus into the card when it is already there (a keyboard user keeps their place). */
  #focusIn(area: HTMLElement): void {
    if (this.hasFocus()) area.querySelector('button')?.focus();
  }

  /** Puts the focus on the card's first action (keyboard access from the text). */
  focus(): void {
    this.#pinned = true;
    this.#main.querySelector<HTMLButtonElement>('.actions button')?.focus();
  }

  /**
   * Below the sentence's last line box when the card fits under it, else above its first one;
   * when it fits on neither side, on the side with more room, made that short (its content
   * scrolls). The card covers a line of the sentence only when the sentence leaves less than
   * a few lines of the viewport free.
   */
  #place(): void {
    const rects = this.#rects.filter((rect) => rect.width > 0 || rect.height > 0);
    if (rects.length === 0) return;
    const top = Math.min(...rects.map((rect) => rect.top));
    const bottom = Math.max(...rects.map((rect) => rect.bottom));
    this.#card.style.maxHeight = '';
    const natural = this.#card.offsetHeight;
    const width = this.#card.offsetWidth;
    const roomBelow = innerHeight - MARGIN - (bottom + GAP);
    const roomAbove = top - GAP - MARGIN;
    const below = roomBelow >= natural || (roomAbove < natural && roomBelow >= roomAbove);
    const room = below ? roomBelow : roomAbove;
    const height = natural > room ? Math.max(MIN_HEIGHT, room) : natural;
    if (height < natural) this.#card.style.maxHeight = `${height}px`;
    const y = below ? Math.min(bottom + GAP, innerHeight - MARGIN - height) : Math.max(MARGIN, top - GAP - height);
    const anchor = below ? rects.reduce((last, rect) => (rect.bottom >= last.bottom ? rect : last)) : rects.reduce((first, rect) => (rect.top <= first.top ? rect : first));
    const x = Math.min(Math.max(MARGIN, anchor.left), innerWidth - MARGIN - width);
    this.#card.style.setProperty('--enter-from', below ? '-4px' : '4px');
    this.#card.style.left = `${Math.max(MARGIN, x)}px`;
    this.#card.style.top = `${Math.max(0, y)}px`;
  }

  #onKey(event: KeyboardEvent): void {
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      this.#close();
      return;
    }
    if (event.key !== 'Tab') return;
    // Tab and Shift+Tab go round the card's buttons.
    const buttons = [...this.#card.querySelectorAll<HTMLButtonElement>('button')].filter((element) => !element.disabled);
    const at = buttons.indexOf(this.#shadow.activeElement as HTMLButtonElement);
    const next = event.shiftKey ? (at <= 0 ? buttons.length - 1 : at - 1) : at === buttons.length - 1 ? 0 : at + 1;
    event.preventDefault();
    buttons[next]?.focus();
  }

  #close(): void {
    this.hide();
    this.onClose?.();
  }

  hide(): void {
    this.#shown = undefined;
    this.#pinned = false;
    this.#card.hidden = true;
    this.#extra.replaceChildren();
    // The focus must not stay in a hidden card.
    if (this.hasFocus()) (this.#shadow.activeElement as HTMLElement).blur();
  }

  /** The card's text, for tests and screen readers. */
  get text(): string {
    return this.#card.hidden ? '' : (this.#card.textContent ?? '');
  }

  remove(): void {
    this.#host.remove();
  }
}

function button(label: string, run: () => void): HTMLButtonElement {
  const element = document.createElement('button');
  element.type = 'button';
  element.textContent = label;
  onWriterClick(element, run);
  return element;
}
