/**
 * The face of the actors module: all another module may import from it (docs/architecture.md,
 * "Modules"; .dependency-cruiser.cjs refuses an import of any other file of the module).
 */
export {
  deactivatePeople,
  findActivePeopleOutside,
  findHoldersOf,
  findImportedKeys,
  inBatches,
  storeImportedPeople,
} from './people/actor-import.service.js';
export type { Identifier } from './people/actor-import.service.js';
export { PersonItemBody, PersonItemQuery, PersonQueryProperties } from './actor-item.schemas.js';
export { findActorByKey, findActorsByKeys, listActorTexts } from './actor-lookup.service.js';
export type { ActorTexts } from './actor-lookup.service.js';
export { readCriteria } from './search/actor-search-compiler.js';
export type { Criteria } from './search/actor-search-compiler.js';
export { Criteria as CriteriaSchema } from './search/actor-search.schemas.js';
export { notDeactivatedSql, peopleAmongSql, peopleMatchingSql, peopleSql, readSearchCriteria } from './search/actor-search.service.js';
export { findPersonWithLinks, jobOfPosition, requirePerson, showPerson } from './actor.service.js';
export type { ActorDomains, PersonItem, PersonWithLinks } from './actor.service.js';
export { getPerson, recordAgents } from './agents/agent-mention.service.js';
export type { AgentMention } from './agents/agent-mention.service.js';
export { personWriteOf, writeAgent } from './agents/agent-upsert.service.js';
export { peopleLinkedToEntries, peopleLinkedToJobs } from './people/people-link.service.js';
export type { PersonShown } from './people/people-link.service.js';
export {
  PersonAccessErrors,
  agentKeyRequired,
  mayRead,
  placedWithinCondition,
  readableActorCondition,
  readableAgentKeyCondition,
  readableAmong,
  readsEveryone,
  requireReadable,
  scopeEntryCondition,
  scopeEntryIds,
} from './people/person-access.service.js';
export type { Bind, PersonQuery } from './people/person-access.service.js';
export { listPersonRecords, personRecordById, personRecordsByUniqueValues } from './people/person-record.service.js';
export type { PersonRecord } from './people/person-record.service.js';
export { getTenantSettings, lockPeopleIdentities, lockPersonKeys, lockTenantIdentities } from './settings/tenant-settings.service.js';
export type { TenantSettings } from './settings/tenant-settings.service.js';
