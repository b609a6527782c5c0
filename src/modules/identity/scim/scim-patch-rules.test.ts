import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyScimPatch, MAX_PATCH_OPERATIONS } from './scim-patch-rules.js';
import { SCIM_ENTERPRISE_SCHEMA, SCIM_PATCH_SCHEMA, SCIM_USER_SCHEMA } from './scim-schema.js';
import { type StoredPerson, scimPersonOf, scimUserOf } from './scim-user-rules.js';

const ID = '6f1c1d5e-8a39-4b55-9d36-2f1e8f3c0a11';

const user = (overrides: Partial<StoredPerson> = {}) =>
  scimUserOf(
    {
      id: ID,
      name: 'Ada Lovelace',
      attributes: { userName: 'ada@example.com', givenName: 'Ada', familyName: 'Lovelace', email: 'ada@example.com' },
      active: true,
      created: new Date('2026-01-01T00:00:00Z'),
      lastModified: new Date('2026-01-01T00:00:00Z'),
      ...overrides,
    },
    `/scim/v2/Users/${ID}`,
  );

const body = (...Operations: unknown[]) => ({ schemas: [SCIM_PATCH_SCHEMA], Operations });

/** The person the patched User describes, as the service reads it. */
const patched = (operations: unknown, resource = user()) => scimPersonOf(applyScimPatch(resource, operations));

const refuses = (operations: unknown, code: string, message: RegExp, resource = user()) =>
  assert.throws(() => applyScimPatch(resource, operations), { code, status: 400, message });

describe('applyScimPatch: Microsoft Entra ID', () => {
  it('deactivates with "Replace" active "False" (a string)', () => {
    const entra = {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    };
    const resource = applyScimPatch(user(), entra);
    assert.equal(resource.active, false);
    assert.equal(scimPersonOf(resource).active, false);
    assert.equal(patched(body({ op: 'Replace', path: 'active', value: 'True' }), user({ active: false })).active, true);
  });

  it('adds the work email through a value filter when the User has none yet', () => {
    const resource = applyScimPatch(
      user({ attributes: { userName: 'ada' } }),
      body({ op: 'Add', path: 'emails[type eq "work"].value', value: 'x@y.com' }),
    );
    assert.deepEqual(resource.emails, [{ type: 'work', value: 'x@y.com' }]);
    assert.equal(scimPersonOf(resource).attributes.email, 'x@y.com');
  });

  it('adds a whole work email entry through a value filter', () => {
    const resource = applyScimPatch(
      user({ attributes: { userName: 'ada' } }),
      body({ op: 'add', path: 'emails[type eq "work"]', value: { value: 'x@y.com' } }),
    );
    assert.deepEqual(resource.emails, [{ type: 'work', value: 'x@y.com' }]);
  });

  it('reads a filter whose value holds dots', () => {
    const resource = applyScimPatch(
      user(),
      body({ op: 'replace', path: 'emails[value eq "ada@example.com"].value', value: 'a.l@example.co.uk' }),
    );
    assert.deepEqual(resource.emails, [{ value: 'a.l@example.co.uk', type: 'work', primary: true }]);
  });

  it('changes the work email in place with the same Add', () => {
    const resource = applyScimPatch(user(), body({ op: 'Add', path: 'emails[type eq "work"].value', value: 'new@y.com' }));
    assert.deepEqual(resource.emails, [{ value: 'new@y.com', type: 'work', primary: true }]);
  });

  it('removes the work email with Remove on its value', () => {
    const resource = applyScimPatch(user(), body({ op: 'Remove', path: 'emails[type eq "work"].value' }));
    assert.equal(resource.emails, undefined);
    assert.equal(scimPersonOf(resource).attributes.email, undefined);
  });

  it('sets the manager from the id alone on the enterprise path', () => {
    const resource = applyScimPatch(
      user(),
      body({
        op: 'Replace',
        path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager',
        value: '2819c223-7f76-453a-919d-413861904646',
      }),
    );
    assert.deepEqual(resource[SCIM_ENTERPRISE_SCHEMA], { manager: { value: '2819c223-7f76-453a-919d-413861904646' } });
    assert.deepEqual(resource.schemas, [SCIM_USER_SCHEMA, SCIM_ENTERPRISE_SCHEMA]);
    assert.equal(scimPersonOf(resource).attributes.manager, '2819c223-7f76-453a-919d-413861904646');
  });

  it('reads the manager as older Entra jobs send it, and removes it', () => {
    const path = `${SCIM_ENTERPRISE_SCHEMA}:manager`;
    assert.equal(patched(body({ op: 'Add', path, value: [{ value: 'm-1' }] })).attributes.manager, 'm-1');
    const withManager = user({ attributes: { userName: 'ada', manager: 'm-1', department: 'R&D' } });
    const removed = applyScimPatch(withManager, body({ op: 'Remove', path, value: [{ value: 'm-1' }] }));
    assert.deepEqual(removed[SCIM_ENTERPRISE_SCHEMA], { department: 'R&D' });
    const cleared = applyScimPatch(
      withManager,
      body({ op: 'Remove', path: `${SCIM_ENTERPRISE_SCHEMA}:department` }, { op: 'Remove', path }),
    );
    assert.equal(cleared[SCIM_ENTERPRISE_SCHEMA], undefined);
    assert.deepEqual(cleared.schemas, [SCIM_USER_SCHEMA]);
  });

  it('adds a sub-attribute named by a dotted key in a value without path, keeping the others', () => {
    const read = patched(body({ op: 'Add', value: { 'name.givenName': 'Augusta' } }));
    assert.equal(read.attributes.givenName, 'Augusta');
    assert.equal(read.attributes.familyName, 'Lovelace');
  });

  it('replaces several attributes in one value without path, a filter and a URN among its keys', () => {
    const entra = body({
      op: 'replace',
      value: {
        displayName: 'Pvlo',
        'emails[type eq "work"].value': 'TestBcwqnm@test.microsoft.com',
        'name.givenName': 'Henrietta',
        'name.familyName': 'Pavlovich',
        'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department': 'R&D',
      },
    });
    assert.deepEqual(patched(entra), {
      name: 'Pvlo',
      attributes: {
        userName: 'ada@example.com',
        givenName: 'Henrietta',
        familyName: 'Pavlovich',
        email: 'TestBcwqnm@test.microsoft.com',
        department: 'R&D',
      },
      active: true,
    });
  });

  it('replaces title and adds the email in one request', () => {
    const read = patched(
      body({ op: 'Replace', path: 'title', value: 'tester' }, { op: 'Add', path: 'emails[type eq "work"].value', value: 'joe@joe.com' }),
    );
    assert.equal(read.attributes.title, 'tester');
    assert.equal(read.attributes.email, 'joe@joe.com');
  });
});

