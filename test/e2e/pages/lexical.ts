import { $createParagraphNode, $createTextNode, $getRoot, createEditor, ElementNode, type LexicalNode, type NodeKey, type SerializedElementNode, type TextFormatType } from 'lexical';
import { registerPlainText } from '@lexical/plain-text';
import { createEmptyHistoryState, registerHistory } from '@lexical/history';
import { PAGE_TEXT, formattedPage } from './text.ts';

/**
 * `?formatted`: a link as an inline element node around its text, as @lexical/link's LinkNode
 * is (not installed here): an `<a>` Lexical renders from its model.
 */
class LinkNode extends ElementNode {
  __url: string;
  static override getType(): string {
    return 'e2e-link';
  }
  static override clone(node: LinkNode): LinkNode {
    return new LinkNode(node.__url, node.__key);
  }
  static override importJSON(json: SerializedElementNode & { url: string }): LinkNode {
    return new LinkNode(json.url);
  }
  constructor(url: string, key?: NodeKey) {
    super(key);
    this.__url = url;
  }
  override exportJSON(): SerializedElementNode & { url: string } {
    return { ...super.exportJSON(), url: this.__url };
  }
  override createDOM(): HTMLElement {
    const anchor = document.createElement('a');
    anchor.href = this.__url;
    return anchor;
  }
  override updateDOM(): boolean {
    return false;
  }
  override isInline(): true {
    return true;
  }
  override canInsertTextBefore(): false {
    return false;
  }
  override canInsertTextAfter(): false {
    return false;
  }
  override canBeEmpty(): false {
    return false;
  }
}

const formatted = formattedPage();
const editor = createEditor({ namespace: 'e2e', onError: (error) => console.error(error), ...(formatted ? { nodes: [LinkNode] } : {}) });
editor.setRootElement(document.querySelector<HTMLElement>('#editor'));
registerPlainText(editor);
registerHistory(editor, createEmptyHistoryState(), 300);

/** A text node with Lexical's format flags (FORMATTED_HTML's runs, as Lexical's own model holds them). */
const text = (content: string, format?: TextFormatType): LexicalNode => {
  const node = $createTextNode(content);
  return format ? node.toggleFormat(format) : node;
};

editor.update(
  () => {
    const root = $getRoot();
    if (formatted) {
      root.append(
        $createParagraphNode().append(
          text("In today's fast-paced digital landscape, it is important to note that "),
          text('artificial intelligence', 'bold'),
          text(' plays a crucial role in '),
          new LinkNode('https://example.com/innovation').append(text('fostering innovation')),
          text('. I went to the shop yesterday and honestly it was kinda closed. '),
          text('Moreover', 'italic'),
          text(', organizations must utilize '),
          text('comprehensive tools', 'bold'),
          text(' in order to navigate the complexities of an ever-evolving technological paradigm.'),
        ),
        $createParagraphNode().append(text('A second paragraph, written by me on a Tuesday.')),
      );
      return;
    }
    for (const line of [PAGE_TEXT, 'A second paragraph, written by me on a Tuesday.']) {
      root.append($createParagraphNode().append($createTextNode(line)));
    }
  },
  { discrete: true },
);
Object.assign(window, {
  editorText: () => editor.getEditorState().read(() => $getRoot().getTextContent()),
  // The app switches the editor to read-only (a locked document) and back.
  refuseEdits: () => editor.setEditable(false),
  allowEdits: () => editor.setEditable(true),
});
