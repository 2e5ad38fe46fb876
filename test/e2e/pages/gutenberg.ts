import { createElement, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { BlockEditorProvider, BlockList, BlockTools, ObserveTyping, RichText, WritingFlow, useBlockProps } from '@wordpress/block-editor';
import { createBlock, registerBlockType } from '@wordpress/blocks';
import { htmlText } from './html-text.ts';
import { PAGE_TEXT } from './text.ts';

// WordPress's block editor (Gutenberg): each block's RichText is an editing host of its own, and
// the document is the block list in its data store. A paragraph block as core/paragraph makes it
// (core's block library is not installed here: it pulls in the whole of WordPress's front end).
registerBlockType<{ content: string }>('redline/paragraph', {
  apiVersion: 3,
  title: 'Paragraph',
  category: 'text',
  attributes: { content: { type: 'string', source: 'html', selector: 'p', default: '' } },
  edit: ({ attributes, setAttributes }) =>
    createElement(RichText, { ...useBlockProps(), tagName: 'p', value: attributes.content, onChange: (content: string) => setAttributes({ content }) }),
  save: ({ attributes }) => createElement(RichText.Content, { tagName: 'p', value: attributes.content }),
});

type Block = ReturnType<typeof createBlock>;

let blocks: Block[] = [PAGE_TEXT, 'A second paragraph, written by me on a Tuesday.'].map((content) => createBlock('redline/paragraph', { content }));

function App() {
  const [value, setValue] = useState(blocks);
  const update = (next: Block[]) => {
    blocks = next;
    setValue(next);
  };
  return createElement(
    BlockEditorProvider,
    { value, onInput: update, onChange: update },
    createElement(BlockTools, null, createElement(WritingFlow, null, createElement(ObserveTyping, null, createElement(BlockList)))),
  );
}

Object.assign(window, { editorText: () => blocks.map((block) => htmlText(String(block.attributes.content))).join('\n') });
createRoot(document.querySelector('#app')!).render(createElement(App));
