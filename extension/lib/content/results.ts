import { OffsetMap } from '@redline/shared/text';
import type { HighlightSpan } from './highlighters.ts';

// The content script reads BFF results through these narrow views, so it needs no schema
// library; the background has already validated each response against the shared schemas.

interface Chunk {
  text: string;
  startChar: number;
  endChar: number;
  type: 'AI' | 'Human';
  score: number;
}

interface Match {
  sentence: string;
  is_plagiarised: boolean;
  similarity: number;
  web_sentence: string;
  link: string;
}

export interface DetectEnvelope {
  /** `offline`: the team server's built-in analyzer answered, not the service. */
  source?: 'upstream' | 'offline';
  result: { data: { details: { chunks?: Chunk[]; ai_percentage: number } } };
}

export interface PlagiarismEnvelope {
  /** `offline`: the team server's own source folder answered, not the service. */
  source?: 'upstream' | 'offline';
  result: { result: { results: Match[]; plagiarism_score: number } };
}

/** AI-labelled chunks as UTF-16 spans of the text that was sent (offsets are code points). */
export function aiSpans(text: string, envelope: DetectEnvelope): HighlightSpan[] {
  const offsets = new OffsetMap(text);
  const spans: HighlightSpan[] = [];
  (envelope.result.data.details.chunks ?? []).forEach((chunk, index) => {
    if (chunk.type !== 'AI' || chunk.endChar > offsets.length) return;
    const start = offsets.toUtf16(chunk.startChar);
    const end = offsets.toUtf16(chunk.endChar);
    // A chunk whose text is not at its offsets is not drawn rather than drawn in the wrong place.
    if (text.slice(start, end) === chunk.text) spans.push({ start, end, index, kind: 'ai', score: chunk.score });
  });
  return spans;
}

/** Flagged sentences, found in order in the text that was sent (matches carry no offsets). */
export function sourceSpans(text: string, envelope: PlagiarismEnvelope): HighlightSpan[] {
  const spans: HighlightSpan[] = [];
  let cursor = 0;
  envelope.result.result.results.forEach((match, index) => {
    const at = text.indexOf(match.sentence, cursor);
    if (at < 0) return;
    cursor = at + match.sentence.length;
    if (match.is_plagiarised) spans.push({ start: at, end: cursor, index, kind: 'source', score: match.similarity });
  });
  return spans;
}

export function matchAt(envelope: PlagiarismEnvelope, index: number): Match | undefined {
  return envelope.result.result.results[index];
}
