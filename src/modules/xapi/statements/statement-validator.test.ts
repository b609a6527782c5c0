import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isDuration, isLanguageTag, parseTimestamp, validateStatement } from './statement-validator.js';

const valid = () => ({
  actor: { mbox: 'mailto:a@example.com' },
  verb: { id: 'http://adlnet.gov/expapi/verbs/completed' },
  object: { id: 'http://example.com/a' },
});

describe('parseTimestamp', () => {
  it('reads ISO 8601 date-times with Z, an offset, or none (UTC)', () => {
    assert.equal(parseTimestamp('2024-05-01T12:00:00Z')?.toISOString(), '2024-05-01T12:00:00.000Z');
    assert.equal(parseTimestamp('2008-09-15T15:53:00.601+02:00')?.toISOString(), '2008-09-15T13:53:00.601Z');
    assert.equal(parseTimestamp('2008-09-15T15:53:00.601+0200')?.toISOString(), '2008-09-15T13:53:00.601Z');
    assert.equal(parseTimestamp('2024-05-01T12:00')?.toISOString(), '2024-05-01T12:00:00.000Z');
    assert.equal(parseTimestamp('2024-05-01T12:00:00.123456Z')?.toISOString(), '2024-05-01T12:00:00.123Z');
  });

  it('refuses the unknown-offset forms, impossible dates and other text', () => {
    for (const text of [
      '2008-09-15T15:53:00.601-00',
      '2008-09-15T15:53:00.601-0000',
      '2008-09-15T15:53:00.601-00:00',
      '2021-02-29T00:00:00Z',
      '2021-13-01T00:00:00Z',
      '2021-01-01T24:00:00Z',
      '01/011/2015',
      '2021-01-01',
      'should fail',
    ]) {
      assert.equal(parseTimestamp(text), undefined, text);
    }
    assert.equal(parseTimestamp(12), undefined);
  });
});

describe('isDuration', () => {
  it('accepts ISO 8601 durations and refuses mixed weeks', () => {
    for (const text of ['PT4H35M59.14S', 'PT16559.14S', 'P3Y1M29DT4H35M59.14S', 'P3Y', 'P4W', 'PT0S']) assert.ok(isDuration(text), text);
    for (const text of ['P4W1D', 'P', 'PT', 'P1DT', '4H', 'PT1.5', 'should fail']) assert.ok(!isDuration(text), text);
  });
});

describe('isLanguageTag', () => {
  it('checks the RFC 5646 sequence of subtag lengths', () => {
    for (const tag of ['en', 'en-US', 'zh-Hant-TW', 'es-419', 'de-CH-1996', 'x-private', 'sl-rozaj-biske', 'und']) assert.ok(isLanguageTag(tag), tag);
    for (const tag of ['a12345678', 'en_US', '', 'english-language-tag-too', 'e']) assert.ok(!isLanguageTag(tag), tag);
  });
});

describe('validateStatement', () => {
  it('accepts a minimal statement', () => {
    validateStatement(valid(), 'statement', { version: '2.0.0' });
  });

  it('names the property in the error', () => {
    assert.throws(
      () => validateStatement({ ...valid(), object: { id: 'http://example.com/a', definition: { type: 'course' } } }, 'statements[3]', { version: '2.0.0' }),
      (error: Error & { status?: number }) => error.status === 400 && /^statements\[3\]\.object\.definition\.type /.test(error.message),
    );
  });

  it('accepts version 2.0.x only on 2.0.0 requests', () => {
    validateStatement({ ...valid(), version: '2.0.0' }, 'statement', { version: '2.0.0' });
    validateStatement({ ...valid(), version: '1.0' }, 'statement', { version: '1.0.3' });
    assert.throws(() => validateStatement({ ...valid(), version: '2.0.0' }, 'statement', { version: '1.0.3' }), /statement\.version/);
    assert.throws(() => validateStatement({ ...valid(), version: '0.9.9' }, 'statement', { version: '2.0.0' }), /statement\.version/);
  });

  it('accepts an identified Group with members and an OAuth authority of two agents', () => {
    validateStatement(
      {
        ...valid(),
        actor: { objectType: 'Group', account: { homePage: 'http://example.com', name: 'team' }, member: [] },
        authority: { objectType: 'Group', member: [{ account: { homePage: 'http://example.com', name: 'app' } }, { mbox: 'mailto:u@example.com' }] },
      },
      'statement',
      { version: '2.0.0' },
    );
  });

  it('refuses a Group authority that is not two agents, and an account with extra properties', () => {
    assert.throws(
      () => validateStatement({ ...valid(), authority: { objectType: 'Group', member: [{ mbox: 'mailto:u@example.com' }] } }, 'statement', { version: '2.0.0' }),
      /statement\.authority/,
    );
    assert.throws(
      () => validateStatement({ ...valid(), actor: { account: { homePage: 'http://example.com', name: 'a', id: 1 } } }, 'statement', { version: '2.0.0' }),
      /statement\.actor\.account\.id/,
    );
  });

  it('allows null inside extensions only', () => {
    validateStatement({ ...valid(), result: { extensions: { 'http://example.com/e': null } } }, 'statement', { version: '2.0.0' });
    assert.throws(() => validateStatement({ ...valid(), result: { response: null } }, 'statement', { version: '2.0.0' }), /statement\.result\.response/);
  });
});
