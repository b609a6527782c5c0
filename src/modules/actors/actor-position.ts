/**
 * An actor's position (`actors.position_id`, migration 0031): the value among its attributes of
 * the tenant's `organisationAttribute` setting, NULL when the tenant has none or the actor no
 * value. Written with the attributes, in the same statement, so the two never disagree; rewritten
 * for the whole tenant when the setting changes (tenant-settings.service.ts). The writers hold
 * the tenant's identity lock, as a change of the setting does: a write never reads a setting
 * that a concurrent change is replacing.
 */

/** SQL: the tenant's `organisationAttribute` (NULL when it has none), read once per statement. */
const organisationAttributeSql = (tenant: string): string =>
  `(SELECT s.settings ->> 'organisationAttribute' FROM tenant_settings s WHERE s.tenant_id = ${tenant})`;

/** SQL: the position that `attributes` (a jsonb expression) gives an actor of the tenant `tenant` (a placeholder). */
export const positionOfSql = (attributes: string, tenant: string): string => `(${attributes} ->> ${organisationAttributeSql(tenant)})`;

/**
 * SQL: the actor `alias` holds a position among `entryIds` (a SELECT of entry ids), as a condition
 * the actors' (tenant_id, position_id) index serves: the set is run once into an array and the
 * people of its positions found through the index. An actor without a position is outside every
 * set (false, never NULL). For bounded sets (named entries, a subtree): over a seq scan the array
 * is searched per actor.
 */
export const positionAmongSql = (alias: string, entryIds: string): string =>
  `(${alias}.position_id IS NOT NULL AND ${alias}.position_id = ANY(ARRAY(${entryIds})))`;
