import { UI_CSS } from './styles.ts';
import type { HighlightSpan } from './highlighters.ts';

export interface CardContent {
  title: string;
  detail: string;
  note: string;
}

/** The hover / keyboard-focus card over a highlight, in its own shadow root. */
export class Card {
  readonly #host = document.createElement('redline-card');
  readonly #card = document.createElement('div');
  #shown: HighlightSpan | undefined;

  constructor() {
    const shadow = this.#host.attachShadow({ mode: 'open' });
    const style = document.createElement('style');
    style.textContent = UI_CSS;
    this.#card.className = 'card';
    this.#card.setAttribute('role', 'tooltip');
    this.#card.hidden = true;
    shadow.append(style, this.#card);
  }

  get shown(): HighlightSpan | undefined {
    return this.#shown;
  }

  show(span: HighlightSpan, rect: DOMRect, content: CardContent): void {
    if (!this.#host.isConnected) document.documentElement.append(this.#host);
    if (this.#shown !== span) {
      const title = document.createElement('div');
      title.className = 'label';
      title.textContent = content.title;
      const detail = document.createElement('div');
      detail.textContent = content.detail;
      const note = document.createElement('div');
      note.className = 'note';
      note.textContent = content.note;
      this.#card.replaceChildren(title, detail, note);
    }
    this.#shown = span;
    this.#card.hidden = false;
    const below = rect.bottom + 8;
    const top = below + 120 > innerHeight ? Math.max(8, rect.top - 8 - this.#card.offsetHeight) : below;
    this.#card.style.left = `${Math.min(Math.max(8, rect.left), innerWidth - 340)}px`;
    this.#card.style.top = `${top}px`;
  }

  hide(): void {
    this.#shown = undefined;
    this.#card.hidden = true;
  }

  /** The card's text, for tests and screen readers. */
  get text(): string {
    return this.#card.hidden ? '' : (this.#card.textContent ?? '');
  }

  remove(): void {
    this.#host.remove();
  }
}
