import { LitElement, html } from 'lit';
import { PAGE_TEXT } from './text.ts';

// A Lit 3 web component holding a textarea in its (open) shadow root, as a design system's text
// field does: the component's `value` property is the page's state, set from the textarea's
// `input` events and bound back with `.value=${...}`; a clock re-renders it every 200 ms. The
// page's value is the component's property, not the textarea's; `input` events that changed it
// are counted in `editorChanges()`.
let changes = 0;

class DraftField extends LitElement {
  static override properties = { value: { type: String }, tick: { type: Number } };
  declare value: string;
  declare tick: number;
  private timer = 0;

  constructor() {
    super();
    this.value = `${PAGE_TEXT}\n\nA second paragraph, written by me on a Tuesday.`;
    this.tick = 0;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.timer = window.setInterval(() => (this.tick += 1), 200);
  }

  override disconnectedCallback(): void {
    window.clearInterval(this.timer);
    super.disconnectedCallback();
  }

  override render() {
    return html`<label>Draft
      <textarea rows="8" cols="70" style="font: 16px/1.5 serif; padding: 8px;" data-tick=${this.tick} .value=${this.value}
        @input=${(event: Event) => {
          const value = (event.target as HTMLTextAreaElement).value;
          if (value !== this.value) changes++;
          this.value = value;
        }}></textarea></label>`;
  }
}
customElements.define('draft-field', DraftField);

const field = document.querySelector<DraftField>('draft-field')!;
Object.assign(window, { editorText: () => field.value, editorChanges: () => changes });
