import { browser } from 'wxt/browser';
import { countWords, hasReadableText } from '@redline/shared/text';
import type { ApplyOutcome, CheckError, CheckReply, CheckRequest, ProductName } from '../messages.ts';
import { formatScore } from '../format.ts';
import { DETECTOR_VERSION, getSettings, isSiteDisabled, type Settings } from '../settings.ts';
import { askPage } from '../page/bridge.ts';
import { SIGNALS_NOT_PROOF, bandRange, documentVerdict, roundedShare, scoreBand } from '../verdict.ts';
import type { applyVerified } from './apply.ts';
import { APPLY_LIMITS, type ApplyLimits } from './apply-limits.ts';
import { selectText } from './select.ts';
import { Card, type CardAction, type DiffPart } from './card.ts';
import { documentKey, ignoredSentences, sentenceKey, setIgnored } from './ignored.ts';
import { onDemand } from './on-demand.ts';
import { loadExtractor, pageTarget, type PageTarget } from './page.ts';
import { SOURCE_HIGHLIGHT, aiLevel } from './styles.ts';
import { DomHighlighter, type HighlightSpan, type Highlighter } from './highlighters.ts';
import { CODE_EDITOR } from './editors.ts';
import { CodeEditorHighlighter } from './code-editor-highlighter.ts';
import type { FieldHighlighter } from './field-highlighter.ts';
import { LiveDomText, liveText, type LiveText } from './live-text.ts';
import { measured } from './perf.ts';
import { diffText, remapSpans, type Span } from './remap.ts';
import { aiSpans, matchAt, sourceSpans, type DetectEnvelope, type PlagiarismEnvelope } from './results.ts';
import { deepActiveElement, findTarget, focusEditor, isClosedComponent, isEditable, isInCodeEditor, type DomTarget, type FieldTarget, type Target, type ValueTarget } from './target.ts';
import { Toast } from './toast.ts';
import { TypingBurst } from './typing-burst.ts';

const INTERRUPTED = 'You typed in the page while the rewrite was going in, so Redline stopped and left this sentence as it was. Accept again when you are ready.';
const LOCKED = 'The page has made this text read-only for now, so nothing was changed. When you can edit it again, accept again.';
const EMBEDDED = 'The words this rewrite changes hold an image, an embedded item or a mention, which replacing them would remove, so nothing was replaced. Edit the sentence by hand.';
const OVERLAPPED = 'Text was typed in this sentence, by you or a co-author, while the rewrite was going in. Redline left the text as it is: check the sentence.';
/**
 * How long the writer pauses before a burst of typing in an editor is followed (spans remapped,
 * dropped spans withdrawn, the card checked). Until then the browser moves the highlights.
 */
const TYPING_PAUSE_MS = 250;
const PRODUCT_LABEL: Record<ProductName, string> = { detector: 'Checking for AI writing', humanizer: 'Humanizing', plagiarism: 'Checking sources' };

/**
 * `lead` and `trail`: for a suggestion, the characters just before and after its sentence when
 * it was made. A rewrite is written for its place (it starts a sentence, it ends one); once the
 * writer changed what is around it (deleted the full stop before it), it no longer fits.
 */
type TrackedSpan = Span & { index: number; lead?: string; trail?: string };

/** Whether the text around a suggestion is still what it was written for. */
function fitsItsPlace(text: string, span: TrackedSpan): boolean {
  if (span.lead === undefined || span.trail === undefined) return true;
  return text.slice(Math.max(0, span.start - span.lead.length), span.start) === span.lead && text.slice(span.end, span.end + span.trail.length) === span.trail;
}

/** The textarea highlighter, once loaded (on-demand.ts: it is only needed where a field is checked). */
let Mirror: typeof FieldHighlighter | undefined;

interface Prepared {
  target: Target;
  mirror?: FieldHighlighter;
  live?: LiveDomText;
}

