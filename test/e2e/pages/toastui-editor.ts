import Editor from '@toast-ui/editor';
import { PAGE_TEXT, formattedPage } from './text.ts';

/**
 * FORMATTED_HTML as the Markdown TOAST UI keeps (`?formatted`): bold, a link, an italic opener.
 */
const FORMATTED_MARKDOWN =
  "In today's fast-paced digital landscape, it is important to note that **artificial intelligence** plays a crucial role in [fostering innovation](https://example.com/innovation). " +
  'I went to the shop yesterday and honestly it was kinda closed. ' +
  '*Moreover*, organizations must utilize **comprehensive tools** in order to navigate the complexities of an ever-evolving technological paradigm.';

/**
 * TOAST UI Editor 3: two ProseMirror views, a Markdown source editor and a WYSIWYG one; each
 * test page mounts the one its writer uses.
 */
export function mountToastUi(mode: 'markdown' | 'wysiwyg'): void {
  const formatted = formattedPage();
  const editor = new Editor({
    el: document.querySelector<HTMLElement>('#editor')!,
    initialEditType: mode,
    previewStyle: 'tab',
    hideModeSwitch: true,
    toolbarItems: [],
    height: '360px',
    initialValue: `${formatted ? FORMATTED_MARKDOWN : PAGE_TEXT}\n\nA second paragraph, written by me on a Tuesday.`,
  });
  // `?formatted` (WYSIWYG): the text of the WYSIWYG view's ProseMirror document, one line per
  // block (its Markdown holds the formatting's syntax: `editorMarkdown()`).
  type View = { state: { doc: { content: { size: number }; textBetween(from: number, to: number, separator: string): string } } };
  const wysiwyg = () => (editor as unknown as { wwEditor: { view: View } }).wwEditor.view;
  Object.assign(window, {
    editorText: formatted && mode === 'wysiwyg' ? () => wysiwyg().state.doc.textBetween(0, wysiwyg().state.doc.content.size, '\n') : () => editor.getMarkdown(),
    editorMarkdown: () => editor.getMarkdown(),
  });
}
