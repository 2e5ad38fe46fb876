import { workerData } from 'node:worker_threads';
import { DetectRequest, HumanizeRequest, PlagiarismRequest, type Product } from '@redline/shared';
import { BUILT_IN_CORPUS, createPlagiarismChecker, detect, humanize, type SourceDocument } from '@redline/shared/analysis';

/** One offline analysis, as a worker thread runs it: plain data in, plain data out. */
export interface AnalysisTask {
  product: Product;
  body: string;
}

export type AnalysisResult =
  | { ok: true; body: unknown }
  /** The request is one the upstream would refuse (400), with its message and fields. */
  | { ok: false; detail: string; fields: Record<string, string> };

export interface AnalysisWorkerData {
  corpus?: readonly SourceDocument[];
}

let checkPlagiarism: ReturnType<typeof createPlagiarismChecker> | undefined;

const schemas = { detector: DetectRequest, humanizer: HumanizeRequest, plagiarism: PlagiarismRequest } as const;

/** Answers with the upstream's shapes, or refuses the way the upstream refuses an invalid request. */
export function analyse({ product, body }: AnalysisTask): AnalysisResult {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { ok: false, detail: 'The request body is not valid JSON.', fields: {} };
  }
  const parsed = schemas[product].safeParse(json);
  if (!parsed.success) {
    const fields: Record<string, string> = {};
    for (const issue of parsed.error.issues) fields[String(issue.path[0] ?? 'body')] ??= issue.message;
    return { ok: false, detail: Object.entries(fields).map(([field, message]) => `${field}: ${message}`).join('; '), fields };
  }
  switch (product) {
    case 'detector': {
      const { text, version } = parsed.data as DetectRequest;
      const { chunks, ai_percentage, words_processed } = detect(text, version);
      return { ok: true, body: { success: true, data: { details: { chunks, ai_percentage }, version, words_processed } } };
    }
    case 'humanizer': {
      const { text, model } = parsed.data as HumanizeRequest;
      return { ok: true, body: humanize(text, model) };
    }
    case 'plagiarism': {
      const { text } = parsed.data as PlagiarismRequest;
      checkPlagiarism ??= createPlagiarismChecker((workerData as AnalysisWorkerData | null)?.corpus ?? BUILT_IN_CORPUS);
      const { results, plagiarism_score, words_processed } = checkPlagiarism(text);
      return { ok: true, body: { result: { results, plagiarism_score }, words_processed } };
    }
  }
}

export default analyse;
