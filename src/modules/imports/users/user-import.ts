/**
 * The rules of the user import (issue 13; interface 2.1-2.3) as pure functions: what each row
 * must hold, which rows of one request collide, and how a row meets the users already stored.
 * The service feeds them what the database holds and writes what they decide.
 */
import { findJsonProblem, textProblem } from '../../../platform/json-guard.js';
import type { Identifier } from '../../actors/index.js';
import { lengthProblem, MAX_ACCOUNT_PART_BYTES } from '../../../kernel/limits.js';

/** Every message `type` the import answers (docs/imports.md lists them with what `value` holds). */
export type UserImportMessageType =
  // errors: the row is skipped
  | 'invalid_row'
  | 'missing_name'
  | 'invalid_attributes'
  | 'invalid_attribute_value'
  | 'invalid_text'
  | 'invalid_encoding'
  | 'value_too_long'
  | 'missing_unique_attribute'
  | 'duplicate_unique_value'
  | 'duplicate_user'
  | 'ambiguous_match'
  | 'account_taken'
  | 'out_of_scope'
  // warnings: the row is imported
  | 'empty_attribute_value'
  | 'unknown_field'
  | 'unknown_organisation'
  | 'unknown_job';

/** Interface 2.3: one error or warning; `row` is the 1-based position in `users`. */
export interface UserImportMessage {
  type: UserImportMessageType;
  message: string;
  value: string;
  row: number;
}

/** Interface 2.2. */
export interface UserImportSummary {
  rows: number;
  new: number;
  existing: number;
  /** A sync only (user-sync-rules.ts): the people it deactivated, or with verify would. */
  deactivated?: number;
  skipped: number;
  errorCount: number;
  warningCount: number;
  errors: UserImportMessage[];
  warnings: UserImportMessage[];
}

/** What the rules need of the tenant's settings. */
export interface UserImportSettings {
  uniqueAttributes: readonly string[];
  organisationAttribute: string | null;
  jobAttribute: string | null;
}

/** A value of a unique attribute: the actors module's, which matches people by it. */
export type { Identifier } from '../../actors/index.js';

/** A row that passed the checks of its own: what it would store. */
export interface CandidateUser {
  row: number;
  name: string;
  attributes: Record<string, string>;
  /** Its non-empty values of the unique attributes, in the settings' order (never empty). */
  identifiers: Identifier[];
}

export interface CheckedRows {
  candidates: CandidateUser[];
  errors: UserImportMessage[];
  warnings: UserImportMessage[];
}

/**
 * A user's own attribute `name`, or undefined: attribute names are free text (a CSV header may say
 * "toString" or "__proto__"), so never Object.prototype's members.
 */
export const attributeOf = (attributes: Readonly<Record<string, string>>, name: string): string | undefined =>
  Object.hasOwn(attributes, name) ? attributes[name] : undefined;

/**
 * A row a file's reader could not turn into text (users-csv.ts: bytes not valid in the file's
 * charset), standing in its place so that it is that row's `invalid_encoding` error and keeps
 * its row number. A JSON body cannot hold one: only the reader makes it.
 */
export class UnreadableRow {
  constructor(
    readonly message: string,
    /** The row's unreadable text, its bad bytes escaped (`Z\xFCrich`). */
    readonly value: string,
  ) {}
}

const KNOWN_FIELDS = new Set(['name', 'attributes']);
/** A value shown in a message is cut here, so a huge value cannot make a huge answer. */
export const SHOWN_LIMIT = 200;

/** The offending value as a string: text as it is (cut), anything else as JSON, unstorable text escaped. */
export function shown(value: unknown): string {
  let text: string;
  if (typeof value === 'string') text = textProblem(value) ? JSON.stringify(value).slice(1, -1) : value;
  else if (value === undefined) text = '';
  // JSON.stringify recurses: a value nested deeper than the JSON guard allows is named, not shown.
  else if (findJsonProblem(value, 'value', { strings: false }))
    text = Array.isArray(value) ? '[a deeply nested array]' : '[a deeply nested object]';
  else text = JSON.stringify(value) ?? String(value);
  return text.length > SHOWN_LIMIT ? `${text.slice(0, SHOWN_LIMIT)}…` : text;
}

