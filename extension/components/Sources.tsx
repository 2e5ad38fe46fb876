import type { BffPlagiarismResponse } from '@redline/shared';
import { shareWithoutCited, sourcePages } from '../lib/sources.ts';
import { setCited, type TabCheck, type TabState } from '../lib/tab-state.ts';
import { roundedShare } from '../lib/verdict.ts';
import { send } from './commands.ts';
import { Status } from './Status.tsx';
import { usePanelFocus } from './usePanelFocus.ts';

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

export function Sources({ tabId, check, focus }: { tabId: number; check: TabCheck; focus?: TabState['focus'] }) {
  usePanelFocus(focus, 'plagiarism');
  const response = check.response as BffPlagiarismResponse | undefined;
  const result = response?.result.result;
  const pages = response ? sourcePages(check.text, response) : [];
  const cited = new Set(check.cited ?? []);
  const live = check.live && new Set(check.live);
  const matchCount = pages.reduce((sum, page) => sum + page.matches.length, 0);
  const toggleCited = (index: number) => {
    const next = new Set(cited);
    if (next.has(index)) next.delete(index);
    else next.add(index);
    void setCited(tabId, [...next].sort((a, b) => a - b));
  };
  return (
    <section aria-labelledby="sources-heading">
      <h2 id="sources-heading">Sources</h2>
      <Status check={check} label="Checking sources" />
      {result && (
        <>
          <p data-testid="source-count">
            {matchCount === 0 ? 'No sentence has a similar source.' : `${plural(matchCount, 'sentence')} with a similar source, from ${plural(pages.length, 'page')}.`}
          </p>
          {matchCount > 0 && (
            <p>
              <span class="figure" data-testid="sources-share">
                {roundedShare(shareWithoutCited(pages, result.plagiarism_score, cited))}
              </span>{' '}
              of the text is in sentences with a similar source{cited.size > 0 ? ', leaving out the ones you marked as cited' : ''}.
            </p>
          )}
          <p class="muted">
            The checker’s own figure: <span data-testid="plagiarism-score">{result.plagiarism_score}%</span> of the characters
            {cited.size > 0 ? ' (cited matches included)' : ''}. No match is not proof of originality: the check is not exhaustive. Each match needs human
            review.
          </p>
          <ol class="items" data-testid="source-matches">
            {pages.map((page) => (
              <li key={page.link} class="source-page">
                <h3>
                  {page.href ? (
                    <a href={page.href} target="_blank" rel="noopener noreferrer" title={page.link}>
                      {page.title ?? page.domain}
                    </a>
                  ) : (
                    <span title={page.link}>{page.title ?? page.domain}</span>
                  )}
                </h3>
                <p class="muted" data-testid="source-meta">
                  {page.title ? `${page.domain} · ` : ''}
                  {plural(page.matches.length, 'matching sentence')}
                </p>
                <ol class="items">
                  {page.matches.map((match) => (
                    <li key={match.index} class={live && !live.has(match.index) ? 'source stale' : 'source'} data-cited={cited.has(match.index) || undefined} data-testid="source-match" data-product="plagiarism" data-index={match.index}>
                      <button type="button" class="item" onClick={() => void send(tabId, { type: 'reveal', product: 'plagiarism', index: match.index }, check.frameId)} title="Show in the page">
                        {match.sentence}
                      </button>
                      <p class="muted">
                        {match.quoted && (
                          <span class="tag" data-testid="quoted">
                            Quoted
                          </span>
                        )}
                        {Math.round(match.similarity * 100)}% similar to “{match.webSentence}”
                      </p>
                      <p class="row">
                        <button type="button" aria-pressed={cited.has(match.index)} onClick={() => toggleCited(match.index)}>
                          Mark as cited
                        </button>
                        {cited.has(match.index) && <span class="muted">Cited: left out of the share above.</span>}
                        {!cited.has(match.index) && match.quoted && <span class="muted">In quotation marks: mark it as cited if the source is credited.</span>}
                      </p>
                    </li>
                  ))}
                </ol>
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
