import { browser } from 'wxt/browser';
import { ContentCommand, isOwnSender } from '../../lib/messages.ts';
import { PageSession } from '../../lib/content/session.ts';

export default defineContentScript({
  matches: ['<all_urls>'],
  runAt: 'document_idle',
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
          void session.run(command.product);
          return Promise.resolve({ ok: true });
        case 'reveal':
          return Promise.resolve({ ok: session.reveal(command.product, command.index) });
        case 'apply':
          return session.apply(command.index, command.replacement).then((outcome) => ({ ok: outcome === 'applied', outcome }));
        case 'ping':
          return Promise.resolve({ ok: true, url: location.href });
      }
    });
  },
});
