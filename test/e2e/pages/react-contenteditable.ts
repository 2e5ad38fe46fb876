import { createElement, useEffect, useRef, useState, type ComponentType } from 'react';
import { createRoot } from 'react-dom/client';
import ContentEditableModule from 'react-contenteditable';
import { htmlText } from './html-text.ts';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

// react-contenteditable 3 (a contenteditable whose HTML is React state, as its README shows for
// hooks: the value in a ref and state, set from `onChange`, which it calls on the editable's
// `input`, `blur`, `keyup` and `keydown` when its HTML changed). The component writes the state's
// HTML back into the editable whenever a render's `html` differs from the DOM's, so an edit that
// React never heard of is rendered away; a clock here re-renders every 200 ms. The page's value
// is that state; `onChange` calls that changed it are counted in `editorChanges()`.
const initial = formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`;
let saved = initial;
// Its CommonJS build exports the component as `default`.
const ContentEditable = ((ContentEditableModule as unknown as { default?: unknown }).default ?? ContentEditableModule) as ComponentType<Record<string, unknown>>;
let changes = 0;

function App() {
  const html = useRef(initial);
  const [, setHtml] = useState(initial);
  const [, setTick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setTick((tick) => tick + 1), 200);
    return () => clearInterval(timer);
  }, []);
  return createElement(ContentEditable, {
    html: html.current,
    className: 'editable',
    style: { border: '1px solid #888', padding: '8px' },
    onChange: (event: { target: { value: string } }) => {
      if (event.target.value !== html.current) changes++;
      html.current = saved = event.target.value;
      setHtml(event.target.value);
    },
  });
}

createRoot(document.querySelector('#app')!).render(createElement(App));
Object.assign(window, { editorText: () => htmlText(saved).replace(/\n$/, ''), editorHtml: () => saved, editorChanges: () => changes });
