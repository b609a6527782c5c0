import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  MAPPED_ATTRIBUTES,
  SCIM_ENTERPRISE_SCHEMA,
  SCIM_USER_SCHEMA,
  type StoredPerson,
  scimPersonOf,
  scimUserOf,
  versionOf,
} from './scim-user-rules.js';

const user = (overrides: Record<string, unknown> = {}) => ({ schemas: [SCIM_USER_SCHEMA], userName: 'ada@example.com', ...overrides });

const refuses = (body: unknown, code: string, message: RegExp) => assert.throws(() => scimPersonOf(body), { code, status: 400, message });

const person = (overrides: Partial<StoredPerson> = {}): StoredPerson => ({
  id: '6f1c1d5e-8a39-4b55-9d36-2f1e8f3c0a11',
  name: 'Ada Lovelace',
  attributes: { userName: 'ada@example.com' },
  active: true,
  created: new Date('2026-01-02T03:04:05.000Z'),
  lastModified: new Date('2026-02-03T04:05:06.000Z'),
  ...overrides,
});

describe('scimPersonOf', () => {
  it("reads Microsoft Entra ID's create request", () => {
    // The POST /Users body of Entra's SCIM documentation ("Create User").
    const entra = {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      userName: 'Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1',
      active: true,
      emails: [{ primary: true, type: 'work', value: 'Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com' }],
      meta: { resourceType: 'User' },
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      roles: [],
    };
    assert.deepEqual(scimPersonOf(entra), {
      name: 'givenName familyName',
      attributes: {
        userName: 'Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1',
        externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
        givenName: 'givenName',
        familyName: 'familyName',
        email: 'Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com',
      },
      active: true,
    });
  });

  it("reads Okta's create request, ignoring password, locale and groups", () => {
    const okta = {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: 'test.user@okta.local',
      name: { givenName: 'Test', familyName: 'User' },
      emails: [{ primary: true, value: 'test.user@okta.local', type: 'work' }],
      displayName: 'Test User',
      locale: 'en-US',
      externalId: '00ujl29u0le5T6Aj10h7',
      groups: [],
      password: '1mz050nq',
      active: true,
    };
    assert.deepEqual(scimPersonOf(okta), {
      name: 'Test User',
      attributes: {
        userName: 'test.user@okta.local',
        externalId: '00ujl29u0le5T6Aj10h7',
        givenName: 'Test',
        familyName: 'User',
        email: 'test.user@okta.local',
      },
      active: true,
    });
  });

  it('reads the enterprise extension, manager as an object or (as Okta sends it) the id alone', () => {
    const extension = { employeeNumber: '701984', costCenter: '4130', organization: 'Universal Studios', division: 'Theme Park' };
    const withObject = scimPersonOf(
      user({ [SCIM_ENTERPRISE_SCHEMA]: { ...extension, department: 'Tour Operations', manager: { value: 'm-1', displayName: 'John' } } }),
    );
    assert.deepEqual(withObject.attributes, {
      userName: 'ada@example.com',
      ...extension,
      department: 'Tour Operations',
      manager: 'm-1',
    });
    assert.equal(scimPersonOf(user({ [SCIM_ENTERPRISE_SCHEMA]: { manager: 'm-2' } })).attributes.manager, 'm-2');
  });

  it('takes the name from displayName, else name.formatted, else given and family name, else userName', () => {
    const name = (body: Record<string, unknown>) => scimPersonOf(user(body)).name;
    assert.equal(name({ displayName: 'Ada', name: { formatted: 'Countess', givenName: 'A', familyName: 'L' } }), 'Ada');
    assert.equal(name({ name: { formatted: 'Countess', givenName: 'A', familyName: 'L' } }), 'Countess');
    assert.equal(name({ name: { givenName: ' Ada ', familyName: 'Lovelace' } }), 'Ada Lovelace');
    assert.equal(name({ name: { familyName: 'Lovelace' } }), 'Lovelace');
    assert.equal(name({ displayName: '', name: { givenName: '  ' } }), 'ada@example.com');
  });

  it('reads attribute names in any case (RFC 7643 §2.1), the enterprise URN too', () => {
    const read = scimPersonOf({
      SCHEMAS: [SCIM_USER_SCHEMA.toUpperCase()],
      UserName: 'ada',
      NAME: { GivenName: 'Ada', familyname: 'Lovelace' },
      EMAILS: [{ VALUE: 'ada@example.com', Primary: 'True' }],
      Active: 'False',
      [SCIM_ENTERPRISE_SCHEMA.toUpperCase()]: { Department: 'R&D', MANAGER: { Value: 'm-1' } },
    });
    assert.deepEqual(read, {
      name: 'Ada Lovelace',
      attributes: {
        userName: 'ada',
        givenName: 'Ada',
        familyName: 'Lovelace',
        email: 'ada@example.com',
        department: 'R&D',
        manager: 'm-1',
      },
      active: false,
    });
  });

  it('keeps the primary email, else the first', () => {
    const emails = [
      { value: 'home@example.com', type: 'home' },
      { value: 'work@example.com', type: 'work', primary: true },
      { value: 'x@example.com' },
    ];
    assert.equal(scimPersonOf(user({ emails })).attributes.email, 'work@example.com');
    assert.equal(scimPersonOf(user({ emails: emails.map(({ value }) => ({ value })) })).attributes.email, 'home@example.com');
    assert.equal(scimPersonOf(user({ emails: [] })).attributes.email, undefined);
  });

  it('reads active as true or false, the strings "true" and "false" in any case, and true when absent', () => {
    assert.equal(scimPersonOf(user()).active, true);
    assert.equal(scimPersonOf(user({ active: null })).active, true);
    assert.equal(scimPersonOf(user({ active: false })).active, false);
    assert.equal(scimPersonOf(user({ active: 'True' })).active, true);
    assert.equal(scimPersonOf(user({ active: 'FALSE' })).active, false);
    refuses(user({ active: 'no' }), 'scim.invalidValue', /"active" must be true or false, not a string/);
    refuses(user({ active: 0 }), 'scim.invalidValue', /"active" must be true or false, not a number/);
  });

  it('reads null and empty optional values as absent', () => {
    const read = scimPersonOf(
      user({ externalId: null, title: '', name: { givenName: null }, emails: null, [SCIM_ENTERPRISE_SCHEMA]: null }),
    );
    assert.deepEqual(read.attributes, { userName: 'ada@example.com' });
  });

  it('refuses a body that is no object or lacks the User schema', () => {
    refuses([], 'scim.invalidSyntax', /A SCIM User must be a JSON object, not an array/);
    refuses('ada', 'scim.invalidSyntax', /not a string/);
    refuses({ userName: 'ada' }, 'scim.invalidSyntax', /"schemas" must be an array holding "urn:ietf:params:scim:schemas:core:2\.0:User"/);
    refuses(user({ schemas: [SCIM_ENTERPRISE_SCHEMA] }), 'scim.invalidSyntax', /"schemas" must be an array/);
    refuses(user({ schemas: SCIM_USER_SCHEMA }), 'scim.invalidSyntax', /"schemas" must be an array/);
  });

  it('requires a non-empty userName', () => {
    refuses(user({ userName: undefined }), 'scim.invalidValue', /^"userName" must be a non-empty string\.$/);
    refuses(user({ userName: '   ' }), 'scim.invalidValue', /^"userName" must be a non-empty string\.$/);
    refuses(user({ userName: 42 }), 'scim.invalidValue', /^"userName" must be a string, not a number\.$/);
  });

  it('refuses a mapped value of the wrong type, naming the attribute', () => {
    refuses(user({ title: 7 }), 'scim.invalidValue', /^"title" must be a string, not a number\.$/);
    refuses(user({ externalId: { id: 1 } }), 'scim.invalidValue', /^"externalId" must be a string, not an object\.$/);
    refuses(user({ name: 'Ada' }), 'scim.invalidValue', /^"name" must be an object, not a string\.$/);
    refuses(user({ name: { familyName: ['L'] } }), 'scim.invalidValue', /^"name\.familyName" must be a string, not an array\.$/);
    refuses(user({ emails: 'ada@example.com' }), 'scim.invalidValue', /"emails" must be an array of objects.*not a string/);
    refuses(user({ emails: ['ada@example.com'] }), 'scim.invalidValue', /"emails\[0\]" is a string/);
    refuses(user({ emails: [{ type: 'work' }] }), 'scim.invalidValue', /"emails\[0\]\.value" is missing/);
    refuses(user({ [SCIM_ENTERPRISE_SCHEMA]: 'R&D' }), 'scim.invalidValue', /enterprise:2\.0:User" must be an object, not a string/);
    refuses(
      user({ [SCIM_ENTERPRISE_SCHEMA]: { employeeNumber: 701984 } }),
      'scim.invalidValue',
      /User:employeeNumber" must be a string, not a number/,
    );
    refuses(
      user({ [SCIM_ENTERPRISE_SCHEMA]: { manager: 5 } }),
      'scim.invalidValue',
      /User:manager" must be an object with a string "value", not a number/,
    );
  });

  it('refuses text PostgreSQL cannot store, naming the attribute', () => {
    refuses(user({ title: 'a\u0000b' }), 'scim.invalidValue', /^"title" must not contain U\+0000/);
    refuses(user({ name: { givenName: 'A\uD800' } }), 'scim.invalidValue', /^"name\.givenName" must not contain a lone surrogate/);
    refuses(user({ emails: [{ value: '\uDC00@x' }] }), 'scim.invalidValue', /^"emails\[0\]\.value" must not contain a lone surrogate/);
  });

  it('refuses an attribute named twice in different cases', () => {
    refuses(user({ USERNAME: 'other' }), 'scim.invalidSyntax', /names "userName" more than once \("userName", "USERNAME"\)/);
  });
});

describe('scimUserOf', () => {
  it('shows a person as a User with its meta and version', () => {
    const resource = scimUserOf(
      person({
        attributes: {
          userName: 'ada@example.com',
          externalId: 'e-1',
          givenName: 'Ada',
          familyName: 'Lovelace',
          email: 'ada@example.com',
          title: 'Analyst',
          department: 'R&D',
          manager: 'm-1',
          siteCode: 'LDN',
        },
      }),
      'https://lb.example/scim/v2/Users/6f1c1d5e-8a39-4b55-9d36-2f1e8f3c0a11',
    );
    const { meta, ...content } = resource;
    assert.deepEqual(content, {
      schemas: [SCIM_USER_SCHEMA, SCIM_ENTERPRISE_SCHEMA],
      id: '6f1c1d5e-8a39-4b55-9d36-2f1e8f3c0a11',
      externalId: 'e-1',
      userName: 'ada@example.com',
      name: { givenName: 'Ada', familyName: 'Lovelace', formatted: 'Ada Lovelace' },
      displayName: 'Ada Lovelace',
      emails: [{ value: 'ada@example.com', type: 'work', primary: true }],
      title: 'Analyst',
      active: true,
      [SCIM_ENTERPRISE_SCHEMA]: { department: 'R&D', manager: { value: 'm-1' } },
    });
    assert.deepEqual(meta, {
      resourceType: 'User',
      created: '2026-01-02T03:04:05.000Z',
      lastModified: '2026-02-03T04:05:06.000Z',
      location: 'https://lb.example/scim/v2/Users/6f1c1d5e-8a39-4b55-9d36-2f1e8f3c0a11',
      version: versionOf(content),
    });
  });

  it('leaves out what the person has not', () => {
    const resource = scimUserOf(person({ name: null, active: false }), '/Users/x');
    assert.deepEqual(Object.keys(resource), ['schemas', 'id', 'userName', 'active', 'meta']);
    assert.deepEqual(resource.schemas, [SCIM_USER_SCHEMA]);
    assert.equal(resource.active, false);
  });

  it('shows what scimPersonOf reads back as the same person', () => {
    const attributes = {
      userName: 'u',
      externalId: 'e',
      givenName: 'G',
      familyName: 'F',
      title: 'T',
      email: 'e@x',
      employeeNumber: '1',
      manager: 'm',
    };
    const read = scimPersonOf(scimUserOf(person({ name: 'Shown', attributes, active: false }), '/Users/x'));
    assert.deepEqual(read, { name: 'Shown', attributes, active: false });
  });

  it('maps no attribute MAPPED_ATTRIBUTES does not list', () => {
    const everything = {
      userName: 'u',
      externalId: 'e',
      title: 't',
      name: { givenName: 'g', familyName: 'f' },
      emails: [{ value: 'e@x' }],
      [SCIM_ENTERPRISE_SCHEMA]: { employeeNumber: '1', department: 'd', costCenter: 'c', organization: 'o', division: 'v', manager: 'm' },
    };
    assert.deepEqual(Object.keys(scimPersonOf(user(everything)).attributes).sort(), [...MAPPED_ATTRIBUTES].sort());
  });
});

describe('versionOf', () => {
  it('is a weak ETag of 20 hex digits that ignores key order and meta', () => {
    const version = versionOf({ a: 1, b: { c: [1, { d: 2, e: 3 }] } });
    assert.match(version, /^W\/"[0-9a-f]{20}"$/);
    assert.equal(versionOf({ b: { c: [1, { e: 3, d: 2 }] }, a: 1 }), version);
    assert.equal(versionOf({ a: 1, b: { c: [1, { d: 2, e: 3 }] }, meta: { lastModified: 'now' } }), version);
  });

  it('changes with the content', () => {
    assert.notEqual(versionOf({ a: 1 }), versionOf({ a: 2 }));
    assert.notEqual(versionOf({ a: [1, 2] }), versionOf({ a: [2, 1] }));
    assert.notEqual(versionOf({ a: '1' }), versionOf({ a: 1 }));
  });
});
