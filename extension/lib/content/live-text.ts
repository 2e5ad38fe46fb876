import type { DomText } from './dom-text.ts';
import type { DomTarget, Target } from './target.ts';

/** The current text of a target, kept up to date at the cost of the edits since it was last read. */
export interface LiveText {
  text(): string;
  /** Calls back when the text may have changed; returns the unsubscribe function. */
  observe(onChange: () => void): () => void;
  dispose(): void;
}

/** The DOM text model of an editor, patched from its mutations instead of rebuilt on every keystroke. */
export class LiveDomText implements LiveText {
  #model: DomText;
  readonly #observer: MutationObserver;
  readonly #changed = new Set<Text>();
  #rebuild = false;
  /** Told of every batch of mutations: one observer serves the model and whoever follows the edits. */
  readonly #listeners = new Set<() => void>();

  constructor(private readonly target: DomTarget) {
    this.#model = target.model();
    this.#observer = new MutationObserver((records) => {
      this.#note(records);
      for (const listener of this.#listeners) listener();
    });
    this.#observer.observe(target.element, { subtree: true, childList: true, characterData: true });
  }

  #note(records: MutationRecord[]): void {
    for (const record of records) {
      if (record.type === 'characterData' && record.target.nodeType === Node.TEXT_NODE) this.#changed.add(record.target as Text);
      // Nodes added or removed: only a new walk knows where text now starts and ends.
      else this.#rebuild = true;
    }
  }

  /** The model as the DOM is now. */
  model(): DomText {
    this.#note(this.#observer.takeRecords());
    if (!this.#rebuild) {
      for (const node of this.#changed) {
        if (!this.#model.updateNode(node)) {
          this.#rebuild = true;
          break;
        }
      }
    }
    if (this.#rebuild) this.#model = this.target.model();
    this.#rebuild = false;
    this.#changed.clear();
    return this.#model;
  }

  text(): string {
    return this.model().text;
  }

  /** Whether every change since the model was last read is to the characters of `node`: no node came or went, no other text changed. */
  changedOnly(node: Node | null | undefined): boolean {
    this.#note(this.#observer.takeRecords());
    if (this.#rebuild) return false;
    for (const changed of this.#changed) if (changed !== node) return false;
    return true;
  }

  observe(onChange: () => void): () => void {
    this.#listeners.add(onChange);
    return () => this.#listeners.delete(onChange);
  }

  dispose(): void {
    this.#listeners.clear();
    this.#observer.disconnect();
  }
}

/** A field's value is already current: reading it costs nothing to keep. */
export function liveText(target: Target): LiveText {
  if (target.kind === 'field') return { text: () => target.readText(), observe: (onChange) => target.observe(onChange), dispose() {} };
  return new LiveDomText(target as DomTarget);
}
