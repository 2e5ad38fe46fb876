/**
 * The editors whose pages load FORMATTED_HTML with `?formatted` (text.ts), as the formatted
 * accept tests in Chromium (formatting.e2e.ts) and Firefox (firefox/formatting.e2e.ts) read them.
 */
export interface FormattedEditor {
  name: string;
  page: string;
  /** The editor's root (in the page's one child frame when `inFrame`): where its formatting is read. */
  root: string;
  /** The root is in an iframe (TinyMCE classic: an about:srcdoc frame). */
  inFrame?: boolean;
  /** What is focused before the check (a block editor: its first block); the root otherwise. */
  focus?: string;
  /** The editor's own markup for bold (Squire, medium-editor, Editor.js: `<b>`; Draft.js: a styled span); `strong` otherwise. */
  bold?: string;
  /** And for italic; `em, i` otherwise. */
  italic?: string;
}

export const FORMATTED_EDITORS: FormattedEditor[] = [
  { name: 'contenteditable', page: 'plain', root: '#editor' },
  { name: 'Quill', page: 'quill', root: '.ql-editor' },
  { name: 'Tiptap', page: 'tiptap', root: '.ProseMirror' },
  { name: 'CKEditor 5', page: 'ckeditor', root: '.ck-editor__editable' },
  { name: 'Lexical', page: 'lexical', root: '#editor' },
  { name: 'Slate', page: 'slate', root: '[data-slate-editor]' },
  // Draft.js renders its BOLD and ITALIC inline styles as styled spans, not tags.
  { name: 'Draft.js', page: 'draft', root: '.public-DraftEditor-content', bold: 'span[style*="font-weight: bold"]', italic: 'span[style*="font-style: italic"]' },
  { name: 'Trix', page: 'trix', root: 'trix-editor' },
  { name: 'Squire', page: 'squire', root: '#editor', bold: 'strong, b' },
  { name: 'Jodit', page: 'jodit', root: '.jodit-wysiwyg', bold: 'strong, b' },
  { name: 'Summernote', page: 'summernote', root: '.note-editable', bold: 'strong, b' },
  { name: 'medium-editor', page: 'medium', root: '#editor', bold: 'strong, b' },
  { name: 'TinyMCE', page: 'tinymce', root: 'body#tinymce', inFrame: true },
  // Editor.js's bold tool writes `<b>`; each paragraph is a block of its own.
  { name: 'Editor.js', page: 'editorjs', root: '.codex-editor__redactor', focus: '.ce-paragraph', bold: 'b' },
  { name: 'TOAST UI (WYSIWYG)', page: 'toastui', root: '.toastui-editor-ww-container .ProseMirror' },
  { name: 'BlockNote', page: 'blocknote', root: '.bn-container .ProseMirror' },
  { name: 'Milkdown', page: 'milkdown', root: '#editor .ProseMirror' },
  { name: 'Quill 1', page: 'quill1', root: '.ql-editor' },
  // Lexical with @lexical/rich-text and @lexical/link's LinkNode, loaded through @lexical/html.
  { name: 'Lexical rich text', page: 'lexical-rich', root: '#editor' },
  // ProseMirror without Tiptap: prosemirror-schema-basic and prosemirror-example-setup.
  { name: 'ProseMirror', page: 'prosemirror', root: '#editor .ProseMirror' },
  // CKEditor 4 classic: its editable body in an about:blank iframe it writes itself.
  { name: 'CKEditor 4', page: 'ckeditor4', root: 'body.cke_editable', inFrame: true },
  // SunEditor 3 (no iframe): its editable is `.sun-editor-editable`.
  { name: 'SunEditor', page: 'suneditor', root: '.sun-editor-editable', bold: 'strong, b' },
  // Trumbowyg (jQuery): its value is its textarea's, synced from `.trumbowyg-editor`.
  { name: 'Trumbowyg', page: 'trumbowyg', root: '.trumbowyg-editor', bold: 'strong, b' },
  // Pell: a contenteditable whose value the page learns only from its onChange.
  { name: 'Pell', page: 'pell', root: '.pell-content', bold: 'strong, b' },
  // wangEditor 5: Slate 0.72 under its own snabbdom view; its editable is `[data-slate-editor]`.
  { name: 'wangEditor', page: 'wangeditor', root: '[data-slate-editor]' },
  // Mobiledoc-kit: a post model that it renders and parses the DOM's mutations back into.
  { name: 'Mobiledoc-kit', page: 'mobiledoc', root: '.__mobiledoc-editor' },
  // RoosterJS 9 (Outlook on the web): a Content Model kept from its DOM; it renders bold as `<b>`.
  { name: 'RoosterJS', page: 'roosterjs', root: '#editor', bold: 'strong, b' },
  // Plate 53: Slate 0.126 and slate-react under Plate's plugins; its editable is `[data-slate-editor]`.
  { name: 'Plate', page: 'plate', root: '[data-slate-editor]' },
];
