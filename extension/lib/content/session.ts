import { browser } from 'wxt/browser';
import { countWords } from '@redline/shared/text';
import type { ApplyOutcome, CheckError, CheckReply, CheckRequest, ProductName } from '../messages.ts';
import { formatScore } from '../format.ts';
import { getSettings, isSiteDisabled, type Settings } from '../settings.ts';
import { applyVerified, selectText } from './apply.ts';
import { Card } from './card.ts';
import { DomHighlighter, FieldHighlighter, type HighlightSpan, type Highlighter } from './highlighters.ts';
import { liveText, type LiveDomText, type LiveText } from './live-text.ts';
import { measured } from './perf.ts';
import { diffText, remapSpans, type Span } from './remap.ts';
import { aiSpans, matchAt, sourceSpans, type DetectEnvelope, type PlagiarismEnvelope } from './results.ts';
import { deepActiveElement, findTarget, isClosedComponent, type DomTarget, type FieldTarget, type Target } from './target.ts';
import { Toast } from './toast.ts';

const PROBABILISTIC_NOTE = 'Results are probabilistic review signals, not proof of authorship.';
const PRODUCT_LABEL: Record<ProductName, string> = { detector: 'Checking for AI writing', humanizer: 'Humanizing', plagiarism: 'Checking sources' };

type TrackedSpan = Span & { index: number };

/** A result kept in step with the page: its spans follow the text as it is edited. */
interface Tracked {
  product: ProductName;
  target: Target;
  /** The target's text the spans index into. */
  text: string;
  spans: TrackedSpan[];
  envelope: unknown;
  /** The text changed since the check. */
  edited?: boolean;
  /** Detector and sources draw their spans; a rewrite's suggestions are only tracked. */
  highlighter?: Highlighter & { dispose?: () => void };
  /** The target's current text, kept at the cost of the edits rather than a walk per read. */
  live: LiveText;
  unobserve: () => void;
}

/** One page's checks: capture, confirm, send through the background, draw, keep in sync, apply. */
export class PageSession {
  readonly #toast = new Toast();
  readonly #card = new Card();
  /** Operation ids by what was asked, so a retry of the same check is never charged twice. */
  readonly #operationIds = new Map<string, string>();
  readonly #tracked = new Map<ProductName, Tracked>();
  /** Pending animation frames, one per kind of work, so one never cancels the other. */
  readonly #frames = { resync: 0, card: 0 };
  /** The side panel hears which items are still live when the page is idle, once per burst of edits. */
  #liveNotice = 0;
  #pointer = { x: 0, y: 0 };
  /** While a suggestion is being applied, the text passes through states that are not the writer's. */
  #applying = false;
  /** How the last applied suggestion went in (reported to the panel). */
  lastStrategy: string | undefined;
  /**
   * Accepted suggestions that Undo can still take back: where the accepted text is now and
   * the original it replaced. A span an edit touches is dropped (it was edited since).
   */
  #accepted = new Map<number, { span: Span; original: string }>();

