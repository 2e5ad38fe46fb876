import { OffsetMap } from '@redline/shared/text';
import type { BffDetectResponse, BffHumanizeResponse, BffPlagiarismResponse } from '@redline/shared';
import { sourceSpans } from './content/results.ts';
import { isQuoted } from './sources.ts';
import type { Decision, ReviewReport } from './report-html.ts';
import { documentVerdict, roundedShare } from './verdict.ts';
import type { Suggestion } from './rewrite.ts';
import type { TabState } from './tab-state.ts';

export { reportHtml, type Decision, type ReviewReport } from './report-html.ts';

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
