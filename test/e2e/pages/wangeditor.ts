import { createEditor, SlateNode } from '@wangeditor/editor';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

// wangEditor 5: Slate (0.72, bundled) under a snabbdom view of its own, not slate-react; its
// editable is `[data-slate-editor]`. Its value is its Slate model (`editor.children`), which
// `getHtml()` serialises (what a page saves); Ctrl+Z goes through its slate-history. Its
// `onChange` (what a page's autosave listens to) is counted in `editorChanges()`.
let changes = 0;
const editor = createEditor({
  selector: '#editor',
  html: formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`,
  config: { onChange: () => void changes++ },
  mode: 'default',
});
changes = 0;
Object.assign(window, {
  editorText: () => editor.children.map((node) => SlateNode.string(node)).join('\n'),
  editorHtml: () => editor.getHtml(),
  editorChanges: () => changes,
});
