import { DetectRequest, HumanizeRequest, PlagiarismRequest, type Product } from '@redline/shared';
import { BUILT_IN_CORPUS, SourceIndex, createPlagiarismChecker, detect, humanize, type SourceIndexData } from '@redline/shared/analysis';

/** One offline analysis, as a worker thread runs it: plain data in, plain data out. */
export interface AnalysisTask {
  product: Product;
  body: string;
  /** The source folder's index (on shared memory), for plagiarism; the built-in sample without it. */
  sources?: { id: string; data: SourceIndexData };
}

export type AnalysisResult =
  | { ok: true; body: unknown }
  /** The request is one the upstream would refuse (400), with its message and fields. */
  | { ok: false; detail: string; fields: Record<string, string> };

let builtInChecker: ReturnType<typeof createPlagiarismChecker> | undefined;
/** The checker over the last index a task brought (the same index comes with every task). */
let folderChecker: { id: string; check: ReturnType<typeof createPlagiarismChecker> } | undefined;

function plagiarismChecker(sources: AnalysisTask['sources']) {
  if (!sources) return (builtInChecker ??= createPlagiarismChecker(BUILT_IN_CORPUS));
  if (folderChecker?.id !== sources.id) folderChecker = { id: sources.id, check: createPlagiarismChecker(new SourceIndex(sources.data)) };
  return folderChecker.check;
}

const schemas = { detector: DetectRequest, humanizer: HumanizeRequest, plagiarism: PlagiarismRequest } as const;

/** Answers with the upstream's shapes, or refuses the way the upstream refuses an invalid request. */
export function analyse({ product, body, sources }: AnalysisTask): AnalysisResult {
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
      // v1 answers without sentence detail, as the upstream double does (shared/CONTRACT.md).
      const details = version === 'v1' ? { ai_percentage } : { chunks, ai_percentage };
      return { ok: true, body: { success: true, data: { details, version, words_processed } } };
    }
    case 'humanizer': {
      const { text, model } = parsed.data as HumanizeRequest;
      return { ok: true, body: humanize(text, model) };
    }
    case 'plagiarism': {
      const { text } = parsed.data as PlagiarismRequest;
      const { results, plagiarism_score, words_processed } = plagiarismChecker(sources)(text);
      return { ok: true, body: { result: { results, plagiarism_score }, words_processed } };
    }
  }
}

export default analyse;
