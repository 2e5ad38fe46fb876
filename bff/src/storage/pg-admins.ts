/**
 * The active administrators, locked (in one order, so two such statements wait rather than
 * deadlock): with ANOTHER_ADMIN, a change that would leave the team without one waits for any
 * other such change to commit and then sees it, so two administrators demoting or revoking
 * each other at once on two instances cannot both succeed. `$1` is the member changed.
 */
export const LOCKING_ADMINS = `WITH admins AS (SELECT id FROM members WHERE role = 'admin' AND revoked_at IS NULL ORDER BY id FOR UPDATE)`;
export const ANOTHER_ADMIN = 'EXISTS (SELECT 1 FROM admins WHERE admins.id <> $1)';
