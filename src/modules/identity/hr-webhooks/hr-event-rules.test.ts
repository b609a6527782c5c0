import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../../platform/http/app-error.js';
import { MAX_BATCH_EVENTS, parseHrMessage } from './hr-event-rules.js';

const problemsOf = (body: unknown) => {
  try {
    parseHrMessage(body);
  } catch (error) {
    assert.ok(error instanceof AppError);
    assert.equal(error.code, 'identity.invalid_event');
    return ((error.details?.problems ?? []) as Array<{ path: string }>).map((problem) => problem.path);
  }
  assert.fail('accepted');
};

describe('parseHrMessage', () => {
  it('reads a joiner, a mover (null removes an attribute), a leaver and a batch of them, in order', () => {
    assert.deepEqual(parseHrMessage({ type: 'person.joined', data: { name: 'Ada', attributes: { email: 'ada@x' } } }), [
      { type: 'person.joined', name: 'Ada', attributes: { email: 'ada@x' } },
    ]);
    assert.deepEqual(
      parseHrMessage({
        type: 'people.batch',
        timestamp: '2026-11-28T00:00:00Z',
        data: {
          events: [
            { type: 'person.moved', data: { attributes: { email: 'ada@x', positionNumber: 'CTO', city: null } } },
            { type: 'person.left', data: { attributes: { email: 'bea@x' } } },
          ],
        },
      }),
      [
        { type: 'person.moved', attributes: { email: 'ada@x', positionNumber: 'CTO', city: null } },
        { type: 'person.left', attributes: { email: 'bea@x' } },
      ],
    );
  });

  it('names every problem with its pointer, nested batches and unknown types included', () => {
    assert.deepEqual(problemsOf([]), ['']);
    assert.deepEqual(problemsOf({ type: 'person.fired', data: {} }), ['/type']);
    assert.deepEqual(problemsOf({ type: 'person.joined', data: { attributes: {} } }), ['/data/name']);
    assert.deepEqual(problemsOf({ type: 'person.left', data: { attributes: {} } }), ['/data/attributes']);
    assert.deepEqual(problemsOf({ type: 'person.left', data: { attributes: { email: null } } }), ['/data/attributes/email']);
    assert.deepEqual(problemsOf({ type: 'person.moved', data: { attributes: { '': 'x', a: 1, b: 'x\u0000' }, extra: 1 } }), [
      '/data/extra',
      '/data/attributes/',
      '/data/attributes/a',
      '/data/attributes/b',
    ]);
    assert.deepEqual(problemsOf({ type: 'people.batch', data: { events: [{ type: 'people.batch', data: { events: [] } }] } }), [
      '/data/events/0/type',
    ]);
    assert.deepEqual(problemsOf({ type: 'people.batch', data: { events: Array.from({ length: MAX_BATCH_EVENTS + 1 }, () => ({})) } }), [
      '/data/events',
    ]);
    assert.deepEqual(problemsOf({ type: 'person.joined', data: { name: '  ', attributes: {} }, id: 1 }), ['/id', '/data/name']);
  });
});
