/** The text of an editor's HTML value, one line per paragraph (`<p>` or `<div>`; for editors whose model is HTML). */
export function htmlText(html: string): string {
  const element = document.createElement('div');
  element.innerHTML = html.replace(/<\/(p|div)>\s*<(p|div)>/g, '</$1>\n<$2>');
  return (element.textContent ?? '').replace(/\u00a0/g, ' ');
}
