export { splitSentences, type SentenceSpan } from '../sentences.ts';
export { detect, scoreSentence, type DetectionResult } from './detector.ts';
export { humanize, type HumanizeResult } from './humanizer.ts';
export { findProtectedSpans, type Span } from './protected-spans.ts';
export { createPlagiarismChecker, MATCH_THRESHOLD, REPORT_THRESHOLD, type PlagiarismResult } from './plagiarism.ts';
export { BUILT_IN_CORPUS, type SourceDocument } from './corpus.ts';
