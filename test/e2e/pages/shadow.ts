import { PAGE_TEXT } from './text.ts';

/** An editor inside an open shadow root, and one inside a closed one. */
for (const mode of ['open', 'closed'] as const) {
  const host = document.querySelector(`#${mode}`)!;
  const shadow = host.attachShadow({ mode });
  const editor = document.createElement('div');
  editor.contentEditable = 'true';
  editor.className = 'editor';
  editor.style.cssText = 'border: 1px solid #888; padding: 8px;';
  editor.innerHTML = `<p>${PAGE_TEXT}</p>`;
  shadow.append(editor);
  if (mode === 'closed') Object.assign(window, { focusClosed: () => editor.focus() });
}
