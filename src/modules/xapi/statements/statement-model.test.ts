import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  canonicalFormat,
  completeStatement,
  idsFormat,
  indexStatement,
  parseAcceptLanguage,
  pickLanguage,
  sameStatement,
} from './statement-model.js';
import type { JsonObject } from '../../../kernel/formats.js';

const authority = { objectType: 'Agent', account: { homePage: 'http://lrs.example.com', name: 'key' } };
const base = (): JsonObject => ({
  actor: { objectType: 'Agent', name: 'A', mbox: 'mailto:a@example.com' },
  verb: { id: 'http://adlnet.gov/expapi/verbs/completed', display: { 'en-US': 'completed' } },
  object: { id: 'http://example.com/a', definition: { name: { 'en-US': 'A', fr: 'Un' } } },
});

describe('completeStatement', () => {
  it('assigns id, stored, authority, version, and timestamp = stored when absent', () => {
    const done = completeStatement(
      { ...base(), authority: { mbox: 'mailto:x@example.com' } },
      {
        id: 'f0000000-0000-4000-8000-000000000000',
        stored: '2024-01-01T00:00:00.000Z',
        authority,
        version: '2.0.0',
      },
    );
    assert.equal(done.id, 'f0000000-0000-4000-8000-000000000000');
    assert.equal(done.timestamp, '2024-01-01T00:00:00.000Z');
    assert.deepEqual(done.authority, authority);
    assert.equal(done.version, '2.0.0');
  });

  it('turns single context activities into arrays of one, in SubStatements too', () => {
    const done = completeStatement(
      {
        ...base(),
        object: {
          objectType: 'SubStatement',
          ...base(),
          context: { contextActivities: { grouping: { id: 'http://example.com/g' } } },
        } as JsonObject,
      },
      { id: 'f0000000-0000-4000-8000-000000000000', stored: '2024-01-01T00:00:00.000Z', authority, version: '2.0.0' },
    );
    assert.deepEqual(((done.object as JsonObject).context as JsonObject).contextActivities, { grouping: [{ id: 'http://example.com/g' }] });
  });
});

describe('indexStatement', () => {
  it('tells direct from related agents and activities', () => {
    const index = indexStatement({
      ...base(),
      actor: { objectType: 'Group', member: [{ mbox: 'mailto:m@example.com' }] },
      context: {
        instructor: { mbox: 'mailto:i@example.com' },
        registration: 'AAAAAAAA-0000-4000-8000-000000000000',
        contextActivities: { parent: [{ id: 'http://example.com/p' }] },
      },
      authority,
    });
    assert.deepEqual(
      [...index.agents],
      [
        ['mbox|mailto:m@example.com', true],
        ['mbox|mailto:i@example.com', false],
        ['account|http://lrs.example.com|key', false],
      ],
    );
    assert.deepEqual(
      [...index.activities],
      [
        ['http://example.com/a', true],
        ['http://example.com/p', false],
      ],
    );
    assert.equal(index.registration, 'aaaaaaaa-0000-4000-8000-000000000000');
    assert.equal(index.voiding, false);
  });

  it('marks voiding statements and their target', () => {
    const index = indexStatement({
      ...base(),
      verb: { id: 'http://adlnet.gov/expapi/verbs/voided' },
      object: { objectType: 'StatementRef', id: 'F0000000-0000-4000-8000-000000000000' },
    });
    assert.equal(index.voiding, true);
    assert.equal(index.objectStatementId, 'f0000000-0000-4000-8000-000000000000');
  });
});

