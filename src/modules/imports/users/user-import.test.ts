import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  checkRow,
  checkRows,
  linkWarnings,
  narrowToScope,
  resolveCandidates,
  type ResolvedUser,
  shown,
  storedIdentifierKey,
  summarise,
  type UserImportSettings,
} from './user-import.js';

const settings: UserImportSettings = {
  uniqueAttributes: ['employeeId', 'email'],
  organisationAttribute: 'position',
  jobAttribute: 'jobCode',
};
const types = (messages: { type: string }[]) => messages.map((message) => message.type);

describe('checkRow', () => {
  it('accepts a user with a unique attribute and lists its identifiers in the settings’ order', () => {
    const { candidate, errors, warnings } = checkRow(
      { name: 'Ada', attributes: { email: 'a@x', employeeId: '7', city: 'Oslo' } },
      3,
      settings,
    );
    assert.deepEqual(errors, []);
    assert.deepEqual(warnings, []);
    assert.deepEqual(candidate?.identifiers, [
      { attribute: 'employeeId', value: '7' },
      { attribute: 'email', value: 'a@x' },
    ]);
    assert.equal(candidate?.row, 3);
  });

  it('refuses a row that is not an object, a missing or empty name and attributes that are not an object of strings', () => {
    assert.deepEqual(types(checkRow(42, 1, settings).errors), ['invalid_row']);
    assert.deepEqual(types(checkRow({ attributes: { email: 'a' } }, 1, settings).errors), ['missing_name']);
    assert.deepEqual(types(checkRow({ name: '  ', attributes: { email: 'a' } }, 1, settings).errors), ['missing_name']);
    assert.deepEqual(types(checkRow({ name: 'A', attributes: ['x'] }, 1, settings).errors), ['invalid_attributes']);
    assert.deepEqual(types(checkRow({ name: 'A' }, 1, settings).errors), ['invalid_attributes']);
    const number = checkRow({ name: 'A', attributes: { email: 'a', age: 5 } }, 2, settings).errors;
    assert.deepEqual(number, [
      { type: 'invalid_attribute_value', message: 'The value of attribute "age" must be a string.', value: '5', row: 2 },
    ]);
  });

  it('reads only the row’s own attributes: a unique attribute named like an Object member is absent unless sent', () => {
    const members: UserImportSettings = { ...settings, uniqueAttributes: ['toString', 'constructor'] };
    assert.deepEqual(types(checkRow({ name: 'A', attributes: { city: 'x' } }, 1, members).errors), ['missing_unique_attribute']);
    const sent = checkRow({ name: 'A', attributes: { constructor: 'E1' } }, 1, members);
    assert.deepEqual(sent.candidate?.identifiers, [{ attribute: 'constructor', value: 'E1' }]);
  });

  it('refuses text PostgreSQL cannot store, showing it escaped', () => {
    const { errors } = checkRow({ name: 'A\u0000', attributes: { email: 'a', city: '\ud800' } }, 1, settings);
    assert.deepEqual(types(errors), ['invalid_text', 'invalid_text']);
    assert.equal(errors[0].value, 'A\\u0000');
    assert.equal(errors[1].value, '\\ud800');
  });

  it('refuses a user with no unique attribute value, and warns of empty values and unknown fields', () => {
    const none = checkRow({ name: 'A', attributes: { email: '', city: 'x' } }, 1, settings);
    assert.deepEqual(types(none.errors), ['missing_unique_attribute']);
    const warned = checkRow({ name: 'A', attributes: { email: 'a', city: '' }, role: 'x' }, 1, settings);
    assert.deepEqual(types(warned.warnings), ['unknown_field', 'empty_attribute_value']);
    assert.deepEqual(
      warned.warnings.map((warning) => warning.value),
      ['role', 'city'],
    );
    assert.ok(warned.candidate);
  });

  it('shows a deeply nested value without recursing through it', () => {
    let deep: unknown = [];
    for (let level = 0; level < 10_000; level++) deep = [deep];
    assert.equal(shown(deep), '[a deeply nested array]');
    assert.equal(shown('x'.repeat(500)).length, 201);
  });
});

