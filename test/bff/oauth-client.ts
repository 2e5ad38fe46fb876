import * as oauth from 'oauth4webapi';

/**
 * An OAuth 2.1 public client built on oauth4webapi (a strict, independent implementation),
 * for the BFF's authorization server. The BFF listens on plain http on 127.0.0.1 in tests,
 * which oauth4webapi allows only when told.
 */

const insecure = { [oauth.allowInsecureRequests]: true } as const;

export interface PkceStart {
  authorizationUrl: URL;
  codeVerifier: string;
  state: string;
}

export class OAuthTestClient {
  private constructor(
    readonly as: oauth.AuthorizationServer,
    readonly client: oauth.Client,
    readonly redirectUri: string,
    readonly resource: string,
  ) {}

  /** Discovers the authorization server from the MCP URL (RFC 9728, then RFC 8414) and registers (RFC 7591). */
  static async register(mcpUrl: string, redirectUri = 'http://127.0.0.1:7777/callback', name = 'Test assistant'): Promise<OAuthTestClient> {
    const resourceMetadata = await (await fetch(new URL('/.well-known/oauth-protected-resource/mcp', mcpUrl))).json();
    const issuer = new URL(resourceMetadata.authorization_servers[0]);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(as, { client_name: name, redirect_uris: [redirectUri], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] }, insecure),
    );
    return new OAuthTestClient(as, registered as oauth.Client, redirectUri, resourceMetadata.resource);
  }

  async start(overrides: Record<string, string> = {}): Promise<PkceStart> {
    const codeVerifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const authorizationUrl = new URL(this.as.authorization_endpoint!);
    const parameters = {
      client_id: this.client.client_id,
      redirect_uri: this.redirectUri,
      response_type: 'code',
      code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      resource: this.resource,
      ...overrides,
    };
    for (const [name, value] of Object.entries(parameters)) authorizationUrl.searchParams.set(name, value);
    return { authorizationUrl, codeVerifier, state };
  }

  /** Exchanges the code from the redirect the browser landed on, for the resource the authorization request named. */
  async exchange(callback: URL, start: PkceStart, resource = this.resource): Promise<oauth.TokenEndpointResponse> {
    const parameters = oauth.validateAuthResponse(this.as, this.client, callback, start.state);
    const response = await oauth.authorizationCodeGrantRequest(this.as, this.client, oauth.None(), parameters, this.redirectUri, start.codeVerifier, {
      additionalParameters: { resource },
      ...insecure,
    });
    return oauth.processAuthorizationCodeResponse(this.as, this.client, response);
  }

  /**
   * The error an authorization request was answered with, read as a strict client reads it:
   * the redirect must carry this server as `iss` (RFC 9207) and the request's `state`.
   */
  authorizationError(callback: URL, state: string): { error: string; error_description: string | undefined } {
    try {
      oauth.validateAuthResponse(this.as, this.client, callback, state);
    } catch (error) {
      if (error instanceof oauth.AuthorizationResponseError) return { error: error.error, error_description: error.error_description };
      throw error;
    }
    throw new Error(`not an error response: ${callback.href}`);
  }

  /** The raw token endpoint answer for a code (to test refusals): a plain form post, as a careless client would send; `redirectUri` null leaves it out. */
  async exchangeRaw(code: string, codeVerifier: string, redirectUri: string | null = this.redirectUri): Promise<Response> {
    const parameters: Record<string, string> = { grant_type: 'authorization_code', client_id: this.client.client_id, code, code_verifier: codeVerifier };
    if (redirectUri !== null) parameters.redirect_uri = redirectUri;
    return fetch(this.as.token_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(parameters),
    });
  }

  async refresh(refreshToken: string): Promise<oauth.TokenEndpointResponse> {
    return oauth.processRefreshTokenResponse(this.as, this.client, await oauth.refreshTokenGrantRequest(this.as, this.client, oauth.None(), refreshToken, insecure));
  }

  async refreshRaw(refreshToken: string): Promise<Response> {
    return oauth.refreshTokenGrantRequest(this.as, this.client, oauth.None(), refreshToken, insecure);
  }

  async revoke(token: string): Promise<void> {
    await oauth.processRevocationResponse(await oauth.revocationRequest(this.as, this.client, oauth.None(), token, insecure));
  }
}

/**
 * Plays the member's part on the consent page without a browser: loads it, then posts the
 * form as the page would. Returns the page and the redirect the BFF answered with.
 */
export async function approveWithoutBrowser(authorizationUrl: URL, memberToken: string, decision: 'approve' | 'deny' = 'approve'): Promise<{ page: string; status: number; location: URL | undefined; answer: string }> {
  const pageResponse = await fetch(authorizationUrl, { redirect: 'manual' });
  const page = await pageResponse.text();
  if (pageResponse.status !== 200) return { page, status: pageResponse.status, location: locationOf(pageResponse), answer: page };
  const request = /name="request" value="([^"]+)"/.exec(page)?.[1];
  if (!request) throw new Error(`no consent form in: ${page.slice(0, 300)}`);
  const response = await fetch(new URL('/oauth/consent', authorizationUrl), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: authorizationUrl.origin },
    body: new URLSearchParams({ request, credential: memberToken, decision }),
  });
  return { page, status: response.status, location: locationOf(response), answer: await response.text() };
}

const locationOf = (response: Response) => {
  const location = response.headers.get('location');
  return location === null ? undefined : new URL(location);
};

/** A raw MCP request with an assistant's access token to the BFF at `baseUrl`: 200, or 401 once its grant is revoked. */
export async function mcpStatus(baseUrl: string, accessToken: string): Promise<number> {
  const response = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  return response.status;
}
