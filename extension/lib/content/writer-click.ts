/**
 * Runs `run` when the writer clicks `button` (with the pointer, or Enter or Space on it), never
 * when the page's own script does: Redline's cards and toasts are in the page's DOM, in open
 * shadow roots it can reach, and their buttons send text to the BFF, spend words and change
 * the editor. A click made by a script is not trusted (`isTrusted` is false).
 */
export function onWriterClick(button: HTMLButtonElement, run: () => void): void {
  button.addEventListener('click', (event) => {
    if (event.isTrusted) run();
  });
}
