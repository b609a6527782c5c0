import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  checkNotifications,
  compilePattern,
  MAX_NOTIFICATIONS_PER_REQUEST,
  MAX_PATTERN_LENGTH,
  parseInstant,
  parseTags,
} from './notification-rules.js';

const code = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
};

describe('compilePattern', () => {
  it('matches anywhere in any of the texts, RE2 syntax', () => {
    const match = compilePattern('^Ada');
    assert.equal(match(['Bob', 'Ada Lovelace']), true);
    assert.equal(match(['Lovelace, Ada']), false);
    assert.equal(compilePattern('(?i)lovelace')(['Ada LOVELACE']), true);
    assert.equal(compilePattern('lovelace')(['Ada LOVELACE']), false);
  });

  it('runs catastrophic-backtracking patterns in linear time', () => {
    const text = `${'a'.repeat(100_000)}!`;
    const started = Date.now();
    for (const pattern of ['(a+)+$', '(a|aa)+$', '(a*)*b', '^(a|a?)+$']) assert.equal(compilePattern(pattern)([text]), false, pattern);
    assert.ok(Date.now() - started < 2_000, `${Date.now() - started} ms`);
  });

  it('refuses what does not parse, what RE2 cannot run, and what is too long', () => {
    for (const pattern of ['(', '[a', '(a)\\1', '(?=a)', '(?!a)', '(?<=a)b', '(?<!a)b', 'a{1001}', 'x'.repeat(MAX_PATTERN_LENGTH + 1)]) {
      assert.equal(
        code(() => compilePattern(pattern)),
        'notifications.invalid_query',
        pattern,
      );
    }
    assert.equal(
      code(() => compilePattern('x'.repeat(MAX_PATTERN_LENGTH))),
      undefined,
    );
  });
});

describe('parseTags and parseInstant', () => {
  it('splits tags on commas, trims, drops blanks and repeats', () => {
    assert.deepEqual(parseTags(' a ,b,,a'), ['a', 'b']);
    assert.equal(
      code(() => parseTags(' , ')),
      'notifications.invalid_query',
    );
  });

  it('takes an ISO 8601 date-time with a zone only, for since and until alike, naming the parameter', () => {
    assert.equal(parseInstant('since', '2026-01-31T12:00:00.123Z').toISOString(), '2026-01-31T12:00:00.123Z');
    assert.equal(parseInstant('until', '2026-01-31T13:00:00+01:00').toISOString(), '2026-01-31T12:00:00.000Z');
    for (const parameter of ['since', 'until'] as const) {
      for (const text of ['2026-01-31T12:00:00', '2026-02-30T00:00:00Z', 'yesterday', '', '1700000000']) {
        assert.throws(
          () => parseInstant(parameter, text),
          (error: { code?: string; details?: { parameter?: string }; message: string }) =>
            error.code === 'notifications.invalid_query' &&
            error.details?.parameter === parameter &&
            error.message.startsWith(`'${parameter}'`),
          `${parameter}=${text}`,
        );
      }
    }
  });
});

describe('checkNotifications', () => {
  const good = { actor: { mbox: 'mailto:ada@example.com' }, activity: { id: 'http://example.com/a' }, channel: 'email', object: {} };

  it('takes one notification or an array, and names each problem by index', () => {
    assert.deepEqual(checkNotifications(good).drafts, [
      { index: 0, agentKey: 'mbox|mailto:ada@example.com', activityId: 'http://example.com/a', channel: 'email', object: {} },
    ]);
    const { drafts, problems } = checkNotifications([good, { ...good, channel: '' }, { ...good, actor: {}, object: null }]);
    assert.equal(drafts.length, 1);
    assert.deepEqual(
      problems.map((problem) => [problem.index, problem.field]),
      [
        [1, 'channel'],
        [2, 'actor'],
        [2, 'object'],
      ],
    );
  });

  it('refuses more than the maximum at once', () => {
    assert.equal(
      code(() => checkNotifications(Array.from({ length: MAX_NOTIFICATIONS_PER_REQUEST + 1 }, () => good))),
      'notifications.too_many',
    );
    assert.equal(
      checkNotifications(Array.from({ length: MAX_NOTIFICATIONS_PER_REQUEST }, () => good)).drafts.length,
      MAX_NOTIFICATIONS_PER_REQUEST,
    );
  });
});
