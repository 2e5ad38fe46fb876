import type { BffPlagiarismResponse } from '@redline/shared';
import { sourceSpans } from './content/results.ts';

/** Source matches as a reviewer reads them: by source page, quoted or not, cited or not. */

export interface SourceMatch {
  /** The match's index in the upstream's results. */
  index: number;
  sentence: string;
  webSentence: string;
  similarity: number;
  link: string;
  /** UTF-16 offsets in the checked text; absent when the sentence could not be found in it. */
  start?: number;
  end?: number;
  /** The sentence stands inside quotation marks in the checked text. */
  quoted: boolean;
}

export interface SourcePage {
  link: string;
  /** The link to open: the address when it is a web (http or https) one, else none. */
  href?: string;
  /** The host without `www.`, e.g. `encyclopedia.example.org`. */
  domain: string;
  /** A readable title from the address's last path segment, when it has one. */
  title?: string;
  matches: SourceMatch[];
}

/**
 * The address when it is a web page's: the upstream's word, shown to the reviewer as a link in
 * the side panel and in the HTML report, where a javascript: or data: address would run.
 */
export function webLink(link: string): string | undefined {
  if (!URL.canParse(link)) return undefined;
  const { protocol } = new URL(link);
  return protocol === 'https:' || protocol === 'http:' ? link : undefined;
}

export function domainOf(link: string): string {
  try {
    return new URL(link).hostname.replace(/^www\./, '');
  } catch {
    return link;
  }
}

/** `/wiki/Water_cycle.html` → "Water cycle": the upstream gives no page titles, only addresses. */
export function titleOf(link: string): string | undefined {
  let path: string;
  try {
    path = new URL(link).pathname;
  } catch {
    return undefined;
  }
  const last = path.split('/').filter(Boolean).at(-1);
  if (!last) return undefined;
  let words: string;
  try {
    words = decodeURIComponent(last);
  } catch {
    words = last;
  }
  words = words.replace(/\.(html?|php|aspx?)$/i, '').replace(/[-_+]+/g, ' ').trim();
  if (!/\p{L}/u.test(words) || /^\d+$/.test(words)) return undefined;
  return words.charAt(0).toLocaleUpperCase() + words.slice(1);
}

const count = (text: string, marks: RegExp) => text.match(marks)?.length ?? 0;

/**
 * Whether `text[start, end)` stands inside quotation marks: a quotation is open where it
 * starts (or it starts with an opening mark) and closes where it ends (or it ends with a
 * closing mark, before final punctuation). Single quotes are left out: ’ is also an apostrophe.
 */
export function isQuoted(text: string, start: number, end: number): boolean {
  const before = text.slice(0, start);
  const inner = text.slice(start, end).trim();
  const last = inner.replace(/[.,;:!?)\]]+$/u, '').at(-1) ?? '';
  const next = text.slice(end).trimStart().charAt(0);
  const straight = count(before, /"/g) % 2 === 1 || inner.startsWith('"');
  const curly = count(before, /[“„«]/g) > count(before, /[”»]/g) || /^[“„«]/u.test(inner);
  return (straight && (last === '"' || next === '"')) || (curly && (/[”“»]/u.test(last) || /[”“»]/u.test(next)));
}

/** Flagged matches, grouped by source page in the order they first appear. */
export function sourcePages(text: string, response: BffPlagiarismResponse): SourcePage[] {
  const located = new Map(sourceSpans(text, response).map((span) => [span.index, span]));
  const pages = new Map<string, SourcePage>();
  response.result.result.results.forEach((match, index) => {
    if (!match.is_plagiarised) return;
    const span = located.get(index);
    const entry: SourceMatch = {
      index,
      sentence: match.sentence,
      webSentence: match.web_sentence,
      similarity: match.similarity,
      link: match.link,
      ...(span ? { start: span.start, end: span.end } : {}),
      quoted: span ? isQuoted(text, span.start, span.end) : /^\s*["“„«]/u.test(match.sentence),
    };
    let page = pages.get(match.link);
    if (!page) {
      const title = titleOf(match.link);
      const href = webLink(match.link);
      page = { link: match.link, ...(href ? { href } : {}), domain: domainOf(match.link), ...(title ? { title } : {}), matches: [] };
      pages.set(match.link, page);
    }
    page.matches.push(entry);
  });
  return [...pages.values()];
}

/**
 * The share shown after the reviewer excludes cited matches: the upstream's own figure scaled
 * by the characters of the flagged sentences that remain, so with nothing cited it is the
 * upstream's figure exactly. Matches that could not be located count as not cited.
 */
export function shareWithoutCited(pages: readonly SourcePage[], upstreamScore: number, cited: ReadonlySet<number>): number {
  let flagged = 0;
  let remaining = 0;
  for (const match of pages.flatMap((page) => page.matches)) {
    const length = match.end !== undefined && match.start !== undefined ? match.end - match.start : match.sentence.length;
    flagged += length;
    if (!cited.has(match.index)) remaining += length;
  }
  return flagged === 0 ? upstreamScore : (upstreamScore * remaining) / flagged;
}