describe('checkRows', () => {
  it('makes the second and later rows with a unique value already sent errors; the first is kept', () => {
    const checked = checkRows(
      [
        { name: 'A', attributes: { email: 'a' } },
        { name: 'B', attributes: { email: 'a' } },
        { name: 'C', attributes: { employeeId: '1', email: 'a' } },
        { name: 'D', attributes: { email: 'd' } },
      ],
      settings,
    );
    assert.deepEqual(
      checked.candidates.map((candidate) => candidate.row),
      [1, 4],
    );
    assert.deepEqual(
      checked.errors.map((error) => [error.type, error.row, error.value]),
      [
        ['duplicate_unique_value', 2, 'a'],
        ['duplicate_unique_value', 3, 'a'],
      ],
    );
  });
});

describe('resolveCandidates', () => {
  const accountKey = (name: string) => `account|http://t.localhost|${name}`;
  const candidates = (rows: unknown[]) => checkRows(rows, settings).candidates;

  it('updates the user a unique value names, creates the others, adopts an actor only statements named', () => {
    const stored = {
      identifiers: new Map([[storedIdentifierKey({ attribute: 'email', value: 'a' }), 'K1']]),
      actors: new Map([
        ['K1', true],
        [accountKey('s'), false],
      ]),
    };
    const { users, errors } = resolveCandidates(
      candidates([
        { name: 'A', attributes: { email: 'a', employeeId: '9' } },
        { name: 'N', attributes: { email: 'n' } },
        { name: 'S', attributes: { email: 's' } },
      ]),
      stored,
      accountKey,
    );
    assert.deepEqual(errors, []);
    assert.deepEqual(
      users.map((user) => [user.row, user.action, user.agentKey]),
      [
        [1, 'existing', 'K1'],
        [2, 'new', accountKey('n')],
        [3, 'adopt', accountKey('s')],
      ],
    );
    // Row 1 holds "email a" already; its new employeeId is the one value to write.
    assert.deepEqual(
      users.map((user) => user.unheld),
      [[{ attribute: 'employeeId', value: '9' }], [{ attribute: 'email', value: 'n' }], [{ attribute: 'email', value: 's' }]],
    );
  });

  it('answers the same in batches sharing one usedKeys as all rows at once', () => {
    const stored = {
      identifiers: new Map([
        [storedIdentifierKey({ attribute: 'email', value: 'a' }), 'K1'],
        [storedIdentifierKey({ attribute: 'employeeId', value: '3' }), 'K1'],
      ]),
      actors: new Map(),
    };
    const rows = candidates([
      { name: 'A', attributes: { email: 'a' } },
      { name: 'N', attributes: { email: 'n' } },
      { name: 'A again', attributes: { employeeId: '3' } },
    ]);
    const whole = resolveCandidates(rows, stored, accountKey);
    const usedKeys = new Map<string, number>();
    const first = resolveCandidates(rows.slice(0, 2), stored, accountKey, usedKeys);
    const second = resolveCandidates(rows.slice(2), stored, accountKey, usedKeys);
    assert.deepEqual([...first.users, ...second.users], whole.users);
    assert.deepEqual([...first.errors, ...second.errors], whole.errors);
    assert.deepEqual(
      whole.errors.map((error) => [error.type, error.row]),
      [['duplicate_user', 3]],
    );
  });

  it('refuses a row matching two users, two rows matching one user, and an account name another user holds', () => {
    const stored = {
      identifiers: new Map([
        [storedIdentifierKey({ attribute: 'email', value: 'a' }), 'K1'],
        [storedIdentifierKey({ attribute: 'employeeId', value: '2' }), 'K2'],
        [storedIdentifierKey({ attribute: 'email', value: 'c' }), 'K3'],
      ]),
      actors: new Map([[accountKey('old'), true]]),
    };
    const { users, errors } = resolveCandidates(
      candidates([
        { name: 'AB', attributes: { email: 'a', employeeId: '2' } },
        { name: 'C1', attributes: { email: 'c' } },
        { name: 'C2', attributes: { employeeId: '5', email: 'x' } },
        { name: 'O', attributes: { email: 'old' } },
        { name: 'F', attributes: { employeeId: 'f' } },
        { name: 'F2', attributes: { email: 'f' } },
      ]),
      { ...stored, identifiers: new Map([...stored.identifiers, [storedIdentifierKey({ attribute: 'email', value: 'x' }), 'K3']]) },
      accountKey,
    );
    assert.deepEqual(
      users.map((user) => user.row),
      [2, 5],
    );
    assert.deepEqual(
      errors.map((error) => [error.type, error.row]),
      [
        ['ambiguous_match', 1],
        ['duplicate_user', 3],
        ['account_taken', 4],
        ['account_taken', 6],
      ],
    );
  });
});

