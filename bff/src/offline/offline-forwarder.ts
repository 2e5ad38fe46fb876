import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DetectRequest, HumanizeRequest, PlagiarismRequest } from '@redline/shared';
import {
  BUILT_IN_CORPUS,
  createPlagiarismChecker,
  detect,
  humanize,
  type SourceDocument,
} from '@redline/shared/analysis';
import type { ForwardRequest, ForwardResult, Forwarder } from '../upstream/forwarder.ts';

/**
 * Loads plagiarism sources from a folder of .txt and .md files. A file whose first line is
 * an http(s) URL uses it as the source link; otherwise the link is the file's file:// URL.
 */
export function loadSourceFolder(folder: string): SourceDocument[] {
  const documents: SourceDocument[] = [];
  for (const name of readdirSync(folder).sort()) {
    if (!/\.(txt|md)$/i.test(name)) continue;
    const file = path.resolve(folder, name);
    const content = readFileSync(file, 'utf8');
    const [firstLine = '', ...rest] = content.split(/\r?\n/);
    const hasLink = /^https?:\/\/\S+$/.test(firstLine.trim());
    documents.push({
      link: hasLink ? firstLine.trim() : pathToFileURL(file).href,
      text: (hasLink ? rest.join('\n') : content).trim(),
    });
  }
  return documents;
}

/**
 * Offline mode: the same API served by the built-in analyzers, so the text never leaves
 * this server. Answers have the upstream's shapes.
 */
export class OfflineForwarder implements Forwarder {
  readonly source = 'offline' as const;
  readonly #checkPlagiarism: ReturnType<typeof createPlagiarismChecker>;

  constructor(corpus: readonly SourceDocument[] = BUILT_IN_CORPUS) {
    this.#checkPlagiarism = createPlagiarismChecker(corpus);
  }

  async forward({ product, body }: ForwardRequest): Promise<ForwardResult> {
    const json: unknown = JSON.parse(body);
    switch (product) {
      case 'detector': {
        const { text, version } = DetectRequest.parse(json);
        const { chunks, ai_percentage, words_processed } = detect(text, version);
        return { ok: true, body: { success: true, data: { details: { chunks, ai_percentage }, version, words_processed } } };
      }
      case 'humanizer': {
        const { text, model } = HumanizeRequest.parse(json);
        return { ok: true, body: humanize(text, model) };
      }
      case 'plagiarism': {
        const { text } = PlagiarismRequest.parse(json);
        const { results, plagiarism_score, words_processed } = this.#checkPlagiarism(text);
        return { ok: true, body: { result: { results, plagiarism_score }, words_processed } };
      }
    }
  }
}
