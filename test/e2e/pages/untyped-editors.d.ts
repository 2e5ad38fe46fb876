// Editors whose types cannot be resolved from these pages: Quill 1 ships none, and TOAST UI's
// are not reachable through its package's "exports". Only what the test pages use.
declare module 'quill1' {
  export default class Quill {
    constructor(container: string | Element, options: object);
    setText(text: string): void;
    getText(): string;
    getModule(name: string): unknown;
    clipboard: { dangerouslyPasteHTML(html: string): void };
  }
}

declare module '@toast-ui/editor' {
  export default class Editor {
    constructor(options: { el: HTMLElement; initialEditType: 'markdown' | 'wysiwyg'; previewStyle: 'tab' | 'vertical'; hideModeSwitch?: boolean; toolbarItems?: unknown[]; height?: string; initialValue?: string });
    getMarkdown(): string;
  }
}

// Pell ships no types; Trumbowyg's side effect only (a jQuery plugin, typed at its use).
declare module 'pell' {
  export function init(settings: { element: HTMLElement; onChange(html: string): void; defaultParagraphSeparator?: string; actions?: unknown[] }): HTMLElement & { content: HTMLElement };
}
declare module 'trumbowyg';

// SCEditor's sources set `window.sceditor` (typed at its use); Simditor ships no types.
declare module 'sceditor/src/sceditor.js';
declare module 'sceditor/src/formats/bbcode.js';
declare module 'sceditor/src/formats/xhtml.js';
declare module 'simditor';
// Vue's full build (its runtime template compiler): the same API as `vue`.
declare module 'vue/dist/vue.esm-bundler.js' {
  export * from 'vue';
}