/**
 * The checks one row passes on its own: `name` a non-empty string, `attributes` an object of
 * strings, text PostgreSQL can store, at least one unique attribute with a value, and no unique
 * value longer than an account name may be (limits.ts: it is indexed, and the first one names the
 * user's account). Warnings for empty values and unknown top-level fields. `row` is 1-based.
 */
export function checkRow(
  input: unknown,
  row: number,
  settings: UserImportSettings,
): { candidate?: CandidateUser; errors: UserImportMessage[]; warnings: UserImportMessage[] } {
  const errors: UserImportMessage[] = [];
  const warnings: UserImportMessage[] = [];
  const error = (type: UserImportMessageType, message: string, value: unknown) => errors.push({ type, message, value: shown(value), row });
  const warning = (type: UserImportMessageType, message: string, value: unknown) =>
    warnings.push({ type, message, value: shown(value), row });

  if (input instanceof UnreadableRow) {
    error('invalid_encoding', input.message, input.value);
    return { errors, warnings };
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    error('invalid_row', 'A user must be a JSON object with "name" and "attributes".', input);
    return { errors, warnings };
  }
  const user = input as Record<string, unknown>;
  for (const field of Object.keys(user)) {
    if (KNOWN_FIELDS.has(field)) continue;
    const problem = textProblem(field);
    if (problem) error('invalid_text', `A field name ${problem.why}.`, field);
    else warning('unknown_field', `The field "${shown(field)}" is not part of a user and was ignored.`, field);
  }

  const name = user.name;
  if (typeof name !== 'string' || name.trim() === '') {
    error('missing_name', '"name" must be a non-empty string.', name);
  } else {
    const problem = textProblem(name);
    if (problem) error('invalid_text', `"name" ${problem.why}.`, name);
  }

  const sent = user.attributes;
  let attributes: Record<string, string> = {};
  if (typeof sent !== 'object' || sent === null || Array.isArray(sent)) {
    error('invalid_attributes', '"attributes" must be an object of attribute names to string values.', sent);
  } else {
    // Checked in place, not copied: a row that passes keeps the object it was sent in (100,000
    // copies would double what an import holds). Read it with attributeOf, never attributes[x].
    attributes = sent as Record<string, string>;
    for (const [attribute, value] of Object.entries(sent)) {
      const nameProblem = textProblem(attribute);
      if (nameProblem || attribute === '') {
        error(
          'invalid_attributes',
          nameProblem ? `An attribute name ${nameProblem.why}.` : 'An attribute name must not be empty.',
          attribute,
        );
        continue;
      }
      if (typeof value !== 'string') {
        error('invalid_attribute_value', `The value of attribute "${shown(attribute)}" must be a string.`, value);
        continue;
      }
      const problem = textProblem(value);
      if (problem) {
        error('invalid_text', `The value of attribute "${shown(attribute)}" ${problem.why}.`, value);
        continue;
      }
      if (value === '') warning('empty_attribute_value', `The attribute "${shown(attribute)}" is empty.`, attribute);
      const tooLong = settings.uniqueAttributes.includes(attribute) ? lengthProblem(value, MAX_ACCOUNT_PART_BYTES) : undefined;
      if (tooLong) error('value_too_long', `The value of the unique attribute "${shown(attribute)}" ${tooLong}.`, value);
    }
    if (errors.length === 0 && !settings.uniqueAttributes.some((unique) => attributeOf(attributes, unique))) {
      error(
        'missing_unique_attribute',
        `The user has none of the unique attributes (${settings.uniqueAttributes.join(', ')}) with a value, so it cannot be identified.`,
        settings.uniqueAttributes.join(','),
      );
    }
  }

  if (errors.length > 0) return { errors, warnings };
  const identifiers = settings.uniqueAttributes.flatMap((unique) => {
    const value = attributeOf(attributes, unique);
    return value ? [{ attribute: unique, value }] : [];
  });
  return { candidate: { row, name: name as string, attributes, identifiers }, errors, warnings };
}

const identifierKey = (identifier: Identifier) => `${identifier.attribute}\u0000${identifier.value}`;

/**
 * Every row on its own, then the rows against each other: a unique value sent by an earlier row
 * makes every later row holding it an error (`duplicate_unique_value`; the first one is imported).
 */
