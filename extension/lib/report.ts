import { OffsetMap } from '@redline/shared/text';
import type { BffDetectResponse, BffHumanizeResponse, BffPlagiarismResponse } from '@redline/shared';
import { sourceSpans } from './content/results.ts';
import { isQuoted } from './sources.ts';
import { documentVerdict, roundedShare } from './verdict.ts';
import type { Suggestion } from './rewrite.ts';
import type { TabState } from './tab-state.ts';

export type Decision = 'pending' | 'accepted' | 'rejected' | 'withdrawn';

/**
 * The review report an editor can keep or share: what the side panel showed for one
 * document. All offsets are Unicode code point offsets into the text that was checked.
 */
export interface ReviewReport {
  url: string;
  exportedAt: string;
  offsets: 'unicode-code-points';
  ai?: {
    text: string;
    aiPercentage: number;
    /** The verdict in words and the rounded share, as the side panel shows them. */
    verdict: string;
    explanation: string;
    flagged: { text: string; start: number; end: number; score: number; stillInPage: boolean }[];
  };
  sources?: {
    text: string;
    plagiarismScore: number;
    explanation: string;
    matches: { sentence: string; start: number | null; end: number | null; sourceSentence: string; similarity: number; link: string; quoted: boolean; cited: boolean }[];
  };
  rewrite?: {
    text: string;
    model: string;
    suggestions: { original: string; suggestion: string; start: number; end: number; decision: Decision; flags: string[] }[];
  };
}

export function buildReport(state: TabState, decisions: Record<number, Decision>, edits: Record<number, string>, now = new Date()): ReviewReport {
  const report: ReviewReport = { url: state.url, exportedAt: now.toISOString(), offsets: 'unicode-code-points' };
  const detector = state.checks.detector;
  const detection = detector?.response as BffDetectResponse | undefined;
  if (detector && detection) {
    const live = detector.live && new Set(detector.live);
    report.ai = {
      text: detector.text,
      aiPercentage: detection.result.data.details.ai_percentage,
      verdict: `${documentVerdict(detection.result.data.details.ai_percentage).label} (${roundedShare(detection.result.data.details.ai_percentage)})`,
      explanation: 'Share of characters inside sentences labelled AI; not an average of sentence scores. Probabilistic review signals, not proof of authorship.',
      flagged: (detection.result.data.details.chunks ?? [])
        .map((chunk, index) => ({ chunk, index }))
        .filter(({ chunk }) => chunk.type === 'AI')
        .map(({ chunk, index }) => ({ text: chunk.text, start: chunk.startChar, end: chunk.endChar, score: chunk.score, stillInPage: live ? live.has(index) : true })),
    };
  }
  const plagiarism = state.checks.plagiarism;
  const sources = plagiarism?.response as BffPlagiarismResponse | undefined;
  if (plagiarism && sources) {
    const offsets = new OffsetMap(plagiarism.text);
    const located = new Map(sourceSpans(plagiarism.text, sources).map((span) => [span.index, span]));
    const cited = new Set(plagiarism.cited ?? []);
    report.sources = {
      text: plagiarism.text,
      plagiarismScore: sources.result.result.plagiarism_score,
      explanation: 'Share of characters inside sentences with a similar source. No match is not proof of originality.',
      matches: sources.result.result.results
        .map((match, index) => ({ match, index, span: located.get(index) }))
        .filter(({ match }) => match.is_plagiarised)
        .map(({ match, index, span }) => ({
          sentence: match.sentence,
          start: span ? offsets.toCodePoint(span.start) : null,
          end: span ? offsets.toCodePoint(span.end) : null,
          sourceSentence: match.web_sentence,
          similarity: match.similarity,
          link: match.link,
          quoted: span ? isQuoted(plagiarism.text, span.start, span.end) : false,
          cited: cited.has(index),
        })),
    };
  }
  const humanizer = state.checks.humanizer;
  const rewrite = humanizer?.response as BffHumanizeResponse | undefined;
  if (humanizer && rewrite) {
    const offsets = new OffsetMap(humanizer.text);
    report.rewrite = {
      text: humanizer.text,
      model: rewrite.result.model_used,
      suggestions: (humanizer.suggestions ?? []).map((suggestion: Suggestion) => ({
        original: suggestion.original,
        suggestion: edits[suggestion.index] ?? suggestion.suggestion,
        start: offsets.toCodePoint(suggestion.start),
        end: offsets.toCodePoint(suggestion.end),
        decision: decisions[suggestion.index] ?? 'pending',
        flags: suggestion.flags.map((flag) => flag.message),
      })),
    };
  }
  return report;
}

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

export function reportHtml(report: ReviewReport): string {
  const sections: string[] = [];
  if (report.ai) {
    sections.push(`<h2>AI writing</h2><p><strong>${escape(report.ai.verdict)}</strong>. Exactly ${report.ai.aiPercentage}% of the characters are in sentences labelled AI.</p>
<p><em>${escape(report.ai.explanation)}</em></p><ol>${report.ai.flagged
      .map((item) => `<li data-start="${item.start}" data-end="${item.end}">${escape(item.text)} <small>(score ${item.score.toFixed(4)}, characters ${item.start}–${item.end}${item.stillInPage ? '' : ', changed since'})</small></li>`)
      .join('')}</ol>`);
  }
  if (report.sources) {
    sections.push(`<h2>Sources</h2><p><strong>${report.sources.plagiarismScore}%</strong> of the characters are in sentences with a similar source.</p>
<p><em>${escape(report.sources.explanation)}</em></p><ol>${report.sources.matches
      .map((match) => `<li data-start="${match.start ?? ''}" data-end="${match.end ?? ''}">${escape(match.sentence)}<br><small>${Math.round(match.similarity * 100)}% similar to “${escape(match.sourceSentence)}”, <a href="${escape(match.link)}" rel="noopener noreferrer">${escape(match.link)}</a>${match.quoted ? ', quoted' : ''}${match.cited ? ', marked as cited' : ''}</small></li>`)
      .join('')}</ol>`);
  }
  if (report.rewrite) {
    sections.push(`<h2>Rewrite (${escape(report.rewrite.model)})</h2><ol>${report.rewrite.suggestions
      .map((item) => `<li data-start="${item.start}" data-end="${item.end}" data-decision="${item.decision}"><del>${escape(item.original)}</del><br><ins>${escape(item.suggestion)}</ins><br><small>${item.decision}${item.flags.length ? `; ${item.flags.map(escape).join(' ')}` : ''}</small></li>`)
      .join('')}</ol>`);
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Redline review report</title></head><body style="font: 15px/1.5 system-ui; max-width: 760px; margin: 24px auto;">
<h1>Review report</h1><p>${escape(report.url)}<br>Exported ${escape(report.exportedAt)}. Offsets are Unicode code points.</p>
${sections.join('\n')}</body></html>`;
}
