import { legendList } from './legend.ts';
import { onWriterClick } from './writer-click.ts';
import { UI_CSS } from './styles.ts';

export interface ToastAction {
  label: string;
  primary?: boolean;
  run: () => void;
}

/** Status, progress, confirmations and errors, bottom right, in a shadow root. */
export class Toast {
  readonly #host = document.createElement('redline-toast');
  readonly #box = document.createElement('div');
  #timer: ReturnType<typeof setInterval> | undefined;
  /** What the visible toast is about, so a result's figures can be updated in place. */
  #topic: string | undefined;

  get topic(): string | undefined {
    return this.#host.isConnected ? this.#topic : undefined;
  }

  constructor() {
    const shadow = this.#host.attachShadow({ mode: 'open' });
    const style = document.createElement('style');
    style.textContent = UI_CSS;
    this.#box.className = 'toast';
    this.#box.setAttribute('role', 'status');
    this.#box.setAttribute('aria-live', 'polite');
    shadow.append(style, this.#box);
  }

  show(
    message: string,
    options: {
      /** A second line under the message. */
      detail?: string;
      note?: string;
      error?: boolean;
      actions?: ToastAction[];
      /** Offer the legend of the highlight styles. */
      legend?: boolean;
      tick?: (seconds: number) => string | undefined;
      topic?: string;
    } = {},
  ): void {
    this.#stopTimer();
    this.#topic = options.topic;
    if (!this.#host.isConnected) document.documentElement.append(this.#host);
    const render = (text: string) => {
      const line = document.createElement('div');
      line.className = options.error ? 'error message' : 'message';
      line.textContent = text;
      const children: Node[] = [line];
      if (options.detail) {
        const detail = document.createElement('div');
        detail.className = 'detail';
        detail.textContent = options.detail;
        children.push(detail);
      }
      if (options.note) {
        const note = document.createElement('div');
        note.className = 'note';
        note.textContent = options.note;
        children.push(note);
      }
      for (const action of options.actions ?? []) {
        const button = document.createElement('button');
        button.textContent = action.label;
        if (action.primary) button.className = 'primary';
        onWriterClick(button, () => action.run());
        children.push(button);
      }
      if (options.legend) {
        const toggle = document.createElement('button');
        toggle.textContent = 'What the colours mean';
        toggle.setAttribute('aria-expanded', 'false');
        let legend: HTMLElement | undefined;
        toggle.addEventListener('click', () => {
          if (legend) {
            legend.remove();
            legend = undefined;
          } else {
            legend = legendList();
            this.#box.append(legend);
          }
          toggle.setAttribute('aria-expanded', String(!!legend));
        });
        children.push(toggle);
      }
      this.#box.replaceChildren(...children);
    };
    render(message);
    if (options.tick) {
      // Only while something is in progress or counting down; never while idle.
      const started = Date.now();
      this.#timer = setInterval(() => {
        const next = options.tick!(Math.floor((Date.now() - started) / 1000));
        if (next === undefined) this.#stopTimer();
        else render(next);
      }, 1000);
    }
  }

  hide(): void {
    this.#stopTimer();
    this.#host.remove();
  }

  #stopTimer(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