function disposePrepared(prepared: Prepared | undefined): void {
  prepared?.mirror?.dispose();
  prepared?.live?.dispose();
}

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
  /** Items the writer ignored in this document: not drawn, not counted. */
  ignored: { index: number; span: TrackedSpan; text: string }[];
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
  /**
   * Work due soon, one per kind, so one never cancels the other; a burst of events asks once
   * and later calls only replace the work. Following an edit is due in the next animation
   * frame (the edit's own frame, so highlights never lag the text). The card is due in the
   * next task, not a frame: a frame requested for it after the edit's frame is one more full
   * rendering update (style, paint, commit), and a keystroke's selectionchange and keyup
   * came after its frame, so each keystroke cost three frames instead of one. For the same
   * reason the card is hidden only when shown: setting `hidden` again invalidates style.
   */
  readonly #due: Record<'resync' | 'card', (() => void) | undefined> = { resync: undefined, card: undefined };
  /**
   * Typing is followed once per burst, when the writer pauses or the caret goes elsewhere, as
   * long as the highlights stay right meanwhile (Highlighter.holdEdit: CSS highlights are live
   * ranges; a textarea's mirror hides the marks an edit can move). Per keystroke, following the
   * edit, patching the mirror and checking the card cost about 1 ms of script and layout.
   */
  readonly #burst = new TypingBurst(TYPING_PAUSE_MS, () => this.#afterBurst());
  /** A card opened by the pointer closes a moment after the pointer leaves, so it can be reached. */
  #cardHide: ReturnType<typeof setTimeout> | undefined;
  /** The item the card is about. */
  #cardItem: { product: ProductName; index: number } | undefined;
  /** The item whose card was just closed: the caret resting in it does not open it again. */
  #dismissed: string | undefined;
  /** Where the writer was before the keyboard went into the card, to go back there. */
  #returnTo: { element: HTMLElement; range?: Range } | undefined;
  /** The side panel hears which items are still live when the page is idle, once per burst of edits that dropped one. */
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
  #accepted = new Map<number, { span: Span; original: string; replacement: string }>();
  /** Accepted suggestions the writer took back with the editor's own undo: pending again, the panel hears. */
  #undone = new Set<number>();
  /** The accepted suggestion the panel's Undo is putting back: not the editor's undo. */
  #undoing: number | undefined;
  /**
   * What the last check's first draw needs, made ready while the check runs: a field's mirror
   * (see FieldHighlighter.prepare), an editor's text model (kept current from its mutations).
   */
  #prepared: Prepared | undefined;

  async run(product: ProductName): Promise<void> {
    const settings = await getSettings();
    if (isSiteDisabled(settings, location.hostname)) {
      this.#toast.show(`Redline is off for ${location.hostname}.`, { note: 'Turn it back on from the toolbar popup.', actions: [this.#dismiss()] });
      return;
    }
    const target = findTarget();
    // findTarget finds nothing in a code editor whose API the page-world script cannot reach (or a read-only one).
    if (!target && isInCodeEditor(deepActiveElement())) {
      this.#toast.show('Redline cannot read this code editor: it draws its own text, and it is read-only or this page keeps it out of reach of extensions.', {
        note: 'Copy the text into a text field to check it there.',
        actions: [this.#dismiss()],
      });
      return;
    }
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
    // Spaces and invisible characters (zero-width spaces, say) alone are nothing to check, and the BFF refuses them.
    if (!hasReadableText(text)) {
      this.#toast.show('There is no text to check here yet.', { actions: [this.#dismiss()] });
      return;
    }
    const words = countWords(text);
    if (words > settings.confirmAboveWords && !(await this.#confirm(product, words, target))) return;
    await this.#send(product, target, text, words, settings);
  }

  /**
   * Check this page: the main text of the page being read (Readability), checked for AI
   * writing and highlighted in place. The page's DOM is not changed.
   */
  async checkPage(): Promise<void> {
    const settings = await getSettings();
    if (isSiteDisabled(settings, location.hostname)) {
      this.#toast.show(`Redline is off for ${location.hostname}.`, { note: 'Turn it back on from the toolbar popup.', actions: [this.#dismiss()] });
      return;
    }
    this.#toast.show('Finding the main text of this page…');
    let target: PageTarget | undefined;
    try {
      const article = (await loadExtractor())(document);
      target = article && pageTarget(article);
    } catch {
      target = undefined;
    }
    const text = target?.readText() ?? '';
    if (!target || !hasReadableText(text)) {
      this.#toast.show('Redline could not find the main text of this page.', {
        note: 'Select the text you want to check and use “Check for AI writing” instead.',
        actions: [this.#dismiss()],
      });
      return;
    }
    const words = countWords(text);
    if (words > settings.confirmAboveWords && !(await this.#confirm('detector', words, target, `Check the main text of “${target.title}” (${words.toLocaleString()} words)?`))) return;
    await this.#send('detector', target, text, words, settings);
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
    const variant = product === 'detector' ? DETECTOR_VERSION : product === 'humanizer' ? settings.defaultModel : '';
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
      ...(product === 'detector' ? { version: DETECTOR_VERSION } : {}),
      ...(product === 'humanizer' ? { model: settings.defaultModel } : {}),
      editor: { name: target.family.name, ...undoOf(target) },
      ...(target.kind === 'page' ? { scope: 'page' as const, title: (target as PageTarget).title.slice(0, 300) } : {}),
    };
    const sent = browser.runtime.sendMessage(request) as Promise<CheckReply>;
    // Without it the first draw only costs more; a reloaded extension is reported by the check itself.
    const prepared = product !== 'humanizer' ? await this.#prepare(target).catch(() => undefined) : undefined;
    let reply: CheckReply;
    try {
      reply = await sent;
    } catch {
      reply = { ok: false, error: connectionLost() };
    }
    if (reply.operationId) this.#operationIds.set(fingerprint, reply.operationId);
    if (!reply.ok) {
      if (prepared) disposePrepared(this.#takePrepared(target));
      return this.#showError(reply.error, () => void this.#send(product, target, text, words, settings));
    }
    await this.#showResult(product, target, text, reply);
  }

  async #showResult(product: ProductName, target: Target, text: string, reply: CheckReply & { ok: true }): Promise<void> {
    const review = { label: 'Review in side panel', primary: true, run: () => void browser.runtime.sendMessage({ type: 'open-panel' }).catch(() => {}) };
    const envelope = reply.response;
    if (product === 'humanizer') {
      const suggestions = reply.suggestions ?? [];
      const spans = suggestions.map((span) => ({ ...span, lead: text.slice(Math.max(0, span.start - 2), span.start), trail: text.slice(span.end, span.end + 1) }));
      this.#track({ product, target, text, spans, envelope, ignored: [] });
      // Accepting comes next: the apply is loaded now, not while the writer waits on it.
      void onDemand('apply').catch(() => {});
      this.#toast.show(`The rewrite is ready: ${suggestions.length} suggestion${suggestions.length === 1 ? '' : 's'}.`, {
        note: 'Review each one in the side panel: check meaning, facts, names, links, tone and required terms.',
        actions: [review, this.#dismiss()],
      });
      return;
    }
    const found = product === 'detector' ? aiSpans(text, envelope as DetectEnvelope) : sourceSpans(text, envelope as PlagiarismEnvelope);
    // Sentences the writer ignored in this document before stay out of the highlights and counts.
    const ignoredKeys = await ignoredSentences(documentKey()).catch(() => new Set<string>());
    const ignored = found.filter((span) => ignoredKeys.has(sentenceKey(text.slice(span.start, span.end)))).map((span) => ({ index: span.index, span, text: text.slice(span.start, span.end) }));
    const spans = ignored.length ? found.filter((span) => !ignored.some((item) => item.span === span)) : found;
    this.#track({ product, target, text, spans, envelope, ignored });
    if (ignored.length) this.#noticeIgnored(this.#tracked.get(product)!);
    if (product === 'detector') this.#showDetection(this.#tracked.get('detector')!);
    else {
      const score = (envelope as PlagiarismEnvelope).result.result.plagiarism_score;
      // Offline, the team server searched only its own folder of sources (README, "Source check").
      const offline = (envelope as PlagiarismEnvelope).source === 'offline';
      const where = offline ? "in your team server's own source folder (offline mode: no web search)" : 'found online';
      this.#toast.show(`${spans.length} sentence${spans.length === 1 ? '' : 's'} with a similar source`, {
        detail: `${roundedShare(score)} of the text is similar to sources ${where}${ignored.length ? ` · ${ignored.length} ignored on this page` : ''}.`,
        note:
          offline
            ? 'No match is not proof of originality: offline, only the sources your team added were searched.'
            : 'No match is not proof of originality: the check is not exhaustive.',
        legend: true,
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
    const verdict = `${documentVerdict(details.ai_percentage).label}: ${roundedShare(details.ai_percentage)} of the text`;
    const checked = tracked.target.kind === 'page' ? `Checked the main text of “${(tracked.target as PageTarget).title}” (${countWords(tracked.text).toLocaleString()} words). ` : '';
    const ignored = tracked.ignored.length ? ` · ${tracked.ignored.length} ignored on this page` : '';
    if (!details.chunks?.length) {
      this.#toast.show(verdict, {
        detail: `${checked}Nothing is highlighted: this result has no per-sentence labels, only the share labelled AI in the whole text.`,
        note: SIGNALS_NOT_PROOF,
        actions: [review, this.#dismiss()],
        topic: 'detector',
      });
      return;
    }
    // An editor that draws its own text over a hidden field, and marks nothing through an API we know: a mirror of that field shows nothing.
    const unseen = tracked.target.kind === 'field' && mirrored(tracked.target) && !shownOnPage(tracked.target.element);
    const drawn = unseen
      ? ` labelled AI: this editor shows its text over a hidden field, so ${count === 1 ? 'it cannot be' : 'they cannot be'} highlighted here (see the side panel)`
      : ` labelled AI ${count === 1 ? 'is' : 'are'} highlighted`;
    // Offline, the team server's built-in analyzer answered: a rougher first pass than the service (README, "Detector").
    const offline = (tracked.envelope as DetectEnvelope).source === 'offline' ? ' Offline mode: your team server’s built-in analyzer, a rough first pass.' : '';
    this.#toast.show(`${verdict} is in sentences labelled AI`, {
      detail: `${checked}${count.toLocaleString()} sentence${count === 1 ? '' : 's'}${drawn}${ignored}${tracked.edited ? ' (as checked; edited since)' : ''}.`,
      note: `${SIGNALS_NOT_PROOF}${offline}`,
      legend: true,
      actions: [review, this.#dismiss()],
      topic: 'detector',
    });
  }

  #track(check: Omit<Tracked, 'highlighter' | 'live' | 'unobserve'>): void {
    // The whole first draw, reading the target's text model included.
    measured('redline:draw', () => this.#trackAndDraw(check));
  }

  #trackAndDraw(check: Omit<Tracked, 'highlighter' | 'live' | 'unobserve'>): void {
    this.#untrack(check.product);
    const prepared = this.#takePrepared(check.target);
    const live = prepared?.live ?? liveText(check.target);
    // The text may have changed while the check ran: start from the text as it is now.
    const current = live.text();
    if (current !== check.text) check = { ...check, spans: remapSpans(check.text, current, check.spans), text: current };
    let highlighter: Tracked['highlighter'];
    if (check.product !== 'humanizer') {
      const kind = check.product === 'detector' ? 'ai' : 'source';
      highlighter =
        check.target.kind !== 'field'
          ? new DomHighlighter(check.target as DomTarget, kind, live as LiveDomText)
          : mirrored(check.target)
            ? (prepared?.mirror ?? (Mirror && new Mirror(check.target as FieldTarget)))
            : new CodeEditorHighlighter(check.target as ValueTarget, kind);
      highlighter?.draw(check.spans as HighlightSpan[]);
    }
    const tracked: Tracked = { ...check, highlighter, live, unobserve: () => {} };
    tracked.unobserve = live.observe(() => this.#onEdit(tracked));
    this.#tracked.set(check.product, tracked);
    if (highlighter) {
      document.addEventListener('mousemove', this.#onPointer, { passive: true });
      document.addEventListener('pointerdown', this.#onPointerDown, { passive: true });
      document.addEventListener('selectionchange', this.#onCaret);
      document.addEventListener('keydown', this.#onKey, { capture: true });
      document.addEventListener('scroll', this.#onScroll, { capture: true, passive: true });
      // Chromium fires selectionchange on the document for a field's caret moves too (checked with
      // Debian's Chromium 156); in Firefox a field's keyup stays the sure signal. Elsewhere a keyup
      // listener would only cost a call into the extension per keystroke.
      if (check.target.kind === 'field' && import.meta.env.FIREFOX) check.target.element.addEventListener('keyup', this.#onCaret);
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
          if (tracked.target.kind !== 'field' || tracked.highlighter?.stale?.()) tracked.highlighter?.draw(tracked.spans as HighlightSpan[]);
          continue;
        }
        const edit = diffText(tracked.text, text);
        const countBefore = tracked.spans.length;
        const editedBefore = tracked.edited === true;
        tracked.spans = remapSpans(tracked.text, text, tracked.spans, edit);
        if (tracked.product === 'humanizer') this.#remapAccepted(tracked, tracked.text, text, edit);
        tracked.text = text;
        tracked.edited = true;
        const count = tracked.spans.length;
        tracked.highlighter?.draw(tracked.spans as HighlightSpan[], edit);
        // The toast's figures changed: a new count, or the first edit since the check. Rebuilding
        // it on every keystroke would restyle it and repeat its live region to screen readers.
        if (tracked.product === 'detector' && this.#toast.topic === 'detector' && (count !== countBefore || !editedBefore)) this.#showDetection(tracked);
        // Edits only ever drop spans: the side panel needs to hear only when one was dropped.
        if (count !== countBefore) this.#noticeLive();
      }
      if (this.#cardItem || this.#card.visible) this.#refreshCard();
    });
  }

  /**
   * The target's text changed. The writer's typing waits for the burst's end where what is drawn
   * stays right meanwhile; anything else (a page that changes by itself, a collaborator's or a
   * script's edit elsewhere, an editor replacing nodes; results without highlights, for which
   * no caret listener would end a burst) is followed in this frame.
   */
  #onEdit(tracked: Tracked): void {
    const writing = tracked.target.kind !== 'page' && caretReadable(tracked.target) && tracked.target.element.contains(deepActiveElement());
    const caretWatched = [...this.#tracked.values()].some((other) => other.highlighter);
    if (!writing || !caretWatched) return this.#schedule('resync', () => this.#resync());
    const started = this.#burst.edited();
    // The writer is typing: a card the caret opened would sit over the text, and its sentence may be the one edited.
    if (started && !this.#card.pinned && !this.#card.hasFocus()) this.#hideCard();
    if (tracked.highlighter && !tracked.highlighter.holdEdit?.()) this.#schedule('resync', () => this.#resync());
  }

  #afterBurst(): void {
    // An apply under way resyncs when it is done (#applyRange).
    if (this.#applying) return;
    this.#resync();
    this.#onCaret();
  }

  /** Spans as the text is now, before one is read for an action. */
  #settle(): void {
    if (this.#burst.active) this.#resync();
  }

  /** The page or a container scrolled: the card moves with its sentence, so it never lands on it. */
  readonly #onScroll = () => {
    // With many spans only those around the view are drawn: the text scrolled into view needs its now.
    if (this.#burst.active) this.#burst.end();
    if (this.#cardItem) this.#schedule('card', () => this.#refreshCard());
  };

  /** After the text changed or moved: the card stays with its sentence while the sentence is there and in view. */
  #refreshCard(): void {
    const item = this.#cardItem;
    const tracked = item && this.#tracked.get(item.product);
    const span = tracked?.spans.find((candidate) => candidate.index === item!.index) as HighlightSpan | undefined;
    const rects = span && tracked!.highlighter?.rectsOf(span).filter((rect) => rect.bottom > 0 && rect.top < innerHeight);
    if (span && rects?.length) this.#card.show(`${item!.product}:${item!.index}`, rects, this.#cardContent(tracked!, span));
    else this.#hideCard();
  }

  #noticeIgnored(tracked: Tracked): void {
    void browser.runtime.sendMessage({ type: 'ignored', product: tracked.product, indices: tracked.ignored.map((item) => item.index) }).catch(() => {});
  }

  #noticeLive(): void {
    if (this.#liveNotice) return;
    const notice = () => {
      this.#liveNotice = 0;
      for (const tracked of this.#tracked.values()) {
        const undone = tracked.product === 'humanizer' ? { undone: [...this.#undone] } : {};
        void browser.runtime.sendMessage({ type: 'live', product: tracked.product, indices: tracked.spans.map((span) => span.index), ...undone }).catch(() => {});
      }
    };
    this.#liveNotice = typeof requestIdleCallback === 'function' ? requestIdleCallback(notice, { timeout: 1000 }) : window.setTimeout(notice, 200);
  }

  #schedule(kind: 'resync' | 'card', work: () => void): void {
    const pending = this.#due[kind] !== undefined;
    this.#due[kind] = work;
    if (pending) return;
    const run = () => {
      const due = this.#due[kind];
      this.#due[kind] = undefined;
      due?.();
    };
    if (kind === 'resync') requestAnimationFrame(run);
    else setTimeout(run, 0);
  }

  readonly #onPointer = (event: MouseEvent) => {
    this.#pointer = { x: event.clientX, y: event.clientY };
    if (this.#card.owns(event.target)) return this.#keepCard();
    this.#schedule('card', () => this.#updateCard((highlighter) => highlighter.spanAtPoint(this.#pointer.x, this.#pointer.y), 'pointer'));
  };

  /** A click outside a card in use closes it. */
  readonly #onPointerDown = (event: PointerEvent) => {
    if (this.#card.pinned && !this.#card.owns(event.target)) this.#hideCard();
  };

  readonly #onCaret = () => {
    if (this.#burst.caretMoved()) return;
    this.#schedule('card', () => this.#updateCard((highlighter) => highlighter.spanAtCaret(), 'caret'));
  };

  /** Alt+Enter with the caret in a highlighted sentence: into its card, to act on it by keyboard. */
  readonly #onKey = (event: KeyboardEvent) => {
    if (event.key !== 'Enter' || !event.altKey || event.ctrlKey || event.metaKey || this.#card.hasFocus()) return;
    if (!this.#updateCard((highlighter) => highlighter.spanAtCaret(), 'keyboard')) return;
    event.preventDefault();
    event.stopPropagation();
    const element = event.target instanceof HTMLElement ? event.target : this.#tracked.values().next().value?.target.element;
    const selection = document.getSelection();
    this.#returnTo = element && { element, range: selection?.rangeCount ? selection.getRangeAt(0).cloneRange() : undefined };
    this.#card.focus();
  };

  /** Shows the card for the span `find` gives, if any; true when one is shown. */
  #updateCard(find: (highlighter: Highlighter) => HighlightSpan | undefined, via: 'pointer' | 'caret' | 'keyboard'): boolean {
    // A card in use stays until it is closed.
    if (this.#card.pinned || this.#card.hasFocus()) return !!this.#card.shown;
    // Spans must be where the text is before one is looked up.
    this.#settle();
    for (const tracked of this.#tracked.values()) {
      const span = tracked.highlighter && find(tracked.highlighter);
      const rects = span && tracked.highlighter!.rectsOf(span);
      if (!span || !rects?.length) continue;
      const key = `${tracked.product}:${span.index}`;
      if (via === 'caret' && key === this.#dismissed) return false;
      this.#dismissed = undefined;
      this.#keepCard();
      this.#cardItem = { product: tracked.product, index: span.index };
      this.#card.onClose = () => this.#returnFromCard();
      this.#card.show(key, rects, this.#cardContent(tracked, span), { keyboard: via !== 'pointer' });
      return true;
    }
    if (via === 'caret') this.#dismissed = undefined;
    if (via === 'pointer') {
      // Time to move the pointer from the sentence onto the card.
      this.#cardHide ??= setTimeout(() => this.#hideCard(), 400);
    } else this.#hideCard();
    return false;
  }

  #keepCard(): void {
    clearTimeout(this.#cardHide);
    this.#cardHide = undefined;
  }

  #hideCard(): void {
    this.#keepCard();
    this.#cardItem = undefined;
    // Only when visible: setting `hidden` again invalidates style, a rendering update per keystroke.
    if (this.#card.visible) this.#card.hide();
  }

  /** Back to the text after the card was left with the keyboard. */
  #returnFromCard(): void {
    this.#keepCard();
    if (this.#cardItem) this.#dismissed = `${this.#cardItem.product}:${this.#cardItem.index}`;
    this.#cardItem = undefined;
    const back = this.#returnTo;
    this.#returnTo = undefined;
    if (!back) return;
    back.element.focus({ preventScroll: true });
    if (back.range && !(back.element instanceof HTMLTextAreaElement || back.element instanceof HTMLInputElement)) {
      const selection = document.getSelection();
      selection?.removeAllRanges();
      selection?.addRange(back.range);
    }
  }

  #cardContent(tracked: Tracked, span: HighlightSpan) {
    const common: CardAction[] = [
      { label: 'Ignore', run: () => void this.#ignore(tracked.product, span.index) },
      { label: 'Show in panel', run: () => this.#showInPanel(tracked.product, span.index) },
    ];
    if (span.kind === 'ai') {
      const band = scoreBand(span.score);
      return {
        title: band.label,
        swatch: aiLevel(span.score).name,
        detail: `Labelled AI by the detector. Score ${formatScore(span.score)} of 1 (this colour: ${bandRange(band)}).`,
        note: SIGNALS_NOT_PROOF,
        actions: [{ label: 'Rewrite this sentence', primary: true, run: () => void this.#rewriteSentence(span.index) }, ...common],
      };
    }
    const match = matchAt(tracked.envelope as PlagiarismEnvelope, span.index);
    return {
      title: `Similar source (${Math.round(span.score * 100)}% similar)`,
      swatch: SOURCE_HIGHLIGHT.name,
      detail: `“${match?.web_sentence ?? ''}” (${hostOf(match?.link)})`,
      note: 'A match needs human review: quotation, permission and common phrasing change its meaning.',
      actions: common,
    };
  }

  /** The current span of an item, if the text still holds it. */
  #itemSpan(product: ProductName, index: number): { tracked: Tracked; span: TrackedSpan } | undefined {
    this.#settle();
    const tracked = this.#tracked.get(product);
    const span = tracked?.spans.find((candidate) => candidate.index === index);
    return tracked && span ? { tracked, span } : undefined;
  }

  /** Card: *Rewrite this sentence*. Only the sentence goes to the humanizer; the suggestion is reviewed in the card. */
  async #rewriteSentence(index: number, retryId?: string): Promise<void> {
    const item = this.#itemSpan('detector', index);
    if (!item) return this.#card.status('This sentence changed since the check: check again to rewrite it.');
    const original = item.tracked.text.slice(item.span.start, item.span.end);
    const settings = await getSettings();
    const words = countWords(original);
    const operationId = retryId ?? crypto.randomUUID();
    this.#card.status(`Rewriting this sentence (${words} word${words === 1 ? '' : 's'} of the humanizer balance)…`);
    const request: CheckRequest = { type: 'check', product: 'humanizer', scope: 'sentence', operationId, text: original, words, model: settings.defaultModel };
    let reply: CheckReply;
    try {
      reply = (await browser.runtime.sendMessage(request)) as CheckReply;
    } catch {
      reply = { ok: false, error: connectionLost() };
    }
    // A retry of the same sentence reuses the operation id, so it is never charged twice.
    if (!reply.ok) return this.#card.status(reply.error.message, [{ label: 'Retry', primary: true, run: () => void this.#rewriteSentence(index, operationId) }]);
    const rewrite = ((reply.response as { result?: { humanized_text?: string } }).result?.humanized_text ?? '').trim();
    if (!rewrite || rewrite === original) return this.#card.status('The humanizer left this sentence as it was.');
    const target = item.tracked.target;
    const editable = isEditable(target);
    const copy = { label: 'Copy', run: () => void navigator.clipboard.writeText(rewrite).then(() => this.#card.status('Copied. Paste it where you want it.')).catch(() => this.#card.status('Copying was refused by the page. Select the suggestion and copy it by hand.')) };
    const reject = { label: 'Reject', run: () => this.#card.status('Rejected: the sentence stays as it is.') };
    const [diffWords] = await Promise.all([onDemand<(a: string, b: string) => DiffPart[]>('wordDiff'), onDemand('apply')]);
    this.#card.suggestion(diffWords(original, rewrite), editable ? [{ label: 'Accept', primary: true, run: () => void this.#acceptRewrite(index, original, rewrite) }, reject] : [copy, reject]);
  }

  /** Card: *Accept*: through the same verified apply as the side panel. */
  async #acceptRewrite(index: number, original: string, rewrite: string): Promise<void> {
    const item = this.#itemSpan('detector', index);
    if (!item || item.tracked.text.slice(item.span.start, item.span.end) !== original) {
      return this.#card.status('This sentence changed since the rewrite: nothing was replaced.');
    }
    this.#card.status('Replacing the sentence…');
    const { outcome } = await this.#applyRange(item.tracked, item.span.start, item.span.end, rewrite, APPLY_LIMITS);
    if (outcome === 'applied') {
      this.#hideCard();
      const { acceptIsOneStep, withTypingBefore } = item.tracked.target.family.undo;
      const undo = acceptIsOneStep
        ? 'Undo in the editor (Ctrl+Z) brings the original back.'
        : withTypingBefore
          ? 'Undo in the editor (Ctrl+Z) brings the original back together with what you typed since your last space.'
          : `${item.tracked.target.family.name} does not record this change in its undo history.`;
      this.#toast.show('Sentence replaced with the rewrite.', {
        detail: 'Its highlight is gone until the text is checked again.',
        note: undo,
        actions: [{ label: 'Check again', primary: true, run: () => void this.run('detector') }, this.#dismiss()],
      });
      return;
    }
    const copy = { label: 'Copy the rewrite', run: () => void navigator.clipboard.writeText(rewrite).catch(() => {}) };
    if (outcome === 'refused') this.#card.status('The editor did not take the change, so nothing was changed. The sentence is selected: paste the rewrite over it.', [copy]);
    else if (outcome === 'withdrawn') this.#card.status('This sentence changed since the rewrite: nothing was replaced.');
    else if (outcome === 'interrupted') this.#card.status(INTERRUPTED, [copy]);
    else if (outcome === 'overlapped') this.#card.status(OVERLAPPED, [copy]);
    else if (outcome === 'locked') this.#card.status(LOCKED);
    else if (outcome === 'embedded') this.#card.status(EMBEDDED, [copy]);
    else this.#card.status('The editor changed the text in another way and it could not be undone. Check the sentence in the editor.', [copy]);
  }

  /** Card: *Ignore*: for this document, remembered on this device; the highlight goes and the item is not counted. */
  async #ignore(product: ProductName, index: number, ignore = true): Promise<void> {
    this.#settle();
    const tracked = this.#tracked.get(product);
    if (!tracked) return;
    if (ignore) {
      const span = tracked.spans.find((candidate) => candidate.index === index);
      if (!span) return;
      const text = tracked.text.slice(span.start, span.end);
      await setIgnored(documentKey(), text, true);
      tracked.spans = tracked.spans.filter((candidate) => candidate !== span);
      tracked.ignored.push({ index, span, text });
      this.#hideCard();
      this.#returnFromCard();
    } else {
      const item = tracked.ignored.find((candidate) => candidate.index === index);
      if (!item) return;
      await setIgnored(documentKey(), item.text, false);
      tracked.ignored = tracked.ignored.filter((candidate) => candidate !== item);
      // Highlighted again only where its text still is.
      if (tracked.text.slice(item.span.start, item.span.end) === item.text) tracked.spans = [...tracked.spans, item.span].sort((a, b) => a.start - b.start);
    }
    tracked.highlighter?.draw(tracked.spans as HighlightSpan[]);
    this.#noticeIgnored(tracked);
    this.#toast.show(ignore ? 'Ignored on this page: this sentence is no longer highlighted or counted.' : 'The sentence is highlighted again.', {
      note: ignore ? 'Redline remembers this on this device for this page.' : undefined,
      actions: ignore ? [{ label: 'Undo', primary: true, run: () => void this.#ignore(product, index, false) }, this.#dismiss()] : [this.#dismiss()],
    });
  }

  /** Card: *Show in panel*: opens the side panel at this item. */
  #showInPanel(product: ProductName, index: number): void {
    void browser.runtime.sendMessage({ type: 'open-panel', focus: { product, index } }).catch(() => {});
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
  async apply(index: number, replacement: string, deadline?: number): Promise<ApplyOutcome> {
    const limits = limitsBefore(deadline);
    if (!limits) return 'timeout';
    this.#resync();
    const tracked = this.#tracked.get('humanizer');
    if (!tracked) return 'no-rewrite';
    const span = tracked.spans.find((candidate) => candidate.index === index);
    if (!span || !fitsItsPlace(tracked.text, span)) return 'withdrawn';
    const original = tracked.text.slice(span.start, span.end);
    const { outcome, at } = await this.#applyRange(tracked, span.start, span.end, replacement, limits);
    if (outcome === 'applied') this.#rememberAccepted(index, at, replacement, original);
    return outcome;
  }

  #rememberAccepted(index: number, start: number, replacement: string, original: string): void {
    this.#accepted.set(index, { span: { start, end: start + replacement.length }, original, replacement });
    if (this.#undone.delete(index)) this.#noticeLive();
  }

  /**
   * Follows the accepted suggestions through an edit. One the edit turned back into its
   * original, where it was (the editor's own undo), is a suggestion again: its span is live and
   * the panel hears it is no longer accepted.
   */
  #remapAccepted(tracked: Tracked, before: string, after: string, edit: ReturnType<typeof diffText>): void {
    const entries = [...this.#accepted].map(([index, entry]) => ({ ...entry, ...entry.span, index })).sort((a, b) => a.start - b.start);
    const kept = remapSpans(before, after, entries, edit);
    this.#accepted = new Map(kept.map(({ index, start, end, original, replacement }) => [index, { span: { start, end }, original, replacement }]));
    const dropped = entries.filter((entry) => !this.#accepted.has(entry.index) && entry.index !== this.#undoing);
    const reverted = (some: typeof dropped) => some.reduceRight((text, entry) => text.slice(0, entry.start) + entry.original + text.slice(entry.end), before);
    // All of them at once (one undo of an Accept all that was one edit), else each alone.
    const undone = dropped.length > 1 && reverted(dropped) === after ? [dropped] : dropped.filter((entry) => reverted([entry]) === after).map((entry) => [entry]);
    for (const group of undone) {
      let shift = 0;
      for (const entry of group) {
        const start = entry.start + shift;
        tracked.spans = [...tracked.spans, { index: entry.index, start, end: start + entry.original.length }].sort((a, b) => a.start - b.start);
        this.#undone.add(entry.index);
        shift += entry.original.length - (entry.end - entry.start);
      }
    }
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
    // Only the accepted text, exactly where it was put: anything else would overwrite the writer's later edits.
    if (!accepted || tracked.text.slice(accepted.span.start, accepted.span.end) !== accepted.replacement) {
      this.#accepted.delete(index);
      return 'withdrawn';
    }
    this.#undoing = index;
    const { outcome, at: start } = await this.#applyRange(tracked, accepted.span.start, accepted.span.end, accepted.original, APPLY_LIMITS).finally(() => (this.#undoing = undefined));
    if (outcome === 'applied') {
      this.#accepted.delete(index);
      tracked.spans = [...tracked.spans, { index, start, end: start + accepted.original.length }].sort((a, b) => a.start - b.start);
      this.#noticeLive();
    }
    return outcome;
  }

  /** The outcome, and where the replacement now starts when applied (the writer may have typed before it meanwhile). */
  async #applyRange(tracked: Tracked, start: number, end: number, replacement: string, limits: ApplyLimits): Promise<{ outcome: ApplyOutcome; at: number }> {
    const apply = await onDemand<typeof applyVerified>('apply');
    this.#applying = true;
    let result: Awaited<ReturnType<typeof applyVerified>>;
    try {
      result = await apply(tracked.target, start, end, tracked.text.slice(start, end), replacement, limits);
    } finally {
      this.#applying = false;
      // Also when the apply failed: edits that came meanwhile (a burst that ended) are followed now.
      this.#resync();
    }
    this.lastStrategy = result.status === 'applied' ? result.strategy : undefined;
    if (result.status === 'applied') return { outcome: 'applied', at: result.at };
    return { outcome: result.status === 'stale' ? 'withdrawn' : result.status, at: start };
  }

  /**
   * Accept all: in a plain field, one edit over the span from the first to the last
   * suggestion (the text between them re-inserted as it was), so one undo restores the
   * original. In rich editors each suggestion is its own verified edit, last first, so that
   * formatting between suggestions is left alone.
   */
  async applyAll(items: { index: number; replacement: string }[], deadline?: number): Promise<Record<number, ApplyOutcome>> {
    const outcomes: Record<number, ApplyOutcome> = {};
    const limits = limitsBefore(deadline);
    if (!limits) {
      for (const item of items) outcomes[item.index] = 'timeout';
      return outcomes;
    }
    this.#resync();
    const tracked = this.#tracked.get('humanizer');
    if (!tracked) {
      for (const item of items) outcomes[item.index] = 'no-rewrite';
      return outcomes;
    }
    const found = items
      .map((item) => ({ ...item, span: tracked.spans.find((candidate) => candidate.index === item.index) }))
      .filter((item): item is typeof item & { span: TrackedSpan } => {
        const fits = item.span !== undefined && fitsItsPlace(tracked.text, item.span);
        if (!fits) outcomes[item.index] = 'withdrawn';
        return fits;
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
      const { outcome, at } = await this.#applyRange(tracked, found[0]!.span.start, found.at(-1)!.span.end, combined, limits);
      let shift = at - found[0]!.span.start;
      found.forEach((item, position) => {
        outcomes[item.index] = outcome;
        if (outcome === 'applied') this.#rememberAccepted(item.index, item.span.start + shift, item.replacement, originals[position]!);
        shift += item.replacement.length - (item.span.end - item.span.start);
      });
    } else {
      for (const item of [...found].reverse()) {
        outcomes[item.index] = await this.apply(item.index, item.replacement, deadline);
        // After a change the editor would not take, the rest stay pending rather than pile up.
        if (outcomes[item.index] !== 'applied' && outcomes[item.index] !== 'withdrawn') break;
      }
    }
    return outcomes;
  }

  /** Makes the first draw's work ready while the check runs, so the highlights come at the cost of the view. */
  async #prepare(target: Target): Promise<Prepared> {
    disposePrepared(this.#prepared);
    this.#prepared = undefined;
    let prepared: Prepared;
    if (!mirrored(target)) prepared = { target };
    else if (target.kind === 'field') {
      Mirror ??= await onDemand<typeof FieldHighlighter>('mirror');
      const mirror = new Mirror(target as FieldTarget);
      mirror.prepare();
      prepared = { target, mirror };
    } else prepared = { target, live: new LiveDomText(target as DomTarget) };
    // Another check may have started while the mirror loaded: the last one keeps its own.
    disposePrepared(this.#prepared);
    this.#prepared = prepared;
    return prepared;
  }

  /** What was prepared for this target, if it is the last one prepared; anything else is disposed. */
  #takePrepared(target: Target): Prepared | undefined {
    const prepared = this.#prepared;
    this.#prepared = undefined;
    if (prepared?.target === target) return prepared;
    disposePrepared(prepared);
    return undefined;
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
    if (this.#tracked.size === 0) this.#burst.cancel();
    if (this.#cardItem?.product === product) this.#hideCard();
    if (![...this.#tracked.values()].some((other) => other.highlighter)) {
      document.removeEventListener('mousemove', this.#onPointer);
      document.removeEventListener('pointerdown', this.#onPointerDown);
      document.removeEventListener('selectionchange', this.#onCaret);
      document.removeEventListener('keydown', this.#onKey, { capture: true });
      document.removeEventListener('scroll', this.#onScroll, { capture: true });
      this.#hideCard();
    }
  }

  #confirm(product: ProductName, words: number, target: Target, question?: string): Promise<boolean> {
    const balance = { detector: 'detector', humanizer: 'humanizer', plagiarism: 'plagiarism checker' }[product];
    return new Promise<boolean>((resolve) => {
      this.#toast.show(question ?? `This check uses ${words.toLocaleString()} words of the team's ${balance} balance.`, {
        ...(question ? { detail: `This check uses ${words.toLocaleString()} words of the team's ${balance} balance.` } : {}),
        note: 'Words are counted as whitespace-separated words, as the service charges them.',
        actions: [
          { label: 'Check', primary: true, run: () => resolve(true) },
          { label: 'Cancel', run: () => (this.#toast.hide(), resolve(false)) },
        ],
      });
    }).finally(() => {
      // The answer was a click in the toast: give the editor its focus back.
      if (target.kind !== 'selection' && target.kind !== 'page') focusEditor(target.element, document.getSelection()?.anchorNode ?? undefined);
    });
  }

  #showError(error: CheckError, retry: () => void): void {
    const retryAction = { label: 'Retry', primary: true, run: retry };
    const details: string[] = [];
    if (error.remainingWords !== undefined) details.push(`${error.remainingWords.toLocaleString()} words remain`);
    const note = details.length ? details.join(' · ') : error.code === 'bff_unreachable' || error.code === 'not_configured' ? 'Open the extension options to sign in, or to check the server address.' : undefined;
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

/**
 * The time an apply may take, so that it ends (rolled back if need be) before the panel stops
 * waiting; undefined when that is too soon to start (the command arrived late: a frozen tab).
 */
function limitsBefore(deadline: number | undefined): ApplyLimits | undefined {
  if (deadline === undefined) return APPLY_LIMITS;
  // Left for the frame probe, a rollback and the answer's way back.
  const budgetMs = Math.min(APPLY_LIMITS.budgetMs, deadline - Date.now() - APPLY_LIMITS.frameMs - 3000);
  return budgetMs >= 1000 ? { ...APPLY_LIMITS, budgetMs } : undefined;
}

/**
 * The background did not answer a check. An updated or reloaded extension cuts this page's
 * script off from it (its runtime id gone): only a reload helps. Otherwise the browser stopped
 * the background's service worker mid-check; Retry wakes it and sends the check under its first
 * operation id (kept here, and by the background for a reloaded page), charged once.
 */
const connectionLost = (): CheckError => ({
  code: 'extension_reloaded',
  message: browser.runtime?.id ? 'The extension stopped mid-check. Retry: charged once.' : 'The extension was updated. Reload this page.',
});

/** Whether a field's highlights are drawn in a mirror of it: not for a code editor's hidden textarea, which shows none of its text (the editor marks its own lines). */
function mirrored(target: Target): boolean {
  return target.family !== CODE_EDITOR;
}

/**
 * Whether a burst of typing in the target can be told from a jump of the caret (TypingBurst):
 * the document's selection (and the focused field's) does not show a caret inside a shadow
 * root, nor inside a code editor's own lines.
 */
function caretReadable(target: Target): boolean {
  return target.element.getRootNode() === document && target.family !== CODE_EDITOR;
}

/** Whether a field is drawn where a writer can see it (not an editor's hidden input field). */
function shownOnPage(field: HTMLElement): boolean {
  const rect = field.getBoundingClientRect();
  return rect.width >= 8 && rect.height >= 8 && getComputedStyle(field).opacity !== '0';
}

/** What undo keeps of an accept in this target's editor: for an API-driven family, whether the page-world script reaches its API. */
function undoOf(target: Target) {
  const family = target.family;
  return family.undoWithoutApi && !askPage(target.element, { op: 'probe' }) ? family.undoWithoutApi : family.undo;
}

function hostOf(link: string | undefined): string {
  try {
    return new URL(link ?? '').hostname;
  } catch {
    return 'unknown source';
  }
}
