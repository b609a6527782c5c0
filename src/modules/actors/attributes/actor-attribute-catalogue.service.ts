import type { SqlClient } from '../../../platform/database/sql-client.js';
import type { Principal } from '../../../kernel/principal.js';
import { findAttributeStatistics, type AttributeStatistics } from './actor-attribute-catalogue.repository.js';
import { readableActorCondition } from '../people/person-access.service.js';

/** At most this many distinct values make an `enum`… */
export const ENUM_MAX_VALUES = 20;
/** …and only when more actors than this carry the attribute: a handful of actors says little. */
export const ENUM_MIN_ACTORS = 20;

export interface AttributeSchema {
  type: 'string' | 'number' | 'boolean';
  format?: 'date' | 'date-time' | 'email';
  enum?: Array<string | number | boolean>;
}

export interface CatalogueEntry {
  name: string;
  count: number;
  schema: AttributeSchema;
}

/**
 * The JSON Schema of one attribute's values (docs/actors.md, "The attribute catalogue"). The type
 * is the narrowest every value reads as (number, then boolean, else string); a string's format
 * is the one every value has. The enum holds the values in the schema's type.
 */
export function attributeSchema(statistics: AttributeStatistics): AttributeSchema {
  const type = statistics.allNumbers ? 'number' : statistics.allBooleans ? 'boolean' : 'string';
  const schema: AttributeSchema = { type };
  if (type === 'string') {
    const format = statistics.allDates ? 'date' : statistics.allDateTimes ? 'date-time' : statistics.allEmails ? 'email' : undefined;
    if (format) schema.format = format;
  }
  if (statistics.values && statistics.distinctValues <= ENUM_MAX_VALUES && statistics.count > ENUM_MIN_ACTORS) {
    if (type === 'number') schema.enum = [...new Set(statistics.values.map(Number))].sort((a, b) => a - b);
    else if (type === 'boolean') schema.enum = [...new Set(statistics.values.map((value) => value === 'true'))].sort();
    else schema.enum = statistics.values;
  }
  return schema;
}

/**
 * `GET /api/actors/attributes`: every attribute name on the tenant's actors, how many carry it, and
 * its schema; over the people `principal` may read only, when it does not read everyone.
 */
export async function describeAttributes(sql: SqlClient, principal: Principal): Promise<CatalogueEntry[]> {
  const statistics = await findAttributeStatistics(sql, principal.tenant.id, ENUM_MAX_VALUES, (bind) =>
    readableActorCondition(principal, 'a', '$1', bind),
  );
  return statistics.map((entry) => ({ name: entry.name, count: entry.count, schema: attributeSchema(entry) }));
}
