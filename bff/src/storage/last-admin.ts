// The rule "the team keeps an active administrator", in each ledger's SQL: a role change or a
// revocation that would leave none changes no row.

/**
 * PostgreSQL: the active administrators, locked (in one order, so two such statements wait
 * rather than deadlock): with PG_ANOTHER_ADMIN, a change that would leave the team without one
 * waits for any other such change to commit and then sees it, so two administrators demoting or
 * revoking each other at once on two instances cannot both succeed. `$1` is the member changed.
 */
export const PG_LOCKING_ADMINS = `WITH admins AS (SELECT id FROM members WHERE role = 'admin' AND revoked_at IS NULL ORDER BY id FOR UPDATE)`;
export const PG_ANOTHER_ADMIN = 'EXISTS (SELECT 1 FROM admins WHERE admins.id <> $1)';

/** SQLite (one writer, so no lock is needed): another active administrator than the row being updated. */
export const SQLITE_ANOTHER_ADMIN = "EXISTS (SELECT 1 FROM members other WHERE other.role = 'admin' AND other.revoked_at IS NULL AND other.id <> members.id)";
