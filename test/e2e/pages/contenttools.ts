import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

// ContentTools 1.6 (in-page editing of a site's own HTML; loaded as its own script, as pages do):
// a region (`[data-editable]`) whose paragraphs are ContentEdit elements, each made editable
// (`contenteditable`) only while it has ContentEdit's focus. Its model is ContentEdit's: each
// element's content, copied from the DOM on the writer's keyup and on blur, and what
// `region.html()` and a save read. Its own undo history (Ctrl+Z, its toolbox's) snapshots that
// model. `editor.save(true)` (a passive save, its documented autosave) is counted in
// `editorChanges()` when it finds the page modified.
interface Region {
  html(): string;
}
interface EditorApp {
  init(query: string, namingProp: string): void;
  start(): void;
  save(passive?: boolean): void;
  regions(): Record<string, Region>;
  addEventListener(type: string, listener: (event: { detail(): { regions: Record<string, string> } }) => void): void;
}
declare const ContentTools: { EditorApp: { get(): EditorApp } };

const region = document.querySelector<HTMLElement>('[data-editable]')!;
region.innerHTML = formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>A second paragraph, written by me on a Tuesday.</p>`;
const editor = ContentTools.EditorApp.get();
editor.init('[data-editable]', 'data-name');
let changes = 0;
editor.addEventListener('saved', (event) => {
  if (Object.keys(event.detail().regions).length > 0) changes++;
});
editor.start();
const value = () => editor.regions().main!.html();
Object.assign(window, {
  // Its HTML is indented: one line per paragraph, each trimmed.
  editorText: () => [...new DOMParser().parseFromString(value(), 'text/html').body.children].map((block) => (block.textContent ?? '').trim().replace(/\s+/g, ' ')).join('\n'),
  editorHtml: value,
  editorChanges: () => changes,
  autosave: () => editor.save(true),
});
