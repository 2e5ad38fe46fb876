/** The text of an editor's HTML value, one line per paragraph (`<p>` or `<div>`; for editors whose model is HTML). */
export function htmlText(html: string): string {
  const element = document.createElement('div');
  element.innerHTML = html.replace(/<\/(p|div)>\s*<(p|div)>/g, '</$1>\n<$2>');
  return (element.textContent ?? '').replace(/\u00a0/g, ' ');
}

/** The text of saved HTML as its app would read it: one line per top-level block. */
export function blockLines(html: string): string {
  const body = new DOMParser().parseFromString(html, 'text/html').body;
  return [...body.children].map((block) => block.textContent).join('\n');
}
