import '@angular/compiler';
import { Component, provideZonelessChangeDetection, signal } from '@angular/core';
import { FormsModule } from '@angular/forms';
import { bootstrapApplication } from '@angular/platform-browser';
import { PAGE_TEXT } from './text.ts';

// An Angular 21 textarea bound with `[(ngModel)]` (FormsModule's DefaultValueAccessor: the model
// set on the element's `input`, written back into the element when the model changes), compiled
// in the page by Angular's JIT compiler (no decorators: `Component(...)` applied as a function),
// zoneless, with a clock signal re-rendering the form every 200 ms. The page's value is the
// component's `draft` field, read through `editorText()`.
class DraftForm {
  draft = `${PAGE_TEXT}\nA second paragraph, written by me on a Tuesday.`;
  tick = signal(0);
  changes = 0;
  constructor() {
    setInterval(() => this.tick.update((value) => value + 1), 200);
    Object.assign(window, { editorText: () => this.draft, editorChanges: () => this.changes });
  }
}
Component({
  selector: 'draft-form',
  imports: [FormsModule],
  template: `<form (submit)="$event.preventDefault()">
    <textarea id="field" name="draft" rows="8" cols="70" style="font: 16px/1.5 serif; padding: 8px; display: block;"
      [attr.data-tick]="tick()" [(ngModel)]="draft" (ngModelChange)="changes = changes + 1"></textarea>
    <p>Rendered {{ tick() }} times</p>
  </form>`,
})(DraftForm);

bootstrapApplication(DraftForm, { providers: [provideZonelessChangeDetection()] }).catch((error: unknown) => console.error(error));
