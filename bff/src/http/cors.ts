import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from '../errors.ts';

/**
 * CORS: only the configured extension origins, matched exactly. Requests without an Origin
 * (curl, server-side clients) are not browser requests and go on. Returns false once it has
 * answered a preflight; throws for an origin that is not allowed.
 */
export function allowOrigin(allowedOrigins: ReadonlySet<string>, req: IncomingMessage, res: ServerResponse): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  if (!allowedOrigins.has(origin)) {
    throw HttpError.of(403, 'origin_not_allowed', `Origin ${origin.slice(0, 100)} is not allowed. Add the extension's exact origin to BFF_ALLOWED_ORIGINS.`);
  }
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Vary', 'Origin');
  // A browser-based MCP client reads the sign-in challenge and sends MCP's own headers.
  res.setHeader('Access-Control-Expose-Headers', 'Retry-After, WWW-Authenticate, Mcp-Session-Id');
  if (req.method !== 'OPTIONS') return true;
  res.setHeader('Access-Control-Allow-Methods', 'GET, POST');
  res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, Mcp-Protocol-Version, Mcp-Session-Id');
  res.setHeader('Access-Control-Max-Age', '600');
  res.statusCode = 204;
  res.end();
  return false;
}
