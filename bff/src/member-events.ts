import { pgDriver } from './storage/pg-driver.ts';

/** The PostgreSQL channel on which a change to members (a revocation) is announced. */
export const MEMBERS_CHANNEL = 'redline_members';

/** Tells every instance's member cache that members changed (after a revocation). */
export async function announceMembersChanged(databaseUrl: string): Promise<void> {
  const { Client } = await pgDriver();
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`NOTIFY ${MEMBERS_CHANNEL}`);
  } finally {
    await client.end();
  }
}
