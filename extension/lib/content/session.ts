import { browser } from 'wxt/browser';
import { countWords } from '@redline/shared/text';
import type { CheckError, CheckReply, CheckRequest, ProductName } from '../messages.ts';
import { formatScore } from '../format.ts';
import { getSettings, isSiteDisabled, type Settings } from '../settings.ts';
import { Card } from './card.ts';
import { DomHighlighter, FieldHighlighter, type HighlightSpan, type Highlighter } from './highlighters.ts';
import { remapSpans } from './remap.ts';
import { aiSpans, matchAt, sourceSpans, type DetectEnvelope, type PlagiarismEnvelope } from './results.ts';
import { findTarget, type Target } from './target.ts';
import { Toast } from './toast.ts';

const PROBABILISTIC_NOTE = 'Results are probabilistic review signals, not proof of authorship.';
const PRODUCT_LABEL: Record<ProductName, string> = { detector: 'Checking for AI writing', humanizer: 'Humanizing', plagiarism: 'Checking sources' };

interface DrawnCheck {
  product: ProductName;
  target: Target;
  highlighter: Highlighter & { dispose?: () => void };
  /** The target's text the spans index into. */
  text: string;
  spans: HighlightSpan[];
  envelope: unknown;
  unobserve: () => void;
}

/** One page's checks: capture, confirm, send through the background, draw, keep in sync. */
export class PageSession {
  readonly #toast = new Toast();
  readonly #card = new Card();
  /** Operation ids by what was asked, so a retry of the same check is never charged twice. */
  readonly #operationIds = new Map<string, string>();
  #drawn: DrawnCheck | undefined;
  /** Pending animation frames, one per kind of work, so one never cancels the other. */
  readonly #frames = { resync: 0, card: 0 };
  #pointer = { x: 0, y: 0 };

  async run(product: ProductName): Promise<void> {
    const settings = await getSettings();
    if (isSiteDisabled(settings, location.hostname)) {
      this.#toast.show(`Redline is off for ${location.hostname}.`, { note: 'Turn it back on from the toolbar popup.', actions: [this.#dismiss()] });
      return;
    }
    const target = findTarget();
    if (!target) {
      this.#toast.show('Click into a text field or editor, or select some text, then try again.', {
        note: 'Password, hidden and read-only fields are never read.',
        actions: [this.#dismiss()],
      });
      return;
    }
    const text = target.readText();
    if (!text.trim()) {
      this.#toast.show('There is no text to check here yet.', { actions: [this.#dismiss()] });
      return;
    }
    const words = countWords(text);
    if (words > settings.confirmAboveWords && !(await this.#confirm(product, words))) return;
    await this.#send(product, target, text, words, settings);
  }

  async #send(product: ProductName, target: Target, text: string, words: number, settings: Settings): Promise<void> {
    const variant = product === 'detector' ? settings.defaultVersion : product === 'humanizer' ? settings.defaultModel : '';
    const fingerprint = `${product}\n${variant}\n${text}`;
    const operationId = this.#operationIds.get(fingerprint) ?? crypto.randomUUID();
    this.#operationIds.set(fingerprint, operationId);

    const label = `${PRODUCT_LABEL[product]}: ${words.toLocaleString()} word${words === 1 ? '' : 's'}…`;
    this.#toast.show(label, { tick: (seconds) => `${label} ${seconds} s` });
    const request: CheckRequest = {
      type: 'check',
      product,
      operationId,
      text,
      words,
      ...(product === 'detector' ? { version: settings.defaultVersion } : {}),
      ...(product === 'humanizer' ? { model: settings.defaultModel } : {}),
    };
    let reply: CheckReply;
    try {
      reply = (await browser.runtime.sendMessage(request)) as CheckReply;
    } catch {
      reply = { ok: false, error: { code: 'extension_reloaded', message: 'The extension was updated or restarted. Reload this page and try again.' } };
    }
    if (!reply.ok) return this.#showError(reply.error, () => void this.#send(product, target, text, words, settings));
    this.#showResult(product, target, text, reply.response);
  }

