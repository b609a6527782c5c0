import type { SqlClient } from '../platform/database/sql-client.js';
import type { Tenant } from './principal.js';

/**
 * Which people a write changed: some actors, by agent key, or anyone (a write that changes what
 * the people's attributes link to: the organisation structure, the jobs, the tenant settings).
 */
export type PeopleChange = { kind: 'people'; agentKeys: readonly string[] } | { kind: 'everyone' };

/**
 * What a module above wants to hear when people change, and no more: the writers of people (the
 * user import, `PUT /api/actors/agents`, `PUT /api/settings`, the organisation and jobs imports)
 * call `changed` inside the transaction that makes the change, so what the listener keeps from
 * the people (learning's dynamic assignments) commits or rolls back with it. The port
 * `peopleChanged`: the listeners sit above actors and imports, declare it, and the composition
 * root (server/composition.ts) hands every writer all of them, so no arrow points up
 * (docs/architecture.md, "Declarations, ports and the composition root").
 */
export interface PeopleChanges {
  /**
   * Called on the writer's transaction after its writes: `tx` sees them. It may write its own
   * tables on `tx`; a failure rolls the writer's transaction back with it.
   */
  changed(tx: SqlClient, tenant: Pick<Tenant, 'id' | 'name'>, change: PeopleChange): Promise<void>;
}

/** No listener: for code that writes people where nothing above is assembled (a test of one module). */
export const NO_PEOPLE_CHANGES: PeopleChanges = { changed: async () => {} };