describe('applyScimPatch: Okta', () => {
  it('deactivates with a replace without path', () => {
    const okta = { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', value: { active: false } }] };
    assert.equal(patched(okta).active, false);
  });

  it('accepts the resource’s own id in the value, and refuses another', () => {
    assert.equal(patched(body({ op: 'replace', value: { id: ID, active: false } })).active, false);
    refuses(body({ op: 'replace', value: { id: 'other', active: false } }), 'scim.mutability', /Operations\[0\] would change "id"/);
  });

  it('replaces a complex attribute sub-attribute by sub-attribute (RFC 7644 §3.5.2.3)', () => {
    const read = patched(body({ op: 'replace', value: { name: { givenName: 'Augusta' } } }));
    assert.deepEqual([read.attributes.givenName, read.attributes.familyName], ['Augusta', 'Lovelace']);
    const path = patched(body({ op: 'replace', path: 'name', value: { familyName: 'King' } }));
    assert.deepEqual([path.attributes.givenName, path.attributes.familyName], ['Ada', 'King']);
  });

  it('makes an added primary email the only primary one (RFC 7644 §3.5.2)', () => {
    const resource = applyScimPatch(
      user(),
      body({ op: 'add', path: 'emails', value: [{ value: 'new@example.com', type: 'work', primary: true }] }),
    );
    assert.deepEqual(resource.emails, [
      { value: 'ada@example.com', type: 'work', primary: false },
      { value: 'new@example.com', type: 'work', primary: true },
    ]);
    assert.equal(scimPersonOf(resource).attributes.email, 'new@example.com');
  });

  it('replaces the emails whole', () => {
    const read = patched(body({ op: 'replace', path: 'emails', value: [{ value: 'only@example.com', primary: 'true' }] }));
    assert.equal(read.attributes.email, 'only@example.com');
  });
});

describe('applyScimPatch: reading operations', () => {
  it('reads op, Operations and attribute names in any case', () => {
    const read = patched({
      schemas: [SCIM_PATCH_SCHEMA],
      operations: [
        { OP: 'REPLACE', Path: 'Active', Value: false },
        { op: 'replace', path: 'USERNAME', value: 'augusta@example.com' },
        { op: 'add', path: 'Name.GivenName', value: 'Augusta' },
        { op: 'add', path: `${SCIM_ENTERPRISE_SCHEMA.toUpperCase()}:Department`, value: 'R&D' },
        { op: 'add', path: `${SCIM_USER_SCHEMA}:title`, value: 'Countess' },
      ],
    });
    assert.equal(read.active, false);
    assert.deepEqual(read.attributes, {
      userName: 'augusta@example.com',
      givenName: 'Augusta',
      familyName: 'Lovelace',
      title: 'Countess',
      email: 'ada@example.com',
      department: 'R&D',
    });
  });

  it('applies the operations in order', () => {
    const read = patched(
      body({ op: 'replace', path: 'title', value: 'a' }, { op: 'remove', path: 'title' }, { op: 'add', path: 'title', value: 'b' }),
    );
    assert.equal(read.attributes.title, 'b');
  });

  it('lets name.formatted and displayName follow each other, as they show one name', () => {
    const byDisplay = applyScimPatch(user(), body({ op: 'replace', path: 'displayName', value: 'Countess' }));
    assert.deepEqual(byDisplay.name, { givenName: 'Ada', familyName: 'Lovelace', formatted: 'Countess' });
    assert.equal(patched(body({ op: 'replace', path: 'name.formatted', value: 'Countess' })).name, 'Countess');
    assert.equal(patched(body({ op: 'remove', path: 'displayName' })).name, 'Ada Lovelace');
  });

  it('drops attributes the person has no place for', () => {
    const resource = applyScimPatch(
      user(),
      body(
        { op: 'add', path: 'phoneNumbers[type eq "work"].value', value: '+44 20' },
        { op: 'replace', path: 'urn:ietf:params:scim:schemas:extension:custom:2.0:User:worksiteId', value: '180' },
        { op: 'add', value: { nickName: 'Ada', 'name.middleName': 'Byron', schemas: [] } },
        { op: 'add', path: 'schemas', value: ['urn:x'] },
      ),
    );
    assert.deepEqual(resource, user());
  });

  it('leaves the resource given unchanged', () => {
    const resource = user();
    const copy = structuredClone(resource);
    applyScimPatch(resource, body({ op: 'replace', value: { active: false, 'name.givenName': 'X' } }));
    assert.deepEqual(resource, copy);
  });

  it('removes nothing, without error, where a filter matches nothing', () => {
    assert.deepEqual(applyScimPatch(user(), body({ op: 'remove', path: 'emails[type eq "home"]' })), user());
    const noEmail = user({ attributes: { userName: 'ada' } });
    assert.deepEqual(applyScimPatch(noEmail, body({ op: 'remove', path: 'emails[type eq "work"].value' })), noEmail);
  });

  it('reads a replace to null as a remove', () => {
    assert.equal(patched(body({ op: 'replace', path: 'name.familyName', value: null })).attributes.familyName, undefined);
  });
});

describe('applyScimPatch: refusals', () => {
  it('refuses a body that is no PatchOp', () => {
    refuses([], 'scim.invalidSyntax', /A PATCH body must be a JSON object, not an array/);
    refuses(
      { Operations: [] },
      'scim.invalidSyntax',
      /"schemas" must be an array holding "urn:ietf:params:scim:api:messages:2\.0:PatchOp"/,
    );
    refuses({ schemas: [SCIM_PATCH_SCHEMA] }, 'scim.invalidSyntax', /"Operations" is missing/);
    refuses(body(), 'scim.invalidValue', /"Operations" must hold at least one operation/);
    const many = Array.from({ length: MAX_PATCH_OPERATIONS + 1 }, () => ({ op: 'replace', path: 'title', value: 't' }));
    refuses(body(...many), 'scim.invalidValue', /holds 1001 operations; at most 1000/);
    refuses(body('replace'), 'scim.invalidSyntax', /Operations\[0\] must be an object, not a string/);
    refuses(
      body({ op: 'move', path: 'title' }),
      'scim.invalidSyntax',
      /Operations\[0\]\.op must be "add", "replace" or "remove", not "move"/,
    );
  });

  it('refuses a remove without path, an add without value, a value without path that is no object', () => {
    refuses(body({ op: 'Remove' }), 'scim.noTarget', /Operations\[0\] is a remove without a path/);
    refuses(body({ op: 'add', path: 'title' }), 'scim.invalidValue', /Operations\[0\] \(add\) must have a "value"/);
    refuses(body({ op: 'replace', value: 'x' }), 'scim.invalidValue', /must be an object of attributes when there is no path/);
  });

  it('refuses a change of id or meta', () => {
    refuses(body({ op: 'replace', path: 'id', value: ID }), 'scim.mutability', /would change "id", which the service provider assigns/);
    refuses(body({ op: 'remove', path: 'meta.lastModified' }), 'scim.mutability', /would change "meta"/);
    refuses(body({ op: 'add', value: { meta: { version: 'W/"1"' } } }), 'scim.mutability', /would change "meta"/);
  });

  it('refuses a malformed path', () => {
    refuses(body({ op: 'add', path: 7, value: 'x' }), 'scim.invalidPath', /Operations\[0\]\.path must be a string, not a number/);
    refuses(body({ op: 'add', path: 'title..x', value: 'x' }), 'scim.invalidPath', /path "title\.\.x" is not a SCIM attribute path/);
    refuses(body({ op: 'add', path: 'title.x', value: 'x' }), 'scim.invalidPath', /names a sub-attribute of "title", which has none/);
    refuses(body({ op: 'add', path: 'title[value eq "x"]', value: 'x' }), 'scim.invalidPath', /filters "title", which is single-valued/);
    refuses(body({ op: 'add', path: 'emails[type eq]', value: 'x' }), 'scim.invalidPath', /has a filter that cannot be read/);
    refuses(
      body({ op: 'add', path: 'emails.value', value: 'x' }),
      'scim.invalidPath',
      /choose one with a filter, as emails\[type eq "work"\]\.value/,
    );
    refuses(body({ op: 'add', path: 'x'.repeat(1001), value: 'x' }), 'scim.invalidPath', /is longer than 1000 characters/);
  });

  it("answers noTarget for scim-patch's own refusal of a filter that matches nothing", () => {
    refuses(
      body({ op: 'replace', path: 'emails[type eq "home" or type eq "other"].value', value: 'h@x' }),
      'scim.noTarget',
      /^Operations\[0\] \(path "emails\[type eq \\"home\\" or type eq \\"other\\"\]\.value"\) cannot be applied: Target location/,
    );
  });

  it('answers noTarget where a filter matches nothing and says no entry to create', () => {
    refuses(
      body({ op: 'replace', path: 'emails[type eq "home" or type eq "other"]', value: { value: 'h@x' } }),
      'scim.noTarget',
      /Operations\[0\]: no entry of "emails" matches the filter of path "emails\[type eq \\"home\\" or type eq \\"other\\"\]"/,
    );
  });

  it('refuses a value of the wrong type, naming the attribute', () => {
    refuses(body({ op: 'replace', path: 'active', value: 'maybe' }), 'scim.invalidValue', /"active" must be true or false, not a string/);
    refuses(body({ op: 'replace', value: { active: 'maybe' } }), 'scim.invalidValue', /"active" must be true or false/);
    refuses(
      body({ op: 'replace', path: 'title', value: { text: 'x' } }),
      'scim.invalidValue',
      /^"title" must be a string, not an object\.$/,
    );
    refuses(body({ op: 'replace', path: 'name', value: 'Ada' }), 'scim.invalidValue', /^"name" must be an object, not a string\.$/);
    refuses(
      body({ op: 'add', path: 'emails', value: ['x@y'] }),
      'scim.invalidValue',
      /"emails\[0\]" must be an object with a string "value"/,
    );
    refuses(
      body({ op: 'add', path: 'emails[type eq "work"].primary', value: 'yes' }),
      'scim.invalidValue',
      /primary" must be true or false/,
    );
  });

  it('lets no path or key reach into Object.prototype', () => {
    refuses(body({ op: 'add', path: '__proto__.polluted', value: 'x' }), 'scim.invalidPath', /is not a SCIM attribute path/);
    for (const operation of [
      { op: 'add', path: 'toString.polluted', value: 'x' },
      { op: 'add', path: 'constructor.prototype.polluted', value: 'x' },
      { op: 'add', value: { '__proto__.polluted': 'x', 'toString.polluted': 'x', constructor: { polluted: 'x' } } },
      { op: 'add', value: JSON.parse('{"__proto__": {"polluted": "x"}}') },
      { op: 'replace', path: 'emails[type eq "work"]', value: JSON.parse('{"__proto__": {"polluted": "x"}, "value": "a@b"}') },
    ]) {
      try {
        applyScimPatch(user(), body(operation));
      } catch {
        // Refusing is as good as ignoring: what matters is what follows.
      }
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal((Object.prototype.toString as unknown as Record<string, unknown>).polluted, undefined);
  });
});