  #showResult(product: ProductName, target: Target, text: string, envelope: unknown): void {
    const review = { label: 'Review in side panel', primary: true, run: () => void browser.runtime.sendMessage({ type: 'open-panel' }).catch(() => {}) };
    if (product === 'humanizer') {
      this.#toast.show('The rewrite is ready.', { note: 'Review it in the side panel before using it.', actions: [review, this.#dismiss()] });
      return;
    }
    const spans = product === 'detector' ? aiSpans(text, envelope as DetectEnvelope) : sourceSpans(text, envelope as PlagiarismEnvelope);
    this.#draw({ product, target, text, spans, envelope });
    if (product === 'detector') {
      const percentage = (envelope as DetectEnvelope).result.data.details.ai_percentage;
      this.#toast.show(`${spans.length} sentence${spans.length === 1 ? '' : 's'} labelled AI · ${percentage}% of the characters`, {
        note: PROBABILISTIC_NOTE,
        actions: [review, this.#dismiss()],
      });
    } else {
      const score = (envelope as PlagiarismEnvelope).result.result.plagiarism_score;
      this.#toast.show(`${spans.length} sentence${spans.length === 1 ? '' : 's'} with a similar source · ${score}% of the characters`, {
        note: 'No match is not proof of originality: the check is not exhaustive.',
        actions: [review, this.#dismiss()],
      });
    }
  }

  #draw(check: Omit<DrawnCheck, 'highlighter' | 'unobserve'>): void {
    this.clear();
    const highlighter =
      check.target.kind === 'field' ? new FieldHighlighter(check.target as never) : new DomHighlighter(check.target as never);
    const drawn: DrawnCheck = { ...check, highlighter, unobserve: () => {} };
    drawn.unobserve = check.target.observe(() => this.#schedule('resync', () => this.#resync()));
    this.#drawn = drawn;
    highlighter.draw(drawn.spans);
    document.addEventListener('mousemove', this.#onPointer, { passive: true });
    document.addEventListener('selectionchange', this.#onCaret);
    check.target.element.addEventListener('keyup', this.#onCaret);
    check.target.element.addEventListener('focusin', this.#onCaret);
  }

  /** The text changed: move spans with it, drop the ones the edit touched. */
  #resync(): void {
    const drawn = this.#drawn;
    if (!drawn) return;
    const text = drawn.target.readText();
    if (text === drawn.text) return;
    drawn.spans = remapSpans(drawn.text, text, drawn.spans);
    drawn.text = text;
    drawn.highlighter.draw(drawn.spans);
    this.#card.hide();
  }

  #schedule(kind: 'resync' | 'card', work: () => void): void {
    cancelAnimationFrame(this.#frames[kind]);
    this.#frames[kind] = requestAnimationFrame(work);
  }

  readonly #onPointer = (event: MouseEvent) => {
    this.#pointer = { x: event.clientX, y: event.clientY };
    this.#schedule('card', () => this.#updateCard(this.#drawn?.highlighter.spanAtPoint(this.#pointer.x, this.#pointer.y)));
  };

  readonly #onCaret = () => {
    this.#schedule('card', () => this.#updateCard(this.#drawn?.highlighter.spanAtCaret()));
  };

  #updateCard(span: HighlightSpan | undefined): void {
    const drawn = this.#drawn;
    const rect = span && drawn?.highlighter.rectOf(span);
    if (!span || !drawn || !rect) return this.#card.hide();
    if (span.kind === 'ai') {
      this.#card.show(span, rect, {
        title: 'Labelled AI by the detector',
        detail: `Score ${formatScore(span.score)}: the detector's confidence for this sentence (above 0.5 is labelled AI).`,
        note: PROBABILISTIC_NOTE,
      });
    } else {
      const match = matchAt(drawn.envelope as PlagiarismEnvelope, span.index);
      this.#card.show(span, rect, {
        title: `Similar source (${Math.round(span.score * 100)}% similar)`,
        detail: `“${match?.web_sentence ?? ''}” (${hostOf(match?.link)})`,
        note: 'A match needs human review: quotation, permission and common phrasing change its meaning.',
      });
    }
  }

  /** From the side panel: scroll to a result item and select it, if it is still in the text. */
  reveal(index: number): boolean {
    const drawn = this.#drawn;
    const span = drawn?.spans.find((candidate) => candidate.index === index);
    if (!drawn || !span) {
      this.#toast.show('That sentence has changed since the check.', { note: 'Check again to see its current result.', actions: [this.#dismiss()] });
      return false;
    }
    drawn.highlighter.select(span);
    return true;
  }

  clear(): void {
    const drawn = this.#drawn;
    if (!drawn) return;
    drawn.unobserve();
    drawn.highlighter.clear();
    drawn.highlighter.dispose?.();
    document.removeEventListener('mousemove', this.#onPointer);
    document.removeEventListener('selectionchange', this.#onCaret);
    drawn.target.element.removeEventListener('keyup', this.#onCaret);
    drawn.target.element.removeEventListener('focusin', this.#onCaret);
    this.#card.hide();
    this.#drawn = undefined;
  }

  #confirm(product: ProductName, words: number): Promise<boolean> {
    const balance = { detector: 'detector', humanizer: 'humanizer', plagiarism: 'plagiarism checker' }[product];
    return new Promise((resolve) => {
      this.#toast.show(`This check uses ${words.toLocaleString()} words of the team's ${balance} balance.`, {
        note: 'Words are counted as whitespace-separated words, as the service charges them.',
        actions: [
          { label: 'Check', primary: true, run: () => resolve(true) },
          { label: 'Cancel', run: () => (this.#toast.hide(), resolve(false)) },
        ],
      });
    });
  }

  #showError(error: CheckError, retry: () => void): void {
    const retryAction = { label: 'Retry', primary: true, run: retry };
    const details: string[] = [];
    if (error.remainingWords !== undefined) details.push(`${error.remainingWords.toLocaleString()} words remain`);
    const note = details.length ? details.join(' · ') : error.code === 'bff_unreachable' || error.code === 'not_configured' ? 'Open the extension options to set the BFF address and token.' : undefined;
    if (error.retryAfterSeconds) {
      const wait = error.retryAfterSeconds;
      const countdown = (seconds: number) => (seconds < wait ? `${error.message} Retry in ${wait - seconds} s.` : undefined);
      this.#toast.show(countdown(0)!, { error: true, note, tick: countdown, actions: [retryAction, this.#dismiss()] });
      return;
    }
    const retryable = !['quota_exceeded', 'no_subscription', 'member_budget_exceeded', 'result_expired'].includes(error.code);
    this.#toast.show(error.message, { error: true, note, actions: retryable ? [retryAction, this.#dismiss()] : [this.#dismiss()] });
  }

  #dismiss() {
    return { label: 'Dismiss', run: () => this.#toast.hide() };
  }
}

function hostOf(link: string | undefined): string {
  try {
    return new URL(link ?? '').hostname;
  } catch {
    return 'unknown source';
  }
}
