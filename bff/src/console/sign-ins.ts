import type { Request, Response, Router } from 'express';
import type { MemberRecord } from '../storage/ledger.ts';
import type { ActiveGrant, OAuthStore } from '../storage/oauth-store.ts';
import { grantedScopes } from '../auth/scopes.ts';
import { ConsoleError } from './errors.ts';

export interface SignInRoutesDeps {
  oauth: () => Promise<OAuthStore>;
  now: () => number;
  actor: (res: Response) => MemberRecord;
  activeMember: (id: string) => Promise<MemberRecord>;
  audit: (req: Request, actor: MemberRecord, action: string, target: string | null, detail?: Record<string, unknown>) => Promise<void>;
}

/** The client a grant was given to and where it was sent back, as the consent page named them to the member. */
async function clientOf(oauth: OAuthStore, grant: ActiveGrant) {
  const client = (await oauth.getClient(grant.clientId)) as { client_name?: unknown } | undefined;
  const { redirectUri } = grant;
  return {
    clientId: grant.clientId,
    clientName: typeof client?.client_name === 'string' ? client.client_name : grant.clientId,
    redirectHost: redirectUri && URL.canParse(redirectUri) ? new URL(redirectUri).host : null,
  };
}

/**
 * A member's OAuth sign-ins (assistants through the MCP server, the browser extension through
 * the /v1 API), each held by a refresh token for up to BFF_OAUTH_REFRESH_TOKEN_DAYS: listed for
 * an administrator, and ended one at a time without rotating the member's token or ending the
 * others.
 */
export function signInRoutes(admin: Router, { oauth, now, actor, activeMember, audit }: SignInRoutesDeps): void {
  admin.get('/members/:id/sign-ins', async (req, res) => {
    const member = await activeMember(req.params.id!);
    const store = await oauth();
    const grants = await store.activeGrants(member.id, now());
    const signIns = await Promise.all(
      grants.map(async (grant) => ({
        id: grant.id,
        ...(await clientOf(store, grant)),
        resource: grant.resource,
        scopes: grantedScopes(grant.scopes),
        createdAt: new Date(grant.createdAt).toISOString(),
        expiresAt: new Date(grant.refreshExpiresAt).toISOString(),
      })),
    );
    res.json({ signIns });
  });

  admin.post('/members/:id/sign-ins/:grantId/revoke', async (req, res) => {
    const member = await activeMember(req.params.id!);
    const store = await oauth();
    const grant = (await store.activeGrants(member.id, now())).find((candidate) => candidate.id === req.params.grantId);
    if (!grant || !(await store.revokeGrant(grant.id, now()))) throw new ConsoleError(404, 'not_found', 'This member has no active sign-in with this id.');
    const { clientId, clientName } = await clientOf(store, grant);
    await audit(req, actor(res), 'sign_in_revoked', member.id, { name: member.name, grant: grant.id, clientId, client: clientName, resource: grant.resource });
    res.json({ revoked: true });
  });
}
