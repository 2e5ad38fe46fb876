import * as Y from 'yjs';

/**
 * The co-author of the collaborative pages (collab*.ts): two Y.Docs, the writer's and a
 * co-author's, whose updates reach each other after a network delay, in order; and the page's
 * window API: `editorText()`, `coauthorText()`, and `coauthor.start(ms, where)`, which has the
 * co-author type a word every `ms` at the end of the document (`end`), at its start (`start`:
 * each word before the last), or at its start as one types (`caret`: each word after the last,
 * the last one ending where the writer's first sentence begins); `coauthor.afterWriter(ms,
 * where)` has them type one word `ms` after the writer's copy next changes.
 */
const NETWORK_MS = 30;

/** The writer's and the co-author's documents: `fill` writes the writer's first, and the co-author's starts as a copy of it. */
export function sharedDocs(fill: (writer: Y.Doc) => void): { writerDoc: Y.Doc; coauthorDoc: Y.Doc } {
  const writerDoc = new Y.Doc();
  const coauthorDoc = new Y.Doc();
  fill(writerDoc);
  Y.applyUpdate(coauthorDoc, Y.encodeStateAsUpdate(writerDoc));
  const relay = (from: Y.Doc, to: Y.Doc) =>
    from.on('update', (update: Uint8Array, origin: unknown) => {
      if (origin !== 'network') setTimeout(() => Y.applyUpdate(to, update, 'network'), NETWORK_MS);
    });
  relay(writerDoc, coauthorDoc);
  relay(coauthorDoc, writerDoc);
  return { writerDoc, coauthorDoc };
}

export type Where = 'start' | 'caret' | 'end';

export interface Coauthored {
  /** The writer's document: `coauthor.afterWriter` waits for its next change. */
  writerDoc: Y.Doc;
  editorText(): string;
  coauthorText(): string;
  /**
   * The co-author types `word` in their own editor: at the end of the document, at its start, or
   * at their caret (first put at the start; it follows their typing and moves with the writer's
   * edits, as the editor keeps it).
   */
  type(word: string, where: Where): void;
}

export function exposeCoauthor({ writerDoc, editorText, coauthorText, type }: Coauthored): void {
  let timer: ReturnType<typeof setInterval> | undefined;
  const typed: string[] = [];
  const typeWord = (where: Where) => {
    const word = where === 'end' ? ` co${typed.length + 1}` : `co${typed.length + 1} `;
    typed.push(word);
    type(word, where);
  };
  Object.assign(window, {
    editorText,
    coauthorText,
    coauthor: {
      start(ms: number, where: Where = 'end') {
        timer = setInterval(() => typeWord(where), ms);
      },
      /** One word, typed `ms` after the writer's copy next changes (an accept's edit): it reaches the writer while the accept is judged. */
      afterWriter(ms: number, where: Where = 'end') {
        const once = (_update: Uint8Array, origin: unknown) => {
          if (origin === 'network') return;
          writerDoc.off('update', once);
          setTimeout(() => typeWord(where), ms);
        };
        writerDoc.on('update', once);
      },
      stop: () => clearInterval(timer),
      typed: () => typed,
    },
  });
}
