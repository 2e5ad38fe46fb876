import { ARTICLE_TITLE, CHROME_TEXTS, EDITOR_NOTE, SECTIONS } from './article-text.ts';

/** A news-style page: the article between navigation, a cookie notice, related links, comments and a footer. */
const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
document.title = `${ARTICLE_TITLE} | The Reading Room`;
// A strict policy for the page's own scripts, as news sites have: the extension's on-demand
// article script must still load.
const policy = document.createElement('meta');
policy.httpEquiv = 'Content-Security-Policy';
policy.content = "script-src 'self'; object-src 'none'";
document.head.append(policy);
document.body.innerHTML = `
  <header><nav aria-label="Sections"><a href="#">${CHROME_TEXTS.nav}</a></nav></header>
  <div class="cookie-banner" role="region" aria-label="Cookies"><p>${CHROME_TEXTS.cookie}</p></div>
  <main>
    <article>
      <h1>${ARTICLE_TITLE}</h1>
      <p class="byline">By the Reading Room editors</p>
      <p class="intro">${escape(EDITOR_NOTE)}</p>
      ${SECTIONS.map((section) => `<h2>${section.heading}</h2>${section.paragraphs.map((paragraph) => `<p>${escape(paragraph)}</p>`).join('')}`).join('')}
    </article>
    <aside class="related"><p>${CHROME_TEXTS.related}</p></aside>
    <section class="comments" aria-label="Comments"><p>${CHROME_TEXTS.comment}</p></section>
  </main>
  <footer><p>${CHROME_TEXTS.footer}</p></footer>`;
