import {
  MAX_TEXT_CHARACTERS,
  countCharacters,
  type DetectResponseLegacy,
  type HumanizeResponse,
  type PlagiarismResponse,
} from '@redline/shared';
import { splitSentences } from '@redline/shared/sentences';

/**
 * Large documents: a text over the upstream limit is cut into parts at paragraph breaks
 * first, then at sentence ends, then at whitespace, and the parts' results are merged back
 * into one result for the whole text.
 */

export interface DocumentPart {
  /** The part's text without surrounding whitespace: what is sent upstream. */
  text: string;
  /** Whitespace (or nothing) between the previous part's text and this one. */
  before: string;
  /** Code point offset of `text` in the whole document. */
  startChar: number;
}

export interface SplitDocument {
  parts: DocumentPart[];
  /** Whitespace after the last part. */
  after: string;
  characters: number;
}

type Cutter = (text: string, from: number, to: number) => number[];

/** Cut points after blank-line runs (paragraph breaks). */
const paragraphCuts: Cutter = (text, from, to) => {
  const cuts: number[] = [];
  const blank = /\n[ \t]*\n\s*/g;
  blank.lastIndex = from;
  for (let match = blank.exec(text); match && match.index < to; match = blank.exec(text)) {
    const end = match.index + match[0].length;
    if (end < to) cuts.push(end);
  }
  return cuts;
};

/** Cut points at sentence starts. */
const sentenceCuts: Cutter = (text, from, to) =>
  splitSentences(text.slice(from, to))
    .map((sentence) => from + sentence.start)
    .filter((cut) => cut > from);

/** Cut points after whitespace runs. */
const whitespaceCuts: Cutter = (text, from, to) => {
  const cuts: number[] = [];
  const space = /\s+/g;
  space.lastIndex = from;
  for (let match = space.exec(text); match && match.index < to; match = space.exec(text)) {
    const end = match.index + match[0].length;
    if (end < to && end > from) cuts.push(end);
  }
  return cuts;
};

/** Cut points every `max` code points, never inside a surrogate pair. */
function hardCuts(text: string, from: number, to: number, max: number): number[] {
  const cuts: number[] = [];
  let count = 0;
  for (let i = from; i < to; i++) {
    if (count === max) {
      cuts.push(i);
      count = 0;
    }
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < to) i++;
    count++;
  }
  return cuts;
}

/** Slices [from, to) into units of at most `max` code points, coarsest cuts first. */
function units(text: string, from: number, to: number, max: number, cutters: Cutter[]): [number, number][] {
  if (countCharacters(text.slice(from, to)) <= max) return [[from, to]];
  const [cutter, ...finer] = cutters;
  const cuts = cutter ? cutter(text, from, to) : hardCuts(text, from, to, max);
  if (cuts.length === 0) return units(text, from, to, max, finer);
  const bounds = [from, ...cuts, to];
  const result: [number, number][] = [];
  for (let i = 1; i < bounds.length; i++) result.push(...units(text, bounds[i - 1]!, bounds[i]!, max, cutter ? finer : []));
  return result;
}

export function splitDocument(text: string, max: number = MAX_TEXT_CHARACTERS): SplitDocument {
  const pieces = units(text, 0, text.length, max, [paragraphCuts, sentenceCuts, whitespaceCuts]);
  // Pack consecutive units greedily into parts of at most `max` characters.
  const slices: [number, number][] = [];
  let current: [number, number] | undefined;
  let currentLength = 0;
  for (const [start, end] of pieces) {
    const length = countCharacters(text.slice(start, end));
    if (current && currentLength + length <= max) {
      current[1] = end;
      currentLength += length;
    } else {
      if (current) slices.push(current);
      current = [start, end];
      currentLength = length;
    }
  }
  if (current) slices.push(current);

  const parts: DocumentPart[] = [];
  let previousEnd = 0;
  for (const [start, end] of slices) {
    const slice = text.slice(start, end);
    const contentStart = start + (slice.length - slice.trimStart().length);
    const contentEnd = start + slice.trimEnd().length;
    if (contentEnd <= contentStart) continue;
    parts.push({
      text: text.slice(contentStart, contentEnd),
      before: text.slice(previousEnd, contentStart),
      startChar: countCharacters(text.slice(0, contentStart)),
    });
    previousEnd = contentEnd;
  }
  return { parts, after: text.slice(previousEnd), characters: countCharacters(text) };
}

const percentage = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 100);

export function mergeDetections(document: SplitDocument, results: DetectResponseLegacy[]): DetectResponseLegacy {
  const withChunks = results.every((result) => result.data.details.chunks !== undefined);
  let aiCharacters = 0;
  const chunks = withChunks
    ? results.flatMap((result, index) =>
        result.data.details.chunks!.map((chunk) => {
          const shift = document.parts[index]!.startChar;
          if (chunk.type === 'AI') aiCharacters += chunk.endChar - chunk.startChar;
          return { ...chunk, startChar: chunk.startChar + shift, endChar: chunk.endChar + shift };
        }),
      )
    : undefined;
  if (!withChunks) {
    // Without sentence detail, weight each part's percentage by its characters.
    results.forEach((result, index) => {
      aiCharacters += (result.data.details.ai_percentage / 100) * countCharacters(document.parts[index]!.text);
    });
  }
  return {
    success: results.every((result) => result.success),
    data: {
      details: { ...(chunks ? { chunks } : {}), ai_percentage: percentage(aiCharacters, document.characters) },
      version: results[0]!.data.version,
      words_processed: results.reduce((sum, result) => sum + result.data.words_processed, 0),
    },
  };
}

export function mergeHumanizations(document: SplitDocument, results: HumanizeResponse[]): HumanizeResponse {
  const text = document.parts.map((part, index) => part.before + results[index]!.humanized_text).join('') + document.after;
  return {
    humanized_text: text,
    words_processed: results.reduce((sum, result) => sum + result.words_processed, 0),
    model_used: results[0]!.model_used,
  };
}

export function mergePlagiarismChecks(document: SplitDocument, results: PlagiarismResponse[]): PlagiarismResponse {
  const matches = results.flatMap((result) => result.result.results);
  const flaggedCharacters = matches
    .filter((match) => match.is_plagiarised)
    .reduce((sum, match) => sum + countCharacters(match.sentence), 0);
  return {
    result: { results: matches, plagiarism_score: percentage(flaggedCharacters, document.characters) },
    words_processed: results.reduce((sum, result) => sum + result.words_processed, 0),
  };
}
