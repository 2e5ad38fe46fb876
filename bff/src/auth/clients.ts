import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { CustomOAuthError, InvalidClientMetadataError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { HIDDEN_CHARACTER_RULE, hiddenCharacter } from '../hidden-characters.ts';
import { describeError, type Logger } from '../logging.ts';
import { wordAsRead } from '../names-as-read.ts';
import type { OAuthStore } from '../storage/oauth-store.ts';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Why a redirect URI is refused, or undefined when it is allowed: https, or http on a loopback address (native apps, RFC 8252). */
export function redirectUriProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${value.slice(0, 200)} is not a URL`;
  }
  if (url.hash) return `${url.href} must not have a fragment`;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  return `${url.href} must use https (or http on 127.0.0.1, [::1] or localhost for an app on this device)`;
}

/**
 * Whether a client_id can be one this server issued (RFC 6749 appendix A.1: printable ASCII).
 * Anything else is unknown without asking the database, which may refuse it (PostgreSQL
 * cannot store a NUL byte in text).
 */
const isClientId = (value: string) => /^[\x20-\x7E]{1,255}$/.test(value);

/** The consent page shows a client's name to the member and the console to an administrator. */
const MAX_CLIENT_NAME = 200;
const MAX_REDIRECT_URIS = 10;

const REDLINE_AS_READ = wordAsRead('Redline');

/**
 * A browser's redirect URL for an extension (identity.getRedirectURL()): only that extension,
 * installed in the member's own browser, receives what is sent there.
 */
const isExtensionRedirect = (uri: string) => {
  const url = new URL(uri);
  return url.protocol === 'https:' && url.port === '' && /^[a-z0-9]+\.(chromiumapp\.org|extensions\.allizom\.org)$/.test(url.hostname);
};

/** Why a client name cannot be shown to a member as the application asking for access, or undefined. */
export function clientNameProblem(name: string, redirectUris: string[]): string | undefined {
  if (name.length > MAX_CLIENT_NAME) return `client_name may be at most ${MAX_CLIENT_NAME} characters`;
  // U+202E before the redirect host would reverse it on the consent page.
  const hidden = hiddenCharacter(name);
  if (hidden) return `client_name may not contain ${HIDDEN_CHARACTER_RULE}: ${hidden.code} at position ${hidden.index}`;
  // The consent page asks "Allow <name> to use Redline as you?": a name that reads as Redline poses as the server itself.
  if (wordAsRead(name).includes(REDLINE_AS_READ) && !redirectUris.every(isExtensionRedirect)) {
    return 'client_name may not name Redline, the server the member signs in to, except for its browser extension: give your application its own name';
  }
  return undefined;
}

/**
 * Dynamic client registration (RFC 7591) into the ledger. Clients are public: they prove
 * possession with PKCE, so no client secret is issued or stored.
 */
export function clientsStore(store: () => Promise<OAuthStore>, logger: Logger): OAuthRegisteredClientsStore {
  return {
    async getClient(clientId) {
      if (!isClientId(clientId)) return undefined;
      try {
        return (await (await store()).getClient(clientId)) as OAuthClientInformationFull | undefined;
      } catch (error) {
        // The SDK's handlers answer 500 for it without a word in the log.
        logger.error({ error: describeError(error) }, 'could not read an OAuth client');
        throw error;
      }
    },
    async registerClient(client) {
      // Every grant is an authorization code sent to one of them, the extension's link sign-in included.
      if (client.redirect_uris.length === 0) throw new CustomOAuthError('invalid_redirect_uri', 'redirect_uris must list at least one redirect URI');
      if (client.redirect_uris.length > MAX_REDIRECT_URIS) throw new CustomOAuthError('invalid_redirect_uri', `redirect_uris may list at most ${MAX_REDIRECT_URIS} redirect URIs`);
      for (const uri of client.redirect_uris) {
        const problem = redirectUriProblem(uri);
        if (problem) throw new CustomOAuthError('invalid_redirect_uri', problem);
      }
      const nameProblem = client.client_name === undefined ? undefined : clientNameProblem(client.client_name, client.redirect_uris);
      if (nameProblem) throw new InvalidClientMetadataError(nameProblem);
      const grantTypes = client.grant_types ?? ['authorization_code', 'refresh_token'];
      if (grantTypes.some((grant) => grant !== 'authorization_code' && grant !== 'refresh_token')) {
        throw new InvalidClientMetadataError('grant_types may contain only authorization_code and refresh_token');
      }
      if (client.response_types && client.response_types.some((type) => type !== 'code')) {
        throw new InvalidClientMetadataError('response_types may contain only code');
      }
      const { client_secret: _secret, client_secret_expires_at: _expires, ...rest } = client as OAuthClientInformationFull;
      const registered: OAuthClientInformationFull = {
        ...rest,
        client_id: (client as OAuthClientInformationFull).client_id,
        client_id_issued_at: (client as OAuthClientInformationFull).client_id_issued_at,
        token_endpoint_auth_method: 'none',
        grant_types: grantTypes,
        response_types: ['code'],
      };
      await (await store()).saveClient(registered.client_id, registered as unknown as Record<string, unknown>);
      return registered;
    },
  };
}
