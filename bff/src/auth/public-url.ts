import type { IncomingMessage } from 'node:http';
import type { BffConfig } from '../config.ts';

/**
 * The address clients use to reach this BFF: BFF_PUBLIC_URL, or the address it listens on.
 * Tokens are bound to `<public URL>/mcp`, so behind a proxy BFF_PUBLIC_URL must be set. The
 * listening port is read from the first request's socket (the server may listen on port 0).
 */
export function publicUrlResolver(config: Pick<BffConfig, 'publicUrl' | 'host'>): (req: IncomingMessage) => URL {
  let resolved: URL | undefined = config.publicUrl ? new URL(config.publicUrl) : undefined;
  return (req) => {
    if (!resolved) {
      const host = config.host.includes(':') ? `[${config.host}]` : config.host;
      resolved = new URL(`http://${host}:${req.socket.localPort}/`);
    }
    return resolved;
  };
}

/** The MCP endpoint's URL: the resource that OAuth access tokens are bound to (RFC 8707). */
export const mcpResourceUrl = (publicUrl: URL) => new URL('mcp', publicUrl);

/** Where the protected-resource metadata of the MCP endpoint lives (RFC 9728, path-inserted). */
export const protectedResourceMetadataUrl = (publicUrl: URL) => new URL('/.well-known/oauth-protected-resource/mcp', publicUrl);

/** The /v1 API's URL: the resource the browser extension's OAuth access tokens are bound to. */
export const apiResourceUrl = (publicUrl: URL) => new URL('v1', publicUrl);

export const apiProtectedResourceMetadataUrl = (publicUrl: URL) => new URL('/.well-known/oauth-protected-resource/v1', publicUrl);
