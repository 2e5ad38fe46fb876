import '@angular/compiler';
import { Component, provideZonelessChangeDetection, signal } from '@angular/core';
import { FormsModule } from '@angular/forms';
import { bootstrapApplication } from '@angular/platform-browser';
import { QuillEditorComponent } from 'ngx-quill';
import type Quill from 'quill';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

// ngx-quill (the Angular wrapper of Quill 2) as Angular apps use it: `<quill-editor>` bound with
// `[(ngModel)]` to the component's HTML field (its ControlValueAccessor sets the field from
// Quill's changes, and writes it back into Quill when the field is set from code). JIT-compiled
// in the page, zoneless, a clock signal re-rendering every 200 ms as the app's other state does.
// What the app saves is the field, read through `editorHtml()`.
class DraftForm {
  html = formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`;
  tick = signal(0);
  changes = 0;
  quill?: Quill;
  constructor() {
    setInterval(() => this.tick.update((value) => value + 1), 200);
    Object.assign(window, {
      editorHtml: () => this.html,
      editorText: () => textOfHtml(this.html),
      editorChanges: () => this.changes,
      // The editor's own serialization and text (its model), beside the app's field.
      editorSerialized: () => this.quill?.getSemanticHTML() ?? '',
      editorModelText: () => this.quill?.getText() ?? '',
    });
  }
  created(quill: Quill) {
    this.quill = quill;
  }
}
Component({
  selector: 'draft-form',
  imports: [FormsModule, QuillEditorComponent],
  template: `<form (submit)="$event.preventDefault()">
    <quill-editor name="draft" theme="snow" format="html" [attr.data-tick]="tick()" [(ngModel)]="html"
      (ngModelChange)="changes = changes + 1" (onEditorCreated)="created($event)"></quill-editor>
    <p>Rendered {{ tick() }} times</p>
  </form>`,
})(DraftForm);

/** The HTML as text, one line per paragraph, as Quill's `getText()` writes it. */
function textOfHtml(html: string): string {
  const body = new DOMParser().parseFromString(html, 'text/html').body;
  return [...body.children].map((block) => `${block.textContent}\n`).join('');
}

bootstrapApplication(DraftForm, { providers: [provideZonelessChangeDetection()] }).catch((error: unknown) => console.error(error));
