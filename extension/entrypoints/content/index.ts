import { browser } from 'wxt/browser';
import { ContentCommand, isOwnSender } from '../../lib/messages.ts';
import { PageSession } from '../../lib/content/session.ts';

/**
 * Whether this frame is where the user is: it has the focus and has not passed it on to a
 * child frame. With no focus anywhere in the tab (a command from the side panel), the top
 * frame answers.
 */
function holdsFocus(): boolean {
  const inChildFrame = document.activeElement instanceof HTMLIFrameElement || document.activeElement instanceof HTMLFrameElement;
  if (document.hasFocus()) return !inChildFrame;
  return window === window.top;
}

export default defineContentScript({
  matches: ['<all_urls>'],
  runAt: 'document_idle',
  // Editors such as TinyMCE and CKEditor 4 live in iframes.
  allFrames: true,
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
          if (!command.targeted && !holdsFocus()) return undefined;
          void session.run(command.product);
          return Promise.resolve({ ok: true });
        case 'reveal':
          return Promise.resolve({ ok: session.reveal(command.product, command.index) });
        case 'apply':
          return session.apply(command.index, command.replacement).then((outcome) => ({ ok: outcome === 'applied', outcome }));
        case 'apply-all':
          return session.applyAll(command.items).then((outcomes) => ({ ok: true, outcomes }));
        case 'ping':
          return window === window.top ? Promise.resolve({ ok: true, url: location.href }) : undefined;
      }
    });
  },
});
