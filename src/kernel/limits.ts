/**
 * The longest identifiers the LRS and the actor store keep, in UTF-8 bytes (docs/xapi-statements.md,
 * "Limits on identifiers"). Each of them is a column of a B-tree index (a primary key most often),
 * and PostgreSQL refuses an index entry over 2,704 bytes with SQLSTATE 54000: without these
 * limits a long value answered 500 (issue 24). The limits are in bytes, not characters, because
 * the index counts bytes: 1,000 characters of Chinese are 3,000 bytes.
 *
 * The budget is set by the widest index a value reaches, counted with every other column at its
 * own maximum and no compression (random text does not compress). The widest is the state
 * document's primary key, xapi_documents (tenant_id, kind, activity_id, agent_key, registration,
 * document_id): measured on PostgreSQL 15 and PGlite, its three free texts may hold 2,621 bytes
 * together. An activity id (1,000) + the longest agent key (`account|` + 500 + `|` + 500 = 1,009)
 * + a stateId (500) = 2,509, which leaves 112 bytes of room. The others fit with more:
 * completion_records (agent key + activity id + registration, 2,045 bytes), completion parents and
 * the registry's parent index (two activity ids, 2,000), xapi_statement_keys (one key, at most
 * 1,009 of its 2,656), actor_identifiers (an attribute name of at most 200 characters, 800 bytes,
 * + a unique value, 1,300).
 */

/** Activity ids (the object's, the context activities', the registry's) and verb ids. */
export const MAX_IRI_BYTES = 1000;
/** An agent's `mbox` (with its `mailto:`) and `openid`. */
export const MAX_IFI_BYTES = 1000;
/**
 * `account.homePage` and `account.name`: the agent key holds both, so each has half of what an
 * IRI has. A unique attribute's value can become an account name (an imported user's account is
 * named by its first one), so it has the same limit.
 */
export const MAX_ACCOUNT_PART_BYTES = 500;
/** A state's `stateId`, a profile's `profileId`: what is left of the document key's budget. */
export const MAX_DOCUMENT_ID_BYTES = 500;

export const utf8Length = (text: string): number => Buffer.byteLength(text, 'utf8');

/** Why `text` is too long for `limit` bytes (a message to follow its name), or undefined when it fits. */
export function lengthProblem(text: string, limit: number): string | undefined {
  // A character is at most 4 bytes (a UTF-16 unit at most 3): short text needs no counting.
  if (text.length * 3 <= limit) return undefined;
  const bytes = utf8Length(text);
  return bytes > limit ? `must be at most ${limit} bytes of UTF-8 (it has ${bytes})` : undefined;
}
