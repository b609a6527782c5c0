import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../../platform/http/app-error.js';
import { isAttributesKey } from '../attributes/actor-attributes.js';
import { identifiersOf, parseAgentWrite, personWriteOf, resolveAgentWrite, type AgentWrite } from './agent-upsert.js';

const ATTRIBUTES = 'http://lrs.example.com/api/ext/agent/attributes';

/** The error a call throws: its code, status and message. */
function refusal(call: () => unknown): { code: string; status: number; message: string; details?: Record<string, unknown> } {
  try {
    call();
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    return { code: error.code, status: error.status, message: error.message, details: error.details };
  }
  assert.fail('expected a refusal');
}

describe('personWriteOf', () => {
  it('is the Agent a module would have sent, built here: the identifier, the name, the attributes', () => {
    const ifi = { account: { homePage: 'https://hr.example.com', name: 'E1' } };
    const attributes = { email: 'ada@example.com', city: 'London' };
    assert.deepEqual(
      personWriteOf({ ifi, name: 'Ada', attributes }),
      parseAgentWrite({ ...ifi, name: 'Ada', extensions: { 'http://localhost/api/ext/agent/attributes': attributes } }),
    );
    assert.deepEqual(personWriteOf({ ifi }), { key: 'account|https://hr.example.com|E1', ifiProperty: 'account', ifi });
  });

  it('checks what it is given as the agents route checks it', () => {
    const ifi = { mbox: 'mailto:ada@x.org' };
    assert.equal(refusal(() => personWriteOf({ ifi, attributes: { '': 'x' } })).code, 'actors.invalid_agent');
    assert.match(refusal(() => personWriteOf({ ifi, name: 'A\u0000da' })).message, /name/);
    assert.equal(refusal(() => personWriteOf({ ifi: { mbox: 'ada@x.org' } })).code, 'actors.invalid_agent');
  });
});

describe('parseAgentWrite', () => {
  it('reads each kind of identifier into its canonical key and IFI', () => {
    assert.deepEqual(parseAgentWrite({ objectType: 'Agent', name: 'Ada', mbox: 'mailto:ada@x.org' }), {
      key: 'mbox|mailto:ada@x.org',
      ifiProperty: 'mbox',
      ifi: { mbox: 'mailto:ada@x.org' },
      name: 'Ada',
    });
    assert.equal(parseAgentWrite({ mbox_sha1sum: 'A'.repeat(40) }).key, `mbox_sha1sum|${'a'.repeat(40)}`);
    assert.equal(parseAgentWrite({ openid: 'http://id.example.com/ada' }).key, 'openid|http://id.example.com/ada');
    assert.deepEqual(parseAgentWrite({ account: { homePage: 'http://hr.example.com', name: 'E1' } }).ifi, {
      account: { homePage: 'http://hr.example.com', name: 'E1' },
    });
  });

  it('takes the attributes under the attributes key of any host, ignores other extensions', () => {
    const write = parseAgentWrite({
      mbox: 'mailto:ada@x.org',
      extensions: {
        'https://old.example.net:8443/api/ext/agent/attributes': { email: 'ada@x.org', __proto__x: 'y' },
        'http://example.com/other': [1],
      },
    });
    assert.deepEqual(write.attributes, { email: 'ada@x.org', __proto__x: 'y' });
    assert.equal(parseAgentWrite({ mbox: 'mailto:ada@x.org', extensions: { 'http://example.com/other': 1 } }).attributes, undefined);
    const proto = parseAgentWrite({ mbox: 'mailto:a@x.org', extensions: { [ATTRIBUTES]: JSON.parse('{"__proto__": "p"}') } });
    assert.equal(Object.hasOwn(proto.attributes!, '__proto__'), true);
  });

  it('refuses every invalid agent with 400 actors.invalid_agent naming the problem', () => {
    const cases: Array<[unknown, RegExp]> = [
      [[], /JSON object/],
      [{ name: 'No IFI' }, /exactly one inverse functional identifier.*it has 0/],
      [{ mbox: 'mailto:a@x.org', openid: 'http://x.org/a' }, /exactly one inverse functional identifier.*it has 2/],
      [{ mbox: 'ada@x.org' }, /'agent'\.mbox must be a "mailto:" IRI/],
      [{ mbox_sha1sum: 'abc' }, /mbox_sha1sum must be 40 hexadecimal digits/],
      [{ account: { name: 'E1' } }, /account\.homePage must be an absolute IRL/],
      [{ account: { homePage: 'http://hr.example.com' } }, /account\.name must be a non-empty string/],
      [{ objectType: 'Group', mbox: 'mailto:a@x.org' }, /objectType must be "Agent": groups are recorded from the statements/],
      [{ objectType: 'Person', mbox: 'mailto:a@x.org' }, /objectType must be "Agent"/],
      [{ mbox: 'mailto:a@x.org', member: [] }, /property "member", which an agent does not have/],
      [{ mbox: 'mailto:a@x.org', name: 5 }, /'agent'\.name must be a string/],
      [{ mbox: 'mailto:a@x.org', extensions: [] }, /extensions must be an object/],
      [{ mbox: 'mailto:a@x.org', extensions: { [ATTRIBUTES]: 'x' } }, /must be an object of attribute names to string values/],
      [{ mbox: 'mailto:a@x.org', extensions: { [ATTRIBUTES]: { age: 42 } } }, /The value of attribute "age" must be a string/],
      [{ mbox: 'mailto:a@x.org', extensions: { [ATTRIBUTES]: { '': 'x' } } }, /empty name/],
      [
        { mbox: 'mailto:a@x.org', extensions: { [ATTRIBUTES]: {}, 'http://b.example/api/ext/agent/attributes': {} } },
        /attributes key twice/,
      ],
      [{ mbox: 'mailto:a@x.org', name: 'A\u0000' }, /'agent'\.name must not contain U\+0000/],
      [{ mbox: 'mailto:a@x.org', extensions: { [ATTRIBUTES]: { city: '\ud800' } } }, /lone surrogate/],
    ];
    for (const [body, message] of cases) {
      const error = refusal(() => parseAgentWrite(body));
      assert.equal(error.code, 'actors.invalid_agent', JSON.stringify(body));
      assert.equal(error.status, 400);
      assert.match(error.message, message, JSON.stringify(body));
    }
  });
});

