import Vditor from 'vditor';
import { PAGE_TEXT, formattedPage } from './text.ts';
import { FORMATTED_MARKDOWN, markdownText } from './markdown-text.ts';

// Vditor (a markdown editor that renders its markdown through Lute into a contenteditable and
// reads it back as markdown on each input): `?mode=wysiwyg` (its default), `ir` (instant
// rendering, Typora-like) or `sv` (the markdown source). Its scripts (Lute, its language and
// icons) from the npm package served beside the page, where a site would load them from a CDN.
const mode = (new URLSearchParams(location.search).get('mode') ?? 'wysiwyg') as 'wysiwyg' | 'ir' | 'sv';
const vditor: Vditor = new Vditor('editor', {
  mode,
  cdn: './vditor',
  lang: 'en_US',
  height: 360,
  cache: { enable: false },
  toolbar: ['bold', 'italic', 'link', 'undo', 'redo'],
  value: `${formattedPage() ? FORMATTED_MARKDOWN : PAGE_TEXT}\n\nA second paragraph, written by me on a Tuesday.\n`,
  after: () =>
    Object.assign(window, {
      // The markdown the app saves (`getValue()`), paragraphs one per line as the other pages' text.
      editorText: () => markdownText(vditor.getValue()),
      editorHtml: () => vditor.getValue(),
    }),
});
