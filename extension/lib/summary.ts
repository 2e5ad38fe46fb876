import type { BffDetectResponse, BffHumanizeResponse, BffPlagiarismResponse } from '@redline/shared';
import type { ProductName } from './messages.ts';
import { documentVerdict, roundedShare } from './verdict.ts';

/** One line in words for a finished check: what the popup and the history show. */
export function summarize(product: ProductName, response: unknown, suggestions?: number): string {
  if (product === 'detector') {
    const share = (response as BffDetectResponse).result.data.details.ai_percentage;
    return `${documentVerdict(share).label} (${roundedShare(share)} in sentences labelled AI)`;
  }
  if (product === 'plagiarism') {
    const count = (response as BffPlagiarismResponse).result.result.results.filter((match) => match.is_plagiarised).length;
    return count === 0 ? 'No similar source found' : `${count} sentence${count === 1 ? '' : 's'} with a similar source`;
  }
  const model = (response as BffHumanizeResponse).result.model_used;
  const count = suggestions ?? 0;
  return `Rewrite with ${model}: ${count} suggestion${count === 1 ? '' : 's'}`;
}

export const PRODUCT_TITLES: Record<ProductName, string> = { detector: 'AI writing', humanizer: 'Rewrite', plagiarism: 'Sources' };