describe('isAttributesKey', () => {
  it('accepts the attributes path on any http(s) host, nothing else', () => {
    for (const key of [ATTRIBUTES, 'https://a.b:8080/api/ext/agent/attributes', 'http://localhost/api/ext/agent/attributes'])
      assert.equal(isAttributesKey(key), true, key);
    for (const key of [
      'http://x/api/ext/agent/job',
      'ftp://x/api/ext/agent/attributes',
      'http://x/api/ext/agent/attributes?a=1',
      'attributes',
      'http://x/api/ext/agent/attributes/',
    ]) {
      assert.equal(isAttributesKey(key), false, key);
    }
  });
});

describe('resolveAgentWrite', () => {
  const write: AgentWrite = {
    key: 'mbox|mailto:new@x.org',
    ifiProperty: 'mbox',
    ifi: { mbox: 'mailto:new@x.org' },
    attributes: { email: 'e@x', employeeId: 'E1' },
  };
  const identifiers = identifiersOf(write.attributes, ['email', 'employeeId']);

  it('takes the unique values in the settings’ order, empty ones left out', () => {
    assert.deepEqual(identifiersOf({ employeeId: 'E1', email: '' }, ['email', 'employeeId']), [{ attribute: 'employeeId', value: 'E1' }]);
    assert.deepEqual(identifiersOf(undefined, ['email']), []);
  });

  it('matches by the identifier first, then by a unique attribute, else creates', () => {
    assert.deepEqual(resolveAgentWrite(write, identifiers, { byKey: { objectType: 'Agent' }, holders: [] }), {
      action: 'update',
      key: write.key,
      matchedBy: 'mbox',
    });
    assert.deepEqual(
      resolveAgentWrite(write, identifiers, { holders: [{ attribute: 'employeeId', value: 'E1', agentKey: 'account|h|E1' }] }),
      {
        action: 'update',
        key: 'account|h|E1',
        matchedBy: 'attributes.employeeId',
      },
    );
    assert.deepEqual(resolveAgentWrite(write, identifiers, { holders: [] }), { action: 'create', key: write.key });
    // The identifier and a value naming the same actor are one match.
    assert.equal(
      resolveAgentWrite(write, identifiers, {
        byKey: { objectType: 'Agent' },
        holders: [{ attribute: 'email', value: 'e@x', agentKey: write.key }],
      }).action,
      'update',
    );
  });

  it('refuses two actors matched (409 naming both) and a group’s identifier', () => {
    const twoValues = refusal(() =>
      resolveAgentWrite(write, identifiers, {
        holders: [
          { attribute: 'email', value: 'e@x', agentKey: 'account|h|a' },
          { attribute: 'employeeId', value: 'E1', agentKey: 'account|h|b' },
        ],
      }),
    );
    assert.equal(twoValues.code, 'actors.ambiguous_match');
    assert.equal(twoValues.status, 409);
    assert.match(twoValues.message, /The attribute "email" matches one actor and the attribute "employeeId" another/);
    const keyAndValue = refusal(() =>
      resolveAgentWrite(write, identifiers, {
        byKey: { objectType: 'Agent' },
        holders: [{ attribute: 'email', value: 'e@x', agentKey: 'account|h|a' }],
      }),
    );
    assert.match(keyAndValue.message, /The identifier \(mbox\) matches one actor and the attribute "email" another/);
    assert.deepEqual(keyAndValue.details, {
      matches: [
        { matchedBy: 'mbox', actorId: write.key },
        { matchedBy: 'attributes.email', actorId: 'account|h|a' },
      ],
    });
    assert.equal(refusal(() => resolveAgentWrite(write, [], { byKey: { objectType: 'Group' }, holders: [] })).code, 'actors.not_an_agent');
  });
});
