import { browser } from 'wxt/browser';
import { ContentCommand, isOwnSender } from '../../lib/messages.ts';
import { PageSession } from '../../lib/content/session.ts';

/**
 * Whether this frame is where the user is: it has the focus and has not passed it on to a
 * child frame. With no focus anywhere in the tab (a command from the side panel), the top
 * frame answers.
 */
function focusInChildFrame(): boolean {
  return document.activeElement instanceof HTMLIFrameElement || document.activeElement instanceof HTMLFrameElement;
}

function holdsFocus(): boolean {
  if (document.hasFocus()) return !focusInChildFrame();
  return window === window.top;
}

/** What the frame that acts on a command tells the top frame, so the top knows it was heard. */
const ACTING = 'redline:frame-acting';
const FRAME_ANSWER_MS = 1000;

/**
 * The top frame, when the focus is in a child frame: if no frame says it acts on the command
 * (a cross-origin or sandboxed frame without the content script), the writer is told so.
 */
function expectFrameAnswer(onSilence: () => void): void {
  let heard = false;
  const listen = (event: MessageEvent) => {
    if (event.data === ACTING) heard = true;
  };
  window.addEventListener('message', listen);
  setTimeout(() => {
    window.removeEventListener('message', listen);
    if (!heard) onSilence();
  }, FRAME_ANSWER_MS);
}

export default defineContentScript({
  matches: ['<all_urls>'],
  runAt: 'document_idle',
  // Editors such as TinyMCE and CKEditor 4 live in iframes, often about:blank or about:srcdoc
  // ones, which only these two flags reach.
  allFrames: true,
  matchAboutBlank: true,
  matchOriginAsFallback: true,
  main() {
    // Nothing runs until a command arrives: no timers, no observers while idle.
    let session: PageSession | undefined;
    browser.runtime.onMessage.addListener((raw, sender) => {
      if (!isOwnSender(sender, browser.runtime.id)) return undefined;
      const parsed = ContentCommand.safeParse(raw);
      if (!parsed.success) return undefined;
      const command = parsed.data;
      session ??= new PageSession();
      switch (command.type) {
        case 'run':
          if (!command.targeted && !holdsFocus()) {
            if (window === window.top && document.hasFocus() && focusInChildFrame()) expectFrameAnswer(() => session!.unreachableFrame());
            return undefined;
          }
          if (window !== window.top) window.top?.postMessage(ACTING, '*');
          void session.run(command.product);
          return Promise.resolve({ ok: true });
        case 'reveal':
          return Promise.resolve({ ok: session.reveal(command.product, command.index) });
        case 'apply':
          return session.apply(command.index, command.replacement, command.deadline).then((outcome) => ({ ok: outcome === 'applied', outcome, strategy: session!.lastStrategy }));
        case 'undo':
          return session.undo(command.index).then((outcome) => ({ ok: outcome === 'applied', outcome }));
        case 'apply-all':
          return session.applyAll(command.items, command.deadline).then((outcomes) => ({ ok: true, outcomes }));
        case 'check-page':
          // The page being read is the top frame's document.
          if (window !== window.top) return undefined;
          void session.checkPage();
          return Promise.resolve({ ok: true });
        case 'ping':
          return window === window.top ? Promise.resolve({ ok: true, url: location.href }) : undefined;
      }
    });
  },
});
