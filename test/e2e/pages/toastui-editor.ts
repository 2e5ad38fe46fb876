import Editor from '@toast-ui/editor';
import { PAGE_TEXT } from './text.ts';

/**
 * TOAST UI Editor 3: two ProseMirror views, a Markdown source editor and a WYSIWYG one; each
 * test page mounts the one its writer uses.
 */
export function mountToastUi(mode: 'markdown' | 'wysiwyg'): void {
  const editor = new Editor({
    el: document.querySelector<HTMLElement>('#editor')!,
    initialEditType: mode,
    previewStyle: 'tab',
    hideModeSwitch: true,
    toolbarItems: [],
    height: '360px',
    initialValue: `${PAGE_TEXT}\n\nA second paragraph, written by me on a Tuesday.`,
  });
  Object.assign(window, { editorText: () => editor.getMarkdown() });
}
