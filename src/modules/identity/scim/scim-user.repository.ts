import type { SqlClient } from '../../../platform/database/sql-client.js';

/**
 * `names` folded as the database folds a userName for its uniqueness, in their order: lower(), the
 * expression of the unique index `actors__tenant_id_scim_user_name` (migration 0040), which the
 * User filters compare with too. SCIM's lock keys and its "kept its userName" shortcut are taken
 * from this answer, never from JavaScript's toLowerCase(), which folds otherwise (`İ` to `i̇`, not
 * `i`; `Σ` at a word's end to `ς`, where lower() gives `σ`): one folding everywhere, and the one the
 * database enforces. lower() follows the database's locale (C.UTF-8 and en_US.UTF-8 on both
 * backends fold as above; a database created with the C locale folds ASCII only); whatever it is,
 * the check, the locks, the filter and the index agree, since all of them ask the same database.
 */
export async function foldUserNames(sql: SqlClient, names: readonly string[]): Promise<string[]> {
  if (names.length === 0) return [];
  const { rows } = await sql.query<{ folded: string }>(
    'SELECT lower(u.name) AS folded FROM unnest($1::text[]) WITH ORDINALITY AS u(name, n) ORDER BY u.n',
    [[...names]],
  );
  return rows.map((row) => row.folded);
}
