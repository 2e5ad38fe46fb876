/**
 * Why a parsed body is not JSON-RPC 2.0 messages (one, or a non-empty batch), or undefined
 * when it is. JSON-RPC 2.0 section 5.1 answers such a body with -32600 Invalid Request and
 * keeps -32700 Parse error for text that is not JSON; the MCP SDK answers it with -32700, and
 * accepts an empty batch with 202 and no answer at all.
 */
export function notJsonRpc(body: unknown): string | undefined {
  if (!Array.isArray(body)) return isMessage(body) ? undefined : 'the body is not a JSON-RPC 2.0 request, notification or response';
  if (body.length === 0) return 'the batch is empty';
  return body.every(isMessage) ? undefined : 'an element of the batch is not a JSON-RPC 2.0 request, notification or response';
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isId = (value: unknown) => typeof value === 'string' || typeof value === 'number';

function isMessage(value: unknown): boolean {
  if (!isObject(value) || value.jsonrpc !== '2.0') return false;
  if ('method' in value) {
    const params = value.params;
    return typeof value.method === 'string' && (value.id === undefined || isId(value.id)) && (params === undefined || (typeof params === 'object' && params !== null));
  }
  return (isId(value.id) || value.id === null) && ('result' in value) !== ('error' in value);
}