export function checkRows(users: readonly unknown[], settings: UserImportSettings): CheckedRows {
  const checked: CheckedRows = { candidates: [], errors: [], warnings: [] };
  const claimed = new Map<string, number>();
  users.forEach((input, index) => {
    const { candidate, errors, warnings } = checkRow(input, index + 1, settings);
    checked.warnings.push(...warnings);
    if (!candidate) {
      checked.errors.push(...errors);
      return;
    }
    const taken = candidate.identifiers.find((identifier) => claimed.has(identifierKey(identifier)));
    if (taken) {
      checked.errors.push({
        type: 'duplicate_unique_value',
        message:
          `Row ${claimed.get(identifierKey(taken))} already has the value "${shown(taken.value)}" ` +
          `of the unique attribute "${taken.attribute}".`,
        value: shown(taken.value),
        row: candidate.row,
      });
      return;
    }
    for (const identifier of candidate.identifiers) claimed.set(identifierKey(identifier), candidate.row);
    checked.candidates.push(candidate);
  });
  return checked;
}

/** What the store holds that a candidate meets. */
export interface StoredIdentities {
  /** `attribute\0value` → the agent key of the user holding it. */
  identifiers: ReadonlyMap<string, string>;
  /** Agent keys that exist: true when an import made or adopted the actor (it has attributes), false for an actor only statements named. */
  actors: ReadonlyMap<string, boolean>;
}

export type ResolvedUser = CandidateUser & {
  agentKey: string;
  action: 'new' | 'existing' | 'adopt';
  /** Its identifiers no stored value points at this user yet: the ones to write (none on a re-import). */
  unheld: Identifier[];
};

export const storedIdentifierKey = identifierKey;

/**
 * How each candidate meets the stored users. A unique value already held names that user: the row
 * updates it (`existing`). Values naming two different users, or a user another row of the request
 * already updates, are errors. Otherwise the row is a new user whose agent is
 * `accountKey(first identifier)`; an actor only statements named under that key is adopted (one
 * actor), an imported one under that key is another person (`account_taken`). The rows may come
 * in batches, each with what the store held before the import of its rows' values, and one
 * `usedKeys` for the whole request: the same answer as all rows at once.
 */
export function resolveCandidates(
  candidates: readonly CandidateUser[],
  stored: StoredIdentities,
  accountKey: (accountName: string) => string,
  /** The agent keys earlier rows resolved to, with their row: pass one map to every batch of one request. */
  usedKeys = new Map<string, number>(),
): { users: ResolvedUser[]; errors: UserImportMessage[] } {
  const users: ResolvedUser[] = [];
  const errors: UserImportMessage[] = [];
  const unheldOf = (candidate: CandidateUser, agentKey: string) =>
    candidate.identifiers.filter((identifier) => stored.identifiers.get(identifierKey(identifier)) !== agentKey);
  for (const candidate of candidates) {
    const matched = new Map<string, Identifier>();
    for (const identifier of candidate.identifiers) {
      const key = stored.identifiers.get(identifierKey(identifier));
      if (key !== undefined && !matched.has(key)) matched.set(key, identifier);
    }
    if (matched.size > 1) {
      const [first, second] = [...matched.values()];
      errors.push({
        type: 'ambiguous_match',
        message: `"${first.attribute}" matches one existing user and "${second.attribute}" another; a row may match one user only.`,
        value: shown(second.value),
        row: candidate.row,
      });
      continue;
    }
    let resolved: ResolvedUser;
    if (matched.size === 1) {
      const [[agentKey, identifier]] = [...matched.entries()];
      resolved = { ...candidate, agentKey, action: 'existing', unheld: unheldOf(candidate, agentKey) };
      const earlier = usedKeys.get(agentKey);
      if (earlier !== undefined) {
        errors.push({
          type: 'duplicate_user',
          message: `Row ${earlier} already updates the user this row matches through "${identifier.attribute}".`,
          value: shown(identifier.value),
          row: candidate.row,
        });
        continue;
      }
    } else {
      const accountName = candidate.identifiers[0].value;
      const agentKey = accountKey(accountName);
      const imported = stored.actors.get(agentKey);
      const earlier = usedKeys.get(agentKey);
      if (imported === true || earlier !== undefined) {
        errors.push({
          type: 'account_taken',
          message:
            earlier !== undefined
              ? `Row ${earlier} already makes a user with the account name "${shown(accountName)}".`
              : `Another user already has the account name "${shown(accountName)}" (its unique values have changed since).`,
          value: shown(accountName),
          row: candidate.row,
        });
        continue;
      }
      resolved = { ...candidate, agentKey, action: imported === false ? 'adopt' : 'new', unheld: candidate.identifiers };
    }
    usedKeys.set(resolved.agentKey, candidate.row);
    users.push(resolved);
  }
  return { users, errors };
}

