export { splitSentences, type SentenceSpan } from '../sentences.ts';
export { detect, scoreSentence, scoreSentences, type DetectionResult, type DetectorScorer } from './detector.ts';
export { humanize, type HumanizeResult } from './humanizer.ts';
export { findProtectedSpans, type Span } from './protected-spans.ts';
export {
  createPlagiarismChecker,
  SourceIndex,
  MATCH_THRESHOLD,
  REPORT_THRESHOLD,
  SOURCE_INDEX_VERSION,
  plainArrays,
  sharedArrays,
  type Allocate,
  type PlagiarismResult,
  type SourceIndexData,
  type SourceMatch,
} from './plagiarism.ts';
export { BUILT_IN_CORPUS, type SourceDocument } from './corpus.ts';
