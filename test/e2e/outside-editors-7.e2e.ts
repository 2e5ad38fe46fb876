import { savedValueTests, type SavedValueEditor } from './saved-value-probes.ts';

// A seventh outside probe (2026-12-02): editors the other probes left out, as apps wire them,
// each read back from what the app would save (never the DOM alone): ngx-quill (Quill 2 behind
// Angular's `[(ngModel)]`), Tiptap 3 in React (`@tiptap/react`, a controlled component that writes
// its state back with `setContent`), Milkdown Crepe (Milkdown's ready-made editor, Markdown from
// its `markdownUpdated` listener) and Lexical with a table (@lexical/table, the AI text in a cell).
// Per editor: check, highlights, one accept in the saved value, Ctrl+Z right after it back to the
// saved value as it was, another accept and the writer's typing after it; and on the formatted
// page (a bold run and a link in the first AI sentence, an italic opener and a bold run in the
// second) the same, with the formatting held in the saved HTML or Markdown.

const EDITORS: SavedValueEditor[] = [
  // The field's HTML as text, one line per paragraph each ending in a newline, as Quill's getText() writes it.
  { name: 'ngx-quill ([(ngModel)] HTML)', page: 'ngx-quill', root: '.ql-editor', typedAt: (text) => text.length - 1 },
  { name: '@vueup/vue-quill (v-model:content HTML)', page: 'vue-quill', root: '.ql-editor', typedAt: (text) => text.length - 1 },
  { name: 'Tiptap 3 in React (controlled HTML state)', page: 'tiptap-react', root: '.ProseMirror' },
  { name: 'Milkdown Crepe (Markdown from markdownUpdated)', page: 'crepe', root: '.milkdown .ProseMirror' },
  { name: 'Lexical with a table (AI text in a cell, exported HTML)', page: 'lexical-table', root: '#editor' },
];

savedValueTests(EDITORS);
