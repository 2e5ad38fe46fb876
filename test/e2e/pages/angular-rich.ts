import '@angular/compiler';
import { Component, Directive, ElementRef, Renderer2, forwardRef, inject, provideZonelessChangeDetection, signal } from '@angular/core';
import { FormControl, NG_VALUE_ACCESSOR, ReactiveFormsModule, type ControlValueAccessor } from '@angular/forms';
import { bootstrapApplication } from '@angular/platform-browser';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';
import { htmlText } from './html-text.ts';

// An Angular 21 contenteditable bound to a reactive form's FormControl through a
// ControlValueAccessor of the page's own, as apps write one for a rich field: its HTML set into the
// control on `input`, written into the element (Renderer2) when the control's value is set from
// code. JIT-compiled in the page (no decorators: `Directive(...)` applied as a function), zoneless,
// re-rendered every 200 ms. The page's value is the control's.
class RichTextAccessor implements ControlValueAccessor {
  private readonly element: HTMLElement = inject(ElementRef).nativeElement;
  private readonly renderer = inject(Renderer2);
  private onChange: (html: string) => void = () => {};
  private onTouched: () => void = () => {};
  writeValue(html: string | null): void {
    this.renderer.setProperty(this.element, 'innerHTML', html ?? '');
  }
  registerOnChange(onChange: (html: string) => void): void {
    this.onChange = onChange;
  }
  registerOnTouched(onTouched: () => void): void {
    this.onTouched = onTouched;
  }
  changed(): void {
    this.onChange(this.element.innerHTML);
  }
  touched(): void {
    this.onTouched();
  }
}
Directive({
  selector: '[contenteditable][formControl]',
  host: { '(input)': 'changed()', '(blur)': 'touched()' },
  providers: [{ provide: NG_VALUE_ACCESSOR, useExisting: forwardRef(() => RichTextAccessor), multi: true }],
})(RichTextAccessor);

class DraftForm {
  draft = new FormControl(formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`, { nonNullable: true });
  tick = signal(0);
  changes = 0;
  constructor() {
    setInterval(() => this.tick.update((value) => value + 1), 200);
    this.draft.valueChanges.subscribe(() => this.changes++);
    Object.assign(window, { editorText: () => htmlText(this.draft.value), editorHtml: () => this.draft.value, editorChanges: () => this.changes });
  }
}
Component({
  selector: 'draft-form',
  imports: [ReactiveFormsModule, RichTextAccessor],
  template: `<form (submit)="$event.preventDefault()">
    <div id="rich" contenteditable="true" [formControl]="draft" [attr.data-tick]="tick()" style="border: 1px solid #888; padding: 8px;"></div>
    <p>Rendered {{ tick() }} times</p>
  </form>`,
})(DraftForm);

bootstrapApplication(DraftForm, { providers: [provideZonelessChangeDetection()] }).catch((error: unknown) => console.error(error));
