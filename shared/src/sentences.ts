/** A sentence of a text, with UTF-16 offsets into that text. */
export interface SentenceSpan {
  text: string;
  start: number;
  end: number;
}

// ICU's sentence rules (Intl.Segmenter) break after every abbreviation's period; these are
// the common English ones that almost never end a sentence, so a break after them is undone.
const NON_TERMINAL_ABBREVIATION =
  /(?:^|[\s(])(?:Mr|Mrs|Ms|Mx|Dr|Prof|Sr|Jr|St|Mt|Gen|Col|Capt|Lt|Sgt|Rev|Hon|vs|e\.g|i\.e|cf|approx|No|Fig|Vol|p|pp|ca|Inc|Ltd|Co|Corp|\p{Lu})\.$/u;

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

/**
 * The sentences of a text, in order, each trimmed of surrounding whitespace so that
 * `text.slice(start, end) === sentence.text`. Whitespace between sentences belongs to none.
 */
export function splitSentences(text: string): SentenceSpan[] {
  const spans: SentenceSpan[] = [];
  let pending: { start: number; end: number } | undefined;
  for (const { segment, index } of segmenter.segment(text)) {
    const start = index + (segment.length - segment.trimStart().length);
    const end = index + segment.trimEnd().length;
    if (end <= start) continue;
    if (pending && !endsWithBreakingParagraph(text, pending.end, start) && NON_TERMINAL_ABBREVIATION.test(text.slice(pending.start, pending.end))) {
      pending.end = end;
      continue;
    }
    if (pending) spans.push({ text: text.slice(pending.start, pending.end), ...pending });
    pending = { start, end };
  }
  if (pending) spans.push({ text: text.slice(pending.start, pending.end), ...pending });
  return spans;
}

function endsWithBreakingParagraph(text: string, from: number, to: number): boolean {
  return text.slice(from, to).includes('\n');
}