  async run(product: ProductName): Promise<void> {
    const settings = await getSettings();
    if (isSiteDisabled(settings, location.hostname)) {
      this.#toast.show(`Redline is off for ${location.hostname}.`, { note: 'Turn it back on from the toolbar popup.', actions: [this.#dismiss()] });
      return;
    }
    const target = findTarget();
    if (!target && isClosedComponent(deepActiveElement())) {
      this.#toast.show('Redline cannot read this editor: it is inside a closed web component that extensions cannot reach.', {
        note: 'Copy the text into a text field to check it there.',
        actions: [this.#dismiss()],
      });
      return;
    }
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
    if (words > settings.confirmAboveWords && !(await this.#confirm(product, words, target))) return;
    await this.#send(product, target, text, words, settings);
  }

  /** The focus is in a frame that did not answer a command: the extension cannot reach it. */
  unreachableFrame(): void {
    this.#toast.show('Redline cannot reach the editor you are in: it is inside a frame the extension cannot read (one still loading, or one closed to extensions).', {
      note: 'Select the text and use the context menu, or copy it into a text field to check it.',
      actions: [this.#dismiss()],
      error: true,
    });
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
      editor: { name: target.family.name, ...target.family.undo },
    };
    let reply: CheckReply;
    try {
      reply = (await browser.runtime.sendMessage(request)) as CheckReply;
    } catch {
      reply = { ok: false, error: { code: 'extension_reloaded', message: 'The extension was updated or restarted. Reload this page and try again.' } };
    }
    if (!reply.ok) return this.#showError(reply.error, () => void this.#send(product, target, text, words, settings));
    this.#showResult(product, target, text, reply);
  }

  #showResult(product: ProductName, target: Target, text: string, reply: CheckReply & { ok: true }): void {
    const review = { label: 'Review in side panel', primary: true, run: () => void browser.runtime.sendMessage({ type: 'open-panel' }).catch(() => {}) };
    const envelope = reply.response;
    if (product === 'humanizer') {
      const suggestions = reply.suggestions ?? [];
      this.#track({ product, target, text, spans: suggestions, envelope });
      this.#toast.show(`The rewrite is ready: ${suggestions.length} suggestion${suggestions.length === 1 ? '' : 's'}.`, {
        note: 'Review each one in the side panel: check meaning, facts, names, links, tone and required terms.',
        actions: [review, this.#dismiss()],
      });
      return;
    }
    const spans = product === 'detector' ? aiSpans(text, envelope as DetectEnvelope) : sourceSpans(text, envelope as PlagiarismEnvelope);
    this.#track({ product, target, text, spans, envelope });
    if (product === 'detector') this.#showDetection(this.#tracked.get('detector')!);
    else {
      const score = (envelope as PlagiarismEnvelope).result.result.plagiarism_score;
      this.#toast.show(`${spans.length} sentence${spans.length === 1 ? '' : 's'} with a similar source · ${score}% of the characters`, {
        note: 'No match is not proof of originality: the check is not exhaustive.',
        actions: [review, this.#dismiss()],
      });
    }
  }

  /**
   * The detector's figures; the count follows edits (a sentence an edit touched is no longer
   * counted). Versions without sentence labels (v1, v2) show the document's share only.
   */
  #showDetection(tracked: Tracked): void {
    const details = (tracked.envelope as DetectEnvelope).result.data.details;
    const review = { label: 'Review in side panel', primary: true, run: () => void browser.runtime.sendMessage({ type: 'open-panel' }).catch(() => {}) };
    const count = tracked.spans.length;
    const message = details.chunks?.length
      ? `${count} sentence${count === 1 ? '' : 's'} labelled AI · ${details.ai_percentage}% of the characters${tracked.edited ? ' (as checked; edited since)' : ''}`
      : `${details.ai_percentage}% of the characters labelled AI in the whole text`;
    const note = details.chunks?.length ? PROBABILISTIC_NOTE : `This detector version gives no per-sentence labels, so nothing is highlighted; v3 does. ${PROBABILISTIC_NOTE}`;
    this.#toast.show(message, { note, actions: [review, this.#dismiss()], topic: 'detector' });
  }

  #track(check: Omit<Tracked, 'highlighter' | 'live' | 'unobserve'>): void {
    // The whole first draw, reading the target's text model included.
    measured('redline:draw', () => this.#trackAndDraw(check));
  }

  #trackAndDraw(check: Omit<Tracked, 'highlighter' | 'live' | 'unobserve'>): void {
    this.#untrack(check.product);
    const live = liveText(check.target);
    // The text may have changed while the check ran: start from the text as it is now.
    const current = live.text();
    if (current !== check.text) check = { ...check, spans: remapSpans(check.text, current, check.spans), text: current };
    let highlighter: Tracked['highlighter'];
    if (check.product !== 'humanizer') {
      const kind = check.product === 'detector' ? 'ai' : 'source';
      highlighter = check.target.kind === 'field' ? new FieldHighlighter(check.target as FieldTarget) : new DomHighlighter(check.target as DomTarget, kind, live as LiveDomText);
      highlighter.draw(check.spans as HighlightSpan[]);
    }
    const tracked: Tracked = { ...check, highlighter, live, unobserve: () => {} };
    tracked.unobserve = check.target.observe(() => this.#schedule('resync', () => this.#resync()));
    this.#tracked.set(check.product, tracked);
    if (highlighter) {
      document.addEventListener('mousemove', this.#onPointer, { passive: true });
      document.addEventListener('selectionchange', this.#onCaret);
      check.target.element.addEventListener('keyup', this.#onCaret);
      check.target.element.addEventListener('focusin', this.#onCaret);
    }
  }

  /**
   * The target changed: move spans with the text, drop the ones an edit touched, tell the side
   * panel. Highlights are redrawn even when the text is the same, because an editor may have
   * replaced the DOM nodes the old ranges pointed into.
   */
  #resync(): void {
    // A strategy that was tried and rolled back must not withdraw the suggestions it touched.
    if (this.#applying) return;
    measured('redline:update', () => {
      for (const tracked of this.#tracked.values()) {
        const text = tracked.live.text();
        if (text === tracked.text) {
          if (tracked.target.kind !== 'field') tracked.highlighter?.draw(tracked.spans as HighlightSpan[]);
          continue;
        }
        const edit = diffText(tracked.text, text);
        tracked.spans = remapSpans(tracked.text, text, tracked.spans, edit);
        if (tracked.product === 'humanizer') this.#remapAccepted(tracked.text, text, edit);
        tracked.text = text;
        tracked.edited = true;
        tracked.highlighter?.draw(tracked.spans as HighlightSpan[], edit);
        if (tracked.product === 'detector' && this.#toast.topic === 'detector') this.#showDetection(tracked);
        this.#noticeLive();
      }
      this.#card.hide();
    });
  }

  #noticeLive(): void {
    if (this.#liveNotice) return;
    const notice = () => {
      this.#liveNotice = 0;
      for (const tracked of this.#tracked.values()) {
        void browser.runtime.sendMessage({ type: 'live', product: tracked.product, indices: tracked.spans.map((span) => span.index) }).catch(() => {});
      }
    };
    this.#liveNotice = typeof requestIdleCallback === 'function' ? requestIdleCallback(notice, { timeout: 1000 }) : window.setTimeout(notice, 200);
  }

  #schedule(kind: 'resync' | 'card', work: () => void): void {
    cancelAnimationFrame(this.#frames[kind]);
    this.#frames[kind] = requestAnimationFrame(work);
  }

  readonly #onPointer = (event: MouseEvent) => {
    this.#pointer = { x: event.clientX, y: event.clientY };
    this.#schedule('card', () => this.#updateCard((highlighter) => highlighter.spanAtPoint(this.#pointer.x, this.#pointer.y)));
  };

  readonly #onCaret = () => {
    this.#schedule('card', () => this.#updateCard((highlighter) => highlighter.spanAtCaret()));
  };

  #updateCard(find: (highlighter: Highlighter) => HighlightSpan | undefined): void {
    for (const tracked of this.#tracked.values()) {
      const span = tracked.highlighter && find(tracked.highlighter);
      const rect = span && tracked.highlighter!.rectOf(span);
      if (!span || !rect) continue;
      if (span.kind === 'ai') {
        this.#card.show(span, rect, {
          title: 'Labelled AI by the detector',
          detail: `Score ${formatScore(span.score)}: the detector's confidence for this sentence (above 0.5 is labelled AI).`,
          note: PROBABILISTIC_NOTE,
        });
      } else {
        const match = matchAt(tracked.envelope as PlagiarismEnvelope, span.index);
        this.#card.show(span, rect, {
          title: `Similar source (${Math.round(span.score * 100)}% similar)`,
          detail: `“${match?.web_sentence ?? ''}” (${hostOf(match?.link)})`,
          note: 'A match needs human review: quotation, permission and common phrasing change its meaning.',
        });
      }
      return;
    }
    this.#card.hide();
  }

  /** From the side panel: scroll to a result item and select it, if it is still in the text. */
  reveal(product: ProductName, index: number): boolean {
    this.#resync();
    const tracked = this.#tracked.get(product);
    const span = tracked?.spans.find((candidate) => candidate.index === index);
    if (!tracked || !span) {
      this.#toast.show('That sentence has changed since the check.', { note: 'Check again to see its current result.', actions: [this.#dismiss()] });
      return false;
    }
    if (tracked.highlighter) tracked.highlighter.select(span as HighlightSpan);
    else selectText(tracked.target, span.start, span.end, { focus: false })?.scrollIntoView({ block: 'center', behavior: 'instant' });
    return true;
  }

  /** From the side panel: put an accepted suggestion in place of its original sentence(s), verified by reading it back. */
  async apply(index: number, replacement: string): Promise<ApplyOutcome> {
    this.#resync();
    const tracked = this.#tracked.get('humanizer');
    if (!tracked) return 'no-rewrite';
    const span = tracked.spans.find((candidate) => candidate.index === index);
    if (!span) return 'withdrawn';
    const original = tracked.text.slice(span.start, span.end);
    const outcome = await this.#applyRange(tracked, span.start, span.end, replacement);
    if (outcome === 'applied') this.#rememberAccepted(index, span.start, replacement.length, original);
    return outcome;
  }

  #rememberAccepted(index: number, start: number, length: number, original: string): void {
    this.#accepted.set(index, { span: { start, end: start + length }, original });
  }

  #remapAccepted(before: string, after: string, edit: ReturnType<typeof diffText>): void {
    const entries = [...this.#accepted].map(([index, entry]) => ({ ...entry.span, index, original: entry.original })).sort((a, b) => a.start - b.start);
    this.#accepted = new Map(remapSpans(before, after, entries, edit).map(({ index, start, end, original }) => [index, { span: { start, end }, original }]));
  }

  /**
   * From the side panel: put an accepted suggestion's original back, through the same verified
   * path, if the accepted text is still as it was accepted. The suggestion can then be accepted again.
   */
  async undo(index: number): Promise<ApplyOutcome> {
    this.#resync();
    const tracked = this.#tracked.get('humanizer');
    if (!tracked) return 'no-rewrite';
    const accepted = this.#accepted.get(index);
    if (!accepted) return 'withdrawn';
    const outcome = await this.#applyRange(tracked, accepted.span.start, accepted.span.end, accepted.original);
    if (outcome === 'applied') {
      this.#accepted.delete(index);
      const start = accepted.span.start;
      tracked.spans = [...tracked.spans, { index, start, end: start + accepted.original.length }].sort((a, b) => a.start - b.start);
      this.#noticeLive();
    }
    return outcome;
  }

  async #applyRange(tracked: Tracked, start: number, end: number, replacement: string): Promise<ApplyOutcome> {
    this.#applying = true;
    let result: Awaited<ReturnType<typeof applyVerified>>;
    try {
      result = await applyVerified(tracked.target, start, end, tracked.text.slice(start, end), replacement);
    } finally {
      this.#applying = false;
    }
    this.lastStrategy = result.status === 'applied' ? result.strategy : undefined;
    this.#resync();
    return result.status === 'applied' ? 'applied' : result.status === 'stale' ? 'withdrawn' : result.status;
  }

  /**
   * Accept all: in a plain field, one edit over the span from the first to the last
   * suggestion (the text between them re-inserted as it was), so one undo restores the
   * original. In rich editors each suggestion is its own verified edit, last first, so that
   * formatting between suggestions is left alone.
   */
  async applyAll(items: { index: number; replacement: string }[]): Promise<Record<number, ApplyOutcome>> {
    this.#resync();
    const tracked = this.#tracked.get('humanizer');
    const outcomes: Record<number, ApplyOutcome> = {};
    if (!tracked) {
      for (const item of items) outcomes[item.index] = 'no-rewrite';
      return outcomes;
    }
    const found = items
      .map((item) => ({ ...item, span: tracked.spans.find((candidate) => candidate.index === item.index) }))
      .filter((item): item is typeof item & { span: TrackedSpan } => {
        if (!item.span) outcomes[item.index] = 'withdrawn';
        return item.span !== undefined;
      })
      .sort((a, b) => a.span.start - b.span.start);
    if (found.length === 0) return outcomes;
    if (tracked.target.kind === 'field') {
      const text = tracked.text;
      let combined = '';
      found.forEach((item, position) => {
        combined += item.replacement;
        const next = found[position + 1];
        if (next) combined += text.slice(item.span.end, next.span.start);
      });
      const originals = found.map((item) => text.slice(item.span.start, item.span.end));
      const outcome = await this.#applyRange(tracked, found[0]!.span.start, found.at(-1)!.span.end, combined);
      let shift = 0;
      found.forEach((item, position) => {
        outcomes[item.index] = outcome;
        if (outcome === 'applied') this.#rememberAccepted(item.index, item.span.start + shift, item.replacement.length, originals[position]!);
        shift += item.replacement.length - (item.span.end - item.span.start);
      });
    } else {
      for (const item of [...found].reverse()) {
        outcomes[item.index] = await this.apply(item.index, item.replacement);
        // After a change the editor would not take, the rest stay pending rather than pile up.
        if (outcomes[item.index] === 'refused' || outcomes[item.index] === 'unexpected') break;
      }
    }
    return outcomes;
  }

  #untrack(product: ProductName): void {
    const tracked = this.#tracked.get(product);
    if (!tracked) return;
    if (product === 'humanizer') this.#accepted.clear();
    tracked.unobserve();
    tracked.live.dispose();
    tracked.highlighter?.clear();
    tracked.highlighter?.dispose?.();
    tracked.target.element.removeEventListener('keyup', this.#onCaret);
    tracked.target.element.removeEventListener('focusin', this.#onCaret);
    this.#tracked.delete(product);
    if (![...this.#tracked.values()].some((other) => other.highlighter)) {
      document.removeEventListener('mousemove', this.#onPointer);
      document.removeEventListener('selectionchange', this.#onCaret);
      this.#card.hide();
    }
  }

  #confirm(product: ProductName, words: number, target: Target): Promise<boolean> {
    const balance = { detector: 'detector', humanizer: 'humanizer', plagiarism: 'plagiarism checker' }[product];
    return new Promise<boolean>((resolve) => {
      this.#toast.show(`This check uses ${words.toLocaleString()} words of the team's ${balance} balance.`, {
        note: 'Words are counted as whitespace-separated words, as the service charges them.',
        actions: [
          { label: 'Check', primary: true, run: () => resolve(true) },
          { label: 'Cancel', run: () => (this.#toast.hide(), resolve(false)) },
        ],
      });
    }).finally(() => {
      // The answer was a click in the toast: give the editor its focus back.
      if (target.kind !== 'selection') target.element.focus({ preventScroll: true });
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
