import { Editor } from 'mobiledoc-kit';
import { FORMATTED_HTML, PAGE_TEXT, formattedPage } from './text.ts';

// Mobiledoc-kit: model first. Its value is its post (sections of markers), which it re-renders
// into its editable (`.__mobiledoc-editor`) and into which it parses the DOM's mutations back;
// `serialize()` gives the mobiledoc a page saves. Ctrl+Z goes through its own edit history. Its
// `postDidChange` (what a page's autosave listens to) is counted in `editorChanges()`. The text is
// parsed from HTML by its own parser, as a page that imports a draft does. `?mention`: the page's
// text with a mention atom (`@Dana Levi`, not editable) for "artificial intelligence".
const SECOND_PARAGRAPH = 'A second paragraph, written by me on a Tuesday.';
const [beforeMention, afterMention] = PAGE_TEXT.split('artificial intelligence') as [string, string];
const mention = {
  version: '0.3.2',
  atoms: [['mention', '@Dana Levi', {}]],
  cards: [],
  markups: [],
  sections: [
    [1, 'p', [[0, [], 0, beforeMention], [1, [], 0, 0], [0, [], 0, afterMention]]],
    [1, 'p', [[0, [], 0, SECOND_PARAGRAPH]]],
  ],
};
const atoms = [
  {
    name: 'mention',
    type: 'dom',
    render: ({ value }: { value: string }) => Object.assign(document.createElement('span'), { className: 'mention', textContent: value }),
  },
];
let changes = 0;
const editor = new Editor(
  new URLSearchParams(location.search).has('mention')
    ? { mobiledoc: mention as never, atoms: atoms as never }
    : { html: formattedPage() ? FORMATTED_HTML : `<p>${PAGE_TEXT}</p><p>${SECOND_PARAGRAPH}</p>` },
);
editor.postDidChange(() => void changes++);
editor.render(document.querySelector<HTMLElement>('#editor')!);
// A section's text holds an atom's value.
const sections = () => editor.post.sections.toArray() as unknown as { text?: string }[];
Object.assign(window, {
  editorText: () => sections().map((section) => section.text ?? '').join('\n'),
  editorHtml: () => editor.serializeTo('html' as never) as unknown as string,
  editorJson: () => JSON.stringify(editor.serialize()),
  editorChanges: () => changes,
});
