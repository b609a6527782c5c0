import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateStatement } from './statement-validator.js';
import { isDuration, isLanguageTag } from '../../../kernel/formats.js';

const valid = () => ({
  actor: { mbox: 'mailto:a@example.com' },
  verb: { id: 'http://adlnet.gov/expapi/verbs/completed' },
  object: { id: 'http://example.com/a' },
});

describe('isDuration', () => {
  it('accepts ISO 8601 durations and refuses mixed weeks', () => {
    for (const text of ['PT4H35M59.14S', 'PT16559.14S', 'P3Y1M29DT4H35M59.14S', 'P3Y', 'P4W', 'PT0S']) assert.ok(isDuration(text), text);
    for (const text of ['P4W1D', 'P', 'PT', 'P1DT', '4H', 'PT1.5', 'should fail']) assert.ok(!isDuration(text), text);
  });
});

describe('isLanguageTag', () => {
  it('checks the RFC 5646 sequence of subtag lengths', () => {
    for (const tag of ['en', 'en-US', 'zh-Hant-TW', 'es-419', 'de-CH-1996', 'x-private', 'sl-rozaj-biske', 'und'])
      assert.ok(isLanguageTag(tag), tag);
    for (const tag of ['a12345678', 'en_US', '', 'english-language-tag-too', 'e']) assert.ok(!isLanguageTag(tag), tag);
  });
});

describe('validateStatement', () => {
  it('accepts a minimal statement', () => {
    validateStatement(valid(), 'statement', { version: '2.0.0' });
  });

  it('names the property in the error', () => {
    assert.throws(
      () =>
        validateStatement({ ...valid(), object: { id: 'http://example.com/a', definition: { type: 'course' } } }, 'statements[3]', {
          version: '2.0.0',
        }),
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
        authority: {
          objectType: 'Group',
          member: [{ account: { homePage: 'http://example.com', name: 'app' } }, { mbox: 'mailto:u@example.com' }],
        },
      },
      'statement',
      { version: '2.0.0' },
    );
  });

  it('refuses a Group authority that is not two agents, and an account with extra properties', () => {
    assert.throws(
      () =>
        validateStatement({ ...valid(), authority: { objectType: 'Group', member: [{ mbox: 'mailto:u@example.com' }] } }, 'statement', {
          version: '2.0.0',
        }),
      /statement\.authority/,
    );
    assert.throws(
      () =>
        validateStatement({ ...valid(), actor: { account: { homePage: 'http://example.com', name: 'a', id: 1 } } }, 'statement', {
          version: '2.0.0',
        }),
      /statement\.actor\.account\.id/,
    );
  });

  it('allows null inside extensions only', () => {
    validateStatement({ ...valid(), result: { extensions: { 'http://example.com/e': null } } }, 'statement', { version: '2.0.0' });
    assert.throws(
      () => validateStatement({ ...valid(), result: { response: null } }, 'statement', { version: '2.0.0' }),
      /statement\.result\.response/,
    );
  });

  it('refuses U+0000, lone surrogates and deep nesting anywhere, naming the property, before the other rules', () => {
    const refuses = (statement: unknown, property: string) =>
      assert.throws(
        () => validateStatement(statement, 'statement', { version: '2.0.0' }),
        (error: Error & { status?: number; details?: { property?: string } }) =>
          error.status === 400 && error.details?.property === property && error.message.startsWith(`${property} `),
      );
    refuses({ ...valid(), actor: { mbox: 'mailto:a@example.com', name: 'A\u0000' } }, 'statement.actor.name');
    refuses({ ...valid(), result: { response: '\ud800' } }, 'statement.result.response');
    refuses(
      { ...valid(), context: { extensions: { 'http://example.com/\udfff': 1 } } },
      'statement.context.extensions["http://example.com/\\udfff"]',
    );
    // Even where a later rule would have refused something else first (an unknown property).
    refuses({ unknown: 1, ...valid(), verb: { id: 'http://example.com/v', display: { en: 'x\u0000' } } }, 'statement.verb.display.en');
    const deep = JSON.parse(`${'['.repeat(10_000)}${']'.repeat(10_000)}`);
    assert.throws(
      () => validateStatement({ ...valid(), result: { extensions: { 'http://example.com/e': deep } } }, 'statement', { version: '2.0.0' }),
      /^AppError: statement\.result\.extensions\["http:\/\/example\.com\/e"\](\[0\])+ is nested deeper than 64 levels/,
    );
  });

  it('accepts extensions 40 levels deep', () => {
    const deep = JSON.parse(`${'{"a":'.repeat(40)}1${'}'.repeat(40)}`);
    validateStatement({ ...valid(), result: { extensions: { 'http://example.com/e': deep } } }, 'statement', { version: '2.0.0' });
  });
});