describe('sameStatement', () => {
  const stored = completeStatement(base(), {
    id: 'f0000000-0000-4000-8000-000000000000',
    stored: '2024-01-01T00:00:00.000Z',
    authority,
    version: '2.0.0',
  });

  it('ignores what the LRS assigns, definitions, displays and key order', () => {
    const { verb: _verb, ...rest } = base();
    assert.ok(sameStatement({ verb: { id: 'http://adlnet.gov/expapi/verbs/completed' }, ...rest }, stored));
    assert.ok(sameStatement({ ...base(), object: { objectType: 'Activity', id: 'http://example.com/a' } }, stored));
  });

  it('compares timestamps as instants and group members as a set', () => {
    const withTime = { ...base(), timestamp: '2024-01-01T02:00:00.000+02:00' };
    assert.ok(sameStatement(withTime, { ...stored, timestamp: '2024-01-01T00:00:00Z' }));
    const group = (members: JsonObject[]) => ({ ...base(), actor: { objectType: 'Group', member: members } });
    assert.ok(
      sameStatement(
        group([{ mbox: 'mailto:a@x.com' }, { mbox: 'mailto:b@x.com' }]),
        group([{ mbox: 'mailto:b@x.com' }, { mbox: 'mailto:a@x.com' }]),
      ),
    );
  });

  it('answers false, without recursing, for a stored statement nested deeper than a sent one may be', () => {
    const deep = JSON.parse(`${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`);
    assert.equal(sameStatement(base(), { ...stored, result: { extensions: { 'http://example.com/deep': deep } } }), false);
  });

  it('ignores duration precision beyond 0.01 s', () => {
    const withDuration = (duration: string) => ({ ...base(), result: { duration } });
    assert.ok(sameStatement(withDuration('P1DT12H36M0.1237S'), withDuration('P1DT12H36M0.12S')));
    assert.ok(!sameStatement(withDuration('P1DT12H36M0.13S'), withDuration('P1DT12H36M0.12S')));
  });

  it('sees any other difference', () => {
    assert.ok(!sameStatement({ ...base(), result: { success: true } }, stored));
    assert.ok(!sameStatement({ ...base(), actor: { mbox: 'mailto:b@example.com' } }, stored));
    assert.ok(!sameStatement({ ...base(), timestamp: '2020-01-01T00:00:00Z' }, stored));
  });
});

describe('formats', () => {
  it('ids keeps identifiers only', () => {
    const out = idsFormat({ ...base(), context: { contextActivities: { parent: [{ id: 'http://example.com/p', definition: {} }] } } });
    assert.deepEqual(out.actor, { objectType: 'Agent', mbox: 'mailto:a@example.com' });
    assert.deepEqual(out.verb, { id: 'http://adlnet.gov/expapi/verbs/completed' });
    assert.deepEqual(out.object, { id: 'http://example.com/a' });
    assert.deepEqual((out.context as JsonObject).contextActivities, { parent: [{ id: 'http://example.com/p' }] });
  });

  it('canonical uses the canonical definition and one language per map', () => {
    const definitions = new Map([['http://example.com/a', { name: { 'en-US': 'Canonical', 'fr-FR': 'Canonique' } } as JsonObject]]);
    const out = canonicalFormat(base(), definitions, 'fr');
    assert.deepEqual((out.object as JsonObject).definition, { name: { 'fr-FR': 'Canonique' } });
    assert.deepEqual((out.verb as JsonObject).display, { 'en-US': 'completed' });
    assert.deepEqual(out.actor, base().actor);
  });
});

describe('Accept-Language', () => {
  it('orders tags by q, dropping q=0', () => {
    assert.deepEqual(parseAcceptLanguage('de;q=0.5, fr-CH, fr;q=0.9, en;q=0'), [
      { tag: 'fr-ch', q: 1 },
      { tag: 'fr', q: 0.9 },
      { tag: 'de', q: 0.5 },
    ]);
  });

  it('picks an exact match, then a prefix, then the first entry', () => {
    const map = { 'en-US': 'color', 'en-GB': 'colour', fr: 'couleur' };
    assert.deepEqual(pickLanguage(map, parseAcceptLanguage('en-GB')), { 'en-GB': 'colour' });
    assert.deepEqual(pickLanguage(map, parseAcceptLanguage('en')), { 'en-US': 'color' });
    assert.deepEqual(pickLanguage(map, parseAcceptLanguage('fr-CA')), { fr: 'couleur' });
    assert.deepEqual(pickLanguage(map, parseAcceptLanguage('ja')), { 'en-US': 'color' });
    assert.deepEqual(pickLanguage(map, []), { 'en-US': 'color' });
  });
});
