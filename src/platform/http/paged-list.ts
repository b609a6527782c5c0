import type { FastifyReply } from 'fastify';
import { Type, type TObjectOptions, type TProperties } from 'typebox';
import type { Page } from '../database/sql-filters.js';

/** The page a list answers when `limit` is not sent, and the largest one it answers. */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

/** `limit` and `skip`, `what` naming the items in their descriptions. */
const pageProperties = (what: string) => ({
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_LIMIT,
      default: DEFAULT_LIMIT,
      description: `At most this many ${what} (1-${MAX_LIMIT}, default ${DEFAULT_LIMIT}).`,
    }),
  ),
  skip: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: `${what[0].toUpperCase()}${what.slice(1)} to pass over.` })),
});

/**
 * The querystring of one of the API's lists (actors, audit, notifications, the activities
 * registry, import history): the list's own `filters`, then `limit` and `skip`: at most `limit`
 * items, 1 to 1,000 (default 100), after passing over `skip`. `what` names the items in the
 * descriptions; `options` are the object's (`additionalProperties: false`, pattern properties).
 */
export const PageQuery = <Filters extends TProperties = Record<never, never>>(
  what: string,
  filters: Filters = {} as Filters,
  options?: TObjectOptions,
) => Type.Object({ ...filters, ...pageProperties(what) }, options);

/** The page a PageQuery asks for, defaults filled in. */
export const pageOf = (query: { limit?: number; skip?: number }): Page => ({ limit: query.limit ?? DEFAULT_LIMIT, skip: query.skip ?? 0 });

/**
 * Tells how long the whole list is (`X-Total-Count`) and, when items follow this page, where the
 * next page is: a `rel="next"` Link to `url` with `query` and the page moved on, written before any
 * Link the answer carries already (an API key's rel="deprecation"), so one header holds both. A
 * client that follows the links gets every item. The route declares both headers on its 200.
 */
export function sendPageHeaders(
  reply: FastifyReply,
  list: { url: string; query?: Record<string, string>; page: Page; shown: number; total: number },
): void {
  const { url, query = {}, page, shown, total } = list;
  reply.header('X-Total-Count', String(total));
  if (page.skip + shown >= total) return;
  const next = new URLSearchParams({ ...query, limit: String(page.limit), skip: String(page.skip + page.limit) });
  const link = `<${url}?${next}>; rel="next"`;
  const earlier = reply.getHeader('link');
  reply.header('Link', earlier === undefined ? link : `${link}, ${String(earlier)}`);
}