describe('linkWarnings and summarise', () => {
  it('warns of links to no entry, and counts only imported rows’ warnings', () => {
    const { candidates } = checkRows(
      [
        { name: 'A', attributes: { email: 'a', position: 'P1', jobCode: 'J9' } },
        { name: 'B', attributes: { email: 'b', position: 'P2' } },
      ],
      settings,
    );
    const warnings = linkWarnings(candidates, settings, { organisations: new Set(['P1']), jobs: new Set() });
    assert.deepEqual(
      warnings.map((warning) => [warning.type, warning.row, warning.value]),
      [
        ['unknown_job', 1, 'J9'],
        ['unknown_organisation', 2, 'P2'],
      ],
    );
    const users = candidates
      .slice(0, 1)
      .map((candidate) => ({ ...candidate, agentKey: 'k', action: 'new' as const, unheld: candidate.identifiers }));
    const summary = summarise(3, users, [{ type: 'missing_name', message: '', value: '', row: 3 }], warnings);
    assert.deepEqual(
      { ...summary, errors: summary.errors.length, warnings: summary.warnings.length },
      { rows: 3, new: 1, existing: 0, skipped: 1, errorCount: 1, warningCount: 1, errors: 1, warnings: 1 },
    );
  });
});

describe('narrowToScope', () => {
  const user = (row: number, action: ResolvedUser['action'], attributes: Record<string, string>): ResolvedUser => ({
    row,
    name: `User ${row}`,
    attributes,
    identifiers: [{ attribute: 'email', value: attributes.email }],
    agentKey: `key-${row}`,
    action,
    unheld: [],
  });
  const scope = { entries: new Set(['P1', 'P2']), reachable: new Set(['key-2']) };

  it('keeps the rows that change people of the subtree and place them in it', () => {
    const kept = narrowToScope(
      [user(1, 'new', { email: 'a@x', position: 'P1' }), user(2, 'existing', { email: 'b@x', position: 'P2' })],
      'position',
      scope,
    );
    assert.deepEqual(
      kept.users.map((item) => item.row),
      [1, 2],
    );
    assert.deepEqual(kept.errors, []);
  });

  it('skips a row that matches or adopts someone it does not reach, or places its person outside the subtree or nowhere', () => {
    const { users, errors } = narrowToScope(
      [
        user(1, 'existing', { email: 'out@x', position: 'P1' }),
        user(2, 'existing', { email: 'b@x', position: 'P9' }),
        user(3, 'new', { email: 'c@x' }),
        user(4, 'adopt', { email: 'd@x', position: 'P1' }),
        user(5, 'new', { email: 'e@x', position: '' }),
      ],
      'position',
      scope,
    );
    assert.deepEqual(users, []);
    assert.deepEqual(
      errors.map((error) => [error.row, error.type, error.value]),
      [
        [1, 'out_of_scope', 'out@x'],
        [2, 'out_of_scope', 'P9'],
        [3, 'out_of_scope', ''],
        [4, 'out_of_scope', 'd@x'],
        [5, 'out_of_scope', ''],
      ],
    );
  });

  it('places no one while the tenant links no attribute to the structure', () => {
    const { users, errors } = narrowToScope([user(1, 'new', { email: 'a@x', position: 'P1' })], null, scope);
    assert.deepEqual(users, []);
    assert.match(errors[0]!.message, /organisationAttribute/);
  });
});

describe('attribute names that are Object.prototype members', () => {
  it('treats "toString" and "__proto__" as plain attribute names', () => {
    const odd: UserImportSettings = { uniqueAttributes: ['toString'], organisationAttribute: 'constructor', jobAttribute: null };
    assert.deepEqual(types(checkRow({ name: 'A', attributes: { email: 'a' } }, 1, odd).errors), ['missing_unique_attribute']);
    const sent = JSON.parse('{"name":"A","attributes":{"toString":"T1","__proto__":"x"}}');
    const { candidate } = checkRow(sent, 1, odd);
    assert.deepEqual(candidate?.identifiers, [{ attribute: 'toString', value: 'T1' }]);
    assert.equal(candidate?.attributes.__proto__, 'x');
    assert.deepEqual(linkWarnings(candidate ? [candidate] : [], odd, { organisations: new Set(), jobs: new Set() }), []);
  });
});
