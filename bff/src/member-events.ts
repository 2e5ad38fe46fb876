import { notifyChannel } from './storage/pg-channel.ts';

/** The PostgreSQL channel on which a change to members (a revocation) is announced. */
export const MEMBERS_CHANNEL = 'redline_members';

/** Tells every instance's member cache that members changed (after a revocation). */
export function announceMembersChanged(databaseUrl: string): Promise<void> {
  return notifyChannel(databaseUrl, MEMBERS_CHANNEL);
}
