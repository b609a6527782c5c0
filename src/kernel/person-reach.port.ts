import type { Principal } from './principal.js';

/**
 * Which people a principal may read, as SQL a module embeds in the statement that lists its rows
 * about people. The port `personReach`: the actors module fills it (person-access.service.ts) and
 * the composition root hands it to the modules below actors that need it (the audit log):
 * docs/architecture.md, "Declarations, ports and the composition root".
 */
export interface PersonReach {
  /**
   * A condition on `column` (an agent key) that holds for the people `principal` may read, written
   * with `tenant` (the placeholder of the tenant id) and values bound through `bind`; NULL never
   * satisfies it. Undefined when the principal reads everyone: no condition to add.
   */
  agentKeyCondition(principal: Principal, column: string, tenant: string, bind: (value: unknown) => string): string | undefined;
}
