import type { SqlClient } from '../../../platform/database/sql-client.js';
import { NUMBER_PATTERN, sqlReadsAsDate } from '../search/actor-search-compiler.js';

/** What one attribute's values are, over all the tenant's actors that carry it. */
export interface AttributeStatistics {
  name: string;
  /** Actors that carry it (an actor holds each name once). */
  count: number;
  distinctValues: number;
  allNumbers: boolean;
  allBooleans: boolean;
  allDates: boolean;
  allDateTimes: boolean;
  allEmails: boolean;
  /** The distinct values in code-point order, when there are at most `enumLimit` of them. */
  values: string[] | null;
}

/** A mailbox as people write one: a local part, `@`, a domain with a dot; no spaces. */
export const EMAIL_PATTERN = '^[^@[:space:]]+@[^@[:space:]]+[.][^@[:space:]]+$';

/**
 * SQL: `expression` (text) reads as a number that a double holds exactly as written: it matches
 * NUMBER_PATTERN, lies within the double range (`1e400` would be Infinity, `1e-400` zero) and the
 * double's shortest form equals it (`12345678901234567890` would come back rounded). Only such
 * values are `number` in the catalogue, whose enum a JSON serializer and every client read as
 * doubles. The range is checked on numeric (exact for whatever the pattern passes) before the
 * float8 cast, because that cast raises an error out of range; nested CASEs, because PostgreSQL
 * does not promise to evaluate AND's operands in order.
 */
export function sqlReadsAsDouble(expression: string): string {
  const exact = `${expression}::numeric`;
  return (
    `(CASE WHEN ${expression} ~ '${NUMBER_PATTERN}' THEN ` +
    `CASE WHEN ${exact} = 0 OR abs(${exact}) BETWEEN 4.9406564584124654e-324 AND 1.7976931348623157e308 ` +
    `THEN ${expression}::float8::text::numeric = ${exact} ELSE false END ELSE false END)`
  );
}

interface StatisticsRow {
  name: string;
  count: string | number;
  distinct_values: string | number;
  all_numbers: boolean;
  all_booleans: boolean;
  all_dates: boolean;
  all_date_times: boolean;
  all_emails: boolean;
  values: string[] | null;
}

/**
 * Every attribute name on the tenant's actors with what its values are, in one statement: the
 * values are grouped per (name, value) first, so each distinct value's patterns are tested once,
 * then per name. Names and values sort by code point (COLLATE "C"), the same on every server.
 */
export async function findAttributeStatistics(
  sql: SqlClient,
  tenantId: string,
  enumLimit: number,
  /** A further condition over the actors (`a`), its values bound with `bind`; undefined: none. */
  narrow?: (bind: (value: unknown) => string) => string | undefined,
): Promise<AttributeStatistics[]> {
  const values: unknown[] = [tenantId, enumLimit];
  const condition = narrow?.((value) => `$${values.push(value)}`);
  const { rows } = await sql.query<StatisticsRow>(
    `WITH valued AS (
       SELECT e.key, e.value, count(*) AS n
         FROM actors a CROSS JOIN LATERAL jsonb_each_text(a.attributes) e
        WHERE a.tenant_id = $1 AND a.attributes IS NOT NULL${condition === undefined ? '' : ` AND ${condition}`}
        GROUP BY e.key, e.value
     ), typed AS (
       SELECT key, value, n,
              ${sqlReadsAsDouble('value')} AS is_number,
              value IN ('true', 'false') AS is_boolean,
              ${sqlReadsAsDate('value', 'date')} AS is_date,
              ${sqlReadsAsDate('value', 'date-time')} AS is_date_time,
              value ~ '${EMAIL_PATTERN}' AS is_email
         FROM valued
     )
     SELECT key AS name, sum(n) AS count, count(*) AS distinct_values,
            bool_and(is_number) AS all_numbers, bool_and(is_boolean) AS all_booleans, bool_and(is_date) AS all_dates,
            bool_and(is_date_time) AS all_date_times, bool_and(is_email) AS all_emails,
            CASE WHEN count(*) <= $2 THEN array_agg(value ORDER BY value COLLATE "C") END AS values
       FROM typed
      GROUP BY key
      ORDER BY key COLLATE "C"`,
    values,
  );
  return rows.map((row) => ({
    name: row.name,
    count: Number(row.count),
    distinctValues: Number(row.distinct_values),
    allNumbers: row.all_numbers,
    allBooleans: row.all_booleans,
    allDates: row.all_dates,
    allDateTimes: row.all_date_times,
    allEmails: row.all_emails,
    values: row.values,
  }));
}