/**
 * A scoped credential's import (docs/learning.md, "Scoped administration and managers"): every
 * resolved row must leave the people outside the credential's organisation subtree alone. A row
 * that matches a stored person (or adopts an actor statements named) the credential does not
 * reach, or that would place its person outside the subtree (its `organisationAttribute` value
 * names no entry of it, or it has none), is skipped with `out_of_scope`.
 */
export function narrowToScope(
  users: readonly ResolvedUser[],
  organisationAttribute: string | null,
  scope: {
    /** The subtree's entry ids: the positions the credential may place people in. */
    entries: ReadonlySet<string>;
    /** The stored agent keys among the rows' that the credential reaches. */
    reachable: ReadonlySet<string>;
  },
): { users: ResolvedUser[]; errors: UserImportMessage[] } {
  const kept: ResolvedUser[] = [];
  const errors: UserImportMessage[] = [];
  for (const user of users) {
    const position = organisationAttribute ? attributeOf(user.attributes, organisationAttribute) : undefined;
    if (user.action !== 'new' && !scope.reachable.has(user.agentKey)) {
      errors.push({
        type: 'out_of_scope',
        message: 'The row matches a person outside the organisation subtree this credential is limited to; nothing of theirs was changed.',
        value: shown(user.identifiers[0].value),
        row: user.row,
      });
    } else if (position === undefined || !scope.entries.has(position)) {
      errors.push({
        type: 'out_of_scope',
        message:
          position === undefined
            ? `The user has no "${organisationAttribute ?? 'organisationAttribute'}": it would be placed outside the organisation subtree this credential is limited to.`
            : `"${organisationAttribute}" names no entry of the organisation subtree this credential is limited to.`,
        value: shown(position),
        row: user.row,
      });
    } else kept.push(user);
  }
  return { users: kept, errors };
}

/**
 * Link warnings: the organisation or job a user's attribute names does not exist. Empty values
 * name nothing and get no warning here (they have their own).
 */
export function linkWarnings(
  users: readonly CandidateUser[],
  settings: UserImportSettings,
  existing: { organisations: ReadonlySet<string>; jobs: ReadonlySet<string> },
): UserImportMessage[] {
  const warnings: UserImportMessage[] = [];
  for (const user of users) {
    const organisation = settings.organisationAttribute ? attributeOf(user.attributes, settings.organisationAttribute) : undefined;
    if (organisation && !existing.organisations.has(organisation)) {
      warnings.push({
        type: 'unknown_organisation',
        message: `"${settings.organisationAttribute}" names no organisation entry.`,
        value: shown(organisation),
        row: user.row,
      });
    }
    const job = settings.jobAttribute ? attributeOf(user.attributes, settings.jobAttribute) : undefined;
    if (job && !existing.jobs.has(job)) {
      warnings.push({ type: 'unknown_job', message: `"${settings.jobAttribute}" names no job.`, value: shown(job), row: user.row });
    }
  }
  return warnings;
}

const byRow = (a: UserImportMessage, b: UserImportMessage) => a.row - b.row;

/** The summary of interface 2.2; warnings only of the rows imported (a skipped row answers its errors). */
export function summarise(
  rowCount: number,
  users: readonly ResolvedUser[],
  errors: UserImportMessage[],
  warnings: UserImportMessage[],
): UserImportSummary {
  const imported = new Set(users.map((user) => user.row));
  const kept = warnings.filter((warning) => imported.has(warning.row)).sort(byRow);
  const sortedErrors = [...errors].sort(byRow);
  return {
    rows: rowCount,
    new: users.filter((user) => user.action !== 'existing').length,
    existing: users.filter((user) => user.action === 'existing').length,
    skipped: new Set(sortedErrors.map((error) => error.row)).size,
    errorCount: sortedErrors.length,
    warningCount: kept.length,
    errors: sortedErrors,
    warnings: kept,
  };
}
