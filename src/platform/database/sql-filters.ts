import type { SqlClient } from './sql-client.js';

/** A page of a list: at most `limit` rows after passing over `skip` (`LIMIT … OFFSET …`). */
export interface Page {
  readonly limit: number;
  readonly skip: number;
}

/**
 * The values of a statement being built, bound one at a time: `bind` answers the placeholder of
 * a new one (`$3`), so no input text ever becomes SQL. The one binder of the code base: a
 * repository's filter (SqlFilter) and a compiled search (the actor criteria) both bind with it.
 */
export class SqlValues {
  /** What `$1`, `$2`… bind, in order: pass it as the query's values. */
  readonly values: unknown[];

  /** `initial` are bound already as `$1`, `$2`…, in their order (the tenant's id, first, as `$1`). */
  constructor(initial: readonly unknown[] = []) {
    this.values = [...initial];
  }

  /** Binds `value` as the next placeholder and answers it (`$3`). */
  bind(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * The WHERE clause of a query whose conditions depend on the request, and the values its `$n`
 * placeholders bind. Condition text is written in the repository, as plain SQL; a value only ever
 * reaches the statement through `bind` (or `andIf`, which binds), as the next placeholder, so no
 * input text becomes SQL. Placeholders are numbered in the order they are bound, so a condition
 * may bind several, and text built after the clause (the page, a LIMIT) binds after it.
 *
 * ```ts
 * const where = new SqlFilter([tenantId], 'tenant_id = $1')
 *   .andIf(filter.source, (p) => `source = ${p}`)
 *   .andIf(filter.since, (p) => `at > ${p}`);
 * await sql.query(`SELECT … FROM audit_log ${where.clause} ${where.paged('at DESC, seq DESC', page)}`, where.values);
 * ```
 */
export class SqlFilter extends SqlValues {
  private readonly conditions: string[];

  /**
   * `values` are bound already as `$1`, `$2`…, in their order (the tenant's id, first, as `$1`);
   * `conditions`, written with those placeholders, come first in the clause (the tenant's, first,
   * so the clause leads with the column every index leads with).
   */
  constructor(values: readonly unknown[] = [], ...conditions: string[]) {
    super(values);
    this.conditions = [...conditions];
  }

  /** Adds conditions that must all hold, written with placeholders `bind` answered (or none). */
  and(...conditions: string[]): this {
    this.conditions.push(...conditions);
    return this;
  }

  /**
   * When `value` is given (not undefined), binds it and adds `condition(placeholder)`; when it is
   * undefined, adds nothing: the optional filter of a list.
   */
  andIf(value: unknown, condition: (placeholder: string) => string): this {
    if (value !== undefined) this.conditions.push(condition(this.bind(value)));
    return this;
  }

  /** `WHERE c1 AND c2 …` in the order added; empty when there is no condition. */
  get clause(): string {
    return this.conditions.length === 0 ? '' : `WHERE ${this.conditions.join(' AND ')}`;
  }

  /**
   * `ORDER BY {orderBy} LIMIT $n OFFSET $n+1`, binding the page. `orderBy` is the repository's own
   * text: make it a total order (a unique column last), or pages may overlap or skip rows.
   */
  paged(orderBy: string, page: Page): string {
    return `ORDER BY ${orderBy} LIMIT ${this.bind(page.limit)} OFFSET ${this.bind(page.skip)}`;
  }
}

/**
 * How many rows of `from` (a table, or tables joined: the repository's own text) `where` keeps.
 * Call it before `where.paged`, which binds the page: the count binds the filter's values only, so
 * one filter serves both the count and the page.
 */
export async function countWhere(sql: SqlClient, from: string, where: SqlFilter): Promise<number> {
  const { rows } = await sql.query<{ total: number }>(`SELECT count(*)::int AS total FROM ${from} ${where.clause}`, [...where.values]);
  return Number(rows[0].total);
}
