import { webLink } from './sources.ts';

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

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

/** A source's address in the report: a link only when it is a web address (the upstream's word). */
const sourceLink = (link: string) => (webLink(link) ? `<a href="${escape(link)}" rel="noopener noreferrer">${escape(link)}</a>` : escape(link));

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
      .map((match) => `<li data-start="${match.start ?? ''}" data-end="${match.end ?? ''}">${escape(match.sentence)}<br><small>${Math.round(match.similarity * 100)}% similar to “${escape(match.sourceSentence)}”, ${sourceLink(match.link)}${match.quoted ? ', quoted' : ''}${match.cited ? ', marked as cited' : ''}</small></li>`)
      .join('')}</ol>`);
  }
  if (report.rewrite) {
    sections.push(`<h2>Rewrite (${escape(report.rewrite.model)})</h2><ol>${report.rewrite.suggestions
      .map((item) => `<li data-start="${item.start}" data-end="${item.end}" data-decision="${item.decision}"><del>${escape(item.original)}</del><br><ins>${escape(item.suggestion)}</ins><br><small>${item.decision}${item.flags.length ? `; ${item.flags.map(escape).join(' ')}` : ''}</small></li>`)
      .join('')}</ol>`);
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'"><title>Redline review report</title></head><body style="font: 15px/1.5 system-ui; max-width: 760px; margin: 24px auto;">
<h1>Review report</h1><p>${escape(report.url)}<br>Exported ${escape(report.exportedAt)}. Offsets are Unicode code points.</p>
${sections.join('\n')}</body></html>`;
}
