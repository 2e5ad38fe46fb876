import '@angular/compiler';
import { Component, provideZonelessChangeDetection, signal } from '@angular/core';
import { FormsModule } from '@angular/forms';
import { bootstrapApplication } from '@angular/platform-browser';
import { Editor, NgxEditorModule, toHTML } from 'ngx-editor';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';
import { blockLines } from './html-text.ts';

// ngx-editor (an Angular editor on ProseMirror, with its own schema, history and menu) as its
// README sets it up: an `Editor` made in the component, `<ngx-editor-menu>` and `<ngx-editor>`
// bound with `[(ngModel)]` to the component's HTML field (its ControlValueAccessor sets the field
// from the editor's changes, and writes it back into the editor when the field is set from code).
// JIT-compiled in the page, zoneless, a clock signal re-rendering every 200 ms. What the app
// saves is the field.
class DraftForm {
  html = formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`;
  editor = new Editor({ history: true, keyboardShortcuts: true, inputRules: true });
  tick = signal(0);
  locked = signal(false);
  changes = 0;
  constructor() {
    setInterval(() => this.tick.update((value) => value + 1), 200);
    const doc = () => this.editor.view.state.doc;
    Object.assign(window, {
      editorHtml: () => this.html,
      editorText: () => blockLines(this.html),
      editorChanges: () => this.changes,
      // The editor's own serialization and text (its ProseMirror document), beside the app's field.
      editorSerialized: () => toHTML(doc().toJSON()),
      editorModelText: () => doc().textBetween(0, doc().content.size, '\n'),
      // The app locks the document (read-only) and unlocks it: the form control disabled.
      refuseEdits: () => this.locked.set(true),
      allowEdits: () => this.locked.set(false),
    });
  }
}
Component({
  selector: 'draft-form',
  imports: [FormsModule, NgxEditorModule],
  template: `<form (submit)="$event.preventDefault()">
    <div class="NgxEditor__Wrapper" [attr.data-tick]="tick()">
      <ngx-editor-menu [editor]="editor"></ngx-editor-menu>
      <ngx-editor name="draft" [editor]="editor" outputFormat="html" [disabled]="locked()" [(ngModel)]="html" (ngModelChange)="changes = changes + 1"></ngx-editor>
    </div>
    <p>Rendered {{ tick() }} times</p>
  </form>`,
})(DraftForm);

bootstrapApplication(DraftForm, { providers: [provideZonelessChangeDetection()] }).catch((error: unknown) => console.error(error));
