/** The text of an editor's HTML value, one line per paragraph (for editors whose model is HTML). */
export function htmlText(html: string): string {
  const element = document.createElement('div');
  element.innerHTML = html.replace(/<\/p>\s*<p>/g, '</p>\n<p>');
  return (element.textContent ?? '').replace(/\u00a0/g, ' ');
}
