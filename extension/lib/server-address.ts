const THIS_MACHINE = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Why a server address cannot be used, or undefined: https, or plain http only for a server on
 * this machine. Over plain http on a network the member token goes with every request, and
 * the text with every check, for anyone on the way to read. (The BFF likewise signs in over
 * OAuth on plain http only on a loopback address.)
 */
export function serverAddressProblem(value: string): string | undefined {
  const url = URL.canParse(value.trim()) ? new URL(value.trim()) : undefined;
  if (url?.protocol === 'https:') return undefined;
  if (url?.protocol !== 'http:') return 'Enter the server address, such as https://redline.example.com or http://127.0.0.1:8787.';
  if (THIS_MACHINE.has(url.hostname)) return undefined;
  return `Use https://${url.host}: over plain http anyone on the network could read your token and the text you check. Plain http is only for a server on this machine (127.0.0.1, [::1] or localhost).`;
}
