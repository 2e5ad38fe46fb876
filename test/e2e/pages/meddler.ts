import { PAGE_TEXT } from './text.ts';

/**
 * An editor that turns an edit into something else after it went in (as an autocorrect or a
 * "smart" formatter does): once told a word, it rewrites that word in upper case, straight in
 * its DOM, 50 ms after any input that brought it in.
 */
const root = document.querySelector<HTMLElement>('#editor')!;
root.replaceChildren(...[PAGE_TEXT, 'A second paragraph, written by me on a Tuesday.'].map((line) => Object.assign(document.createElement('p'), { textContent: line })));
let word: string | undefined;
root.addEventListener('input', () => {
  setTimeout(() => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
      if (word && node.data.includes(word)) node.data = node.data.replaceAll(word, word.toUpperCase());
    }
  }, 50);
});
Object.assign(window, {
  editorText: () => [...root.children].map((block) => block.textContent).join('\n'),
  meddle: (next: string) => (word = next),
});
