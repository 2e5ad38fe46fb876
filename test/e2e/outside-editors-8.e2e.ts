import { lockedEditorTests, savedValueTests, type SavedValueEditor } from './saved-value-probes.ts';

// An eighth outside probe (2026-12-02): editors through the framework bindings apps use, the
// other probes having tested their cores alone, each read back from what the app would save:
// BlockNote with its React UI (@blocknote/react and @blocknote/mantine, HTML from
// `blocksToHTMLLossy` on `onChange`), Tiptap 3 in Vue 3 (@tiptap/vue-3 behind `v-model`, written
// back with `setContent`), ngx-editor (Angular, ProseMirror, `[(ngModel)]`), Lexical through
// @lexical/react (LexicalComposer with the rich-text, history, list, link and Markdown shortcut
// plugins, HTML from OnChangePlugin) and CKEditor 5's React component (controlled `data`).
// The same tests as the seventh probe's (saved-value-probes.ts), and each editor locked by the
// page (read-only) between the rewrite and the accept: never reported as Accepted.

const EDITORS: SavedValueEditor[] = [
  {
    name: 'BlockNote in React (@blocknote/mantine, HTML on onChange)',
    page: 'blocknote-react',
    root: '.bn-editor',
    // BlockNote alone (no extension) puts the range selected before a blur back over the caret
    // a moment after it takes the focus again: a range selected, the editor blurred and focused,
    // Ctrl+End and keys at once replaced the range in 2 of 3 probes (Tiptap 3 in Vue: 0 of 3).
    // Here the range is the one Ctrl+Z selects; the writer's keys come at a person's pace.
    focusSettles: 300,
  },
  { name: 'Tiptap 3 in Vue 3 (@tiptap/vue-3, v-model HTML)', page: 'tiptap-vue', root: '.ProseMirror' },
  { name: 'ngx-editor ([(ngModel)] HTML)', page: 'ngx-editor', root: '.ProseMirror' },
  { name: 'Lexical through @lexical/react (HTML from OnChangePlugin)', page: 'lexical-react', root: '.editor-input' },
  { name: 'CKEditor 5 React component (controlled data)', page: 'ckeditor-react', root: '.ck-editor__editable' },
];

savedValueTests(EDITORS);
lockedEditorTests(EDITORS);
