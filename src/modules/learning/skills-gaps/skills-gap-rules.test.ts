import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Principal } from '../../../kernel/principal.js';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { AppError } from '../../../platform/http/app-error.js';
import { personAsked, readablePerson } from '../person-query.service.js';
import { gapOf, MAX_EVIDENCE, readGroupBody, readTarget } from './skills-gap-rules.js';

const refused = (work: () => unknown, code: string, details?: Record<string, unknown>) =>
  assert.throws(work, (error: unknown) => {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.code, code);
    if (details) assert.deepEqual(error.details, details);
    return true;
  });

describe('readTarget', () => {
  it('is the current job by default, the next position’s with target=next, the job named by jobId', () => {
    assert.deepEqual(readTarget({}), { kind: 'current' });
    assert.deepEqual(readTarget({ target: 'next' }), { kind: 'next' });
    assert.deepEqual(readTarget({ jobId: 'J' }), { kind: 'job', jobId: 'J' });
    assert.deepEqual(readTarget({ target: 'current', jobId: 'J' }), { kind: 'job', jobId: 'J' });
  });

  it('refuses jobId with target=next', () => {
    refused(() => readTarget({ target: 'next', jobId: 'J' }), 'learning.invalid_query', { parameter: 'jobId' });
  });
});

describe('readGroupBody', () => {
  it('reads each way to choose people, with or without one target job', () => {
    assert.deepEqual(readGroupBody({ people: { organisationId: 'P' } }), { people: { organisationId: 'P' } });
    assert.deepEqual(readGroupBody({ people: { jobId: 'J' }, jobId: 'K' }), { people: { jobId: 'J' }, jobId: 'K' });
    assert.deepEqual(readGroupBody({ people: { criteria: { any: 'thing' } } }), { people: { criteria: { any: 'thing' } } });
  });

  it('names the first bad part by its JSON pointer', () => {
    const cases: Array<[unknown, string]> = [
      [null, ''],
      [{ people: { jobId: 'J' }, 'a/b': 1 }, '/a~1b'],
      [{}, '/people'],
      [{ people: [] }, '/people'],
      [{ people: { jobId: 'J', criteria: {} } }, '/people'],
      [{ people: { 'x~': 1 } }, '/people/x~0'],
      [{ people: { jobId: 'x'.repeat(256) } }, '/people/jobId'],
      [{ people: { organisationId: '\ud800' } }, '/people/organisationId'],
      [{ people: { jobId: 'J' }, jobId: null }, '/jobId'],
    ];
    for (const [body, path] of cases) refused(() => readGroupBody(body), 'learning.invalid_group', { path });
    // 255 characters (code points) is the longest id the imports take.
    assert.deepEqual(readGroupBody({ people: { jobId: '😀'.repeat(255) } }), { people: { jobId: '😀'.repeat(255) } });
  });
});

describe('gapOf', () => {
  const competencies = [
    { id: 'c1', name: 'One', description: '' },
    { id: 'c2', name: 'Two', description: 'the second' },
  ];
  it('keeps the job’s order, marks what has evidence held, and counts', () => {
    const evidence = new Map([['c2', [{ activityId: 'a', at: '2026-01-01T00:00:00.000Z' }]]]);
    const gap = gapOf(competencies, evidence);
    assert.deepEqual(
      gap.competencies.map((c) => [c.id, c.held, c.evidence.length]),
      [
        ['c1', false, 0],
        ['c2', true, 1],
      ],
    );
    assert.deepEqual([gap.held, gap.missing], [1, 1]);
    assert.deepEqual(gapOf([], new Map()), { competencies: [], held: 0, missing: 0 });
  });

  it(`lists at most ${MAX_EVIDENCE} pieces of evidence`, () => {
    const many = Array.from({ length: 15 }, (_, i) => ({ activityId: `a${i}`, at: '2026-01-01T00:00:00.000Z' }));
    assert.equal(gapOf(competencies, new Map([['c1', many]])).competencies[0].evidence.length, MAX_EVIDENCE);
  });
});

describe('who may read whom', () => {
  const tenant = { id: 't', name: 't', createdAt: new Date(0) };
  const sql = {} as SqlClient;
  const principal = (kind: Principal['kind'], agentKey?: string): Principal => ({
    kind,
    tenant,
    id: 'x',
    ...(agentKey ? { agentKey } : {}),
  });
  const ada = 'mbox|mailto:ada@example.com';

  it('lets tenant-wide principals read anyone and a learner credential its own actor', async () => {
    for (const kind of ['admin', 'api_key', 'operator'] as const)
      assert.deepEqual(await readablePerson(sql, principal(kind), { actorId: ada }), { agentKey: ada });
    assert.deepEqual(await readablePerson(sql, principal('actor', ada), { actorId: ada }), { agentKey: ada });
    assert.equal(await personAsked(sql, principal('actor', ada), {}), ada);
    assert.equal(await personAsked(sql, principal('api_key'), { actorId: ada }), ada);
    assert.equal(await personAsked(sql, principal('api_key'), { agent: '{"mbox":"mailto:ada@example.com"}' }), ada);
  });

  // A learner credential naming someone else is a manager asking about a report: that reads the
  // structure (test/learning/learning-reach.test.ts). A launch token is refused before any read.
  it('refuses another person to a launch token, anything to it where a whole record is asked', async () => {
    await assert.rejects(readablePerson(sql, principal('launch', ada), { actorId: 'mbox|mailto:bob@example.com' }), {
      code: 'learning.forbidden',
    });
    await assert.rejects(personAsked(sql, principal('launch', ada), {}), { code: 'learning.forbidden' });
    await assert.rejects(personAsked(sql, principal('launch', ada), { actorId: ada }), { code: 'learning.forbidden' });
  });

  it('asks a tenant-wide principal to name the person, once', async () => {
    await assert.rejects(personAsked(sql, principal('admin'), {}), { code: 'learning.invalid_query' });
    await assert.rejects(personAsked(sql, principal('admin'), { actorId: ada, agent: '{}' }), { code: 'learning.invalid_query' });
  });
});
