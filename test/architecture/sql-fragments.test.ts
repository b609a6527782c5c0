import assert from 'node:assert/strict';
import { it } from 'node:test';
import * as activities from '../../src/modules/activities/index.js';
import * as actors from '../../src/modules/actors/index.js';
import * as audit from '../../src/modules/audit/index.js';
import * as auth from '../../src/modules/auth/index.js';
import * as completions from '../../src/modules/completions/index.js';
import * as imports from '../../src/modules/imports/index.js';
import * as launch from '../../src/modules/launch/index.js';
import * as organisation from '../../src/modules/organisation/index.js';
import * as tenancy from '../../src/modules/tenancy/index.js';
import * as xapi from '../../src/modules/xapi/index.js';
import { SqlValues } from '../../src/platform/database/sql-filters.js';
import { describeEachBackend } from '../support/build-test-app.js';

/**
 * docs/architecture.md, "Reads across modules in one statement": a module's face exports SQL
 * fragments (`…Sql`) that the modules above embed in their own statements. Each is compiled here,
 * embedded as its callers embed it, against the migrated schema on both backends: a fragment
 * naming a column a migration renamed fails here, not in the one report that uses it. A fragment
 * added to a face and not listed here fails the first test.
 */

const FACES = { activities, actors, audit, auth, completions, imports, launch, organisation, tenancy, xapi };

/** A statement that embeds one fragment, and the values of its placeholders after the tenant's id ($1). */
type Embedding = () => { text: string; values: unknown[] };

const SETTINGS = { organisationAttribute: 'position', jobAttribute: 'job', positionJobAttribute: 'jobCode' };
/** The tenant settings peopleMatchingSql reads: the links above, and the people's identity. */
const TENANT_SETTINGS = { ...SETTINGS, uniqueAttributes: ['email'], accountHomePage: 'https://hr.example.com' };
const CRITERIA = {
  and: [
    { field: 'attributes.city', op: 'eq' as const, value: 'London' },
    { field: 'job.id', op: 'eq' as const, value: 'J1' },
  ],
};

const FRAGMENTS: Record<string, Embedding> = {
  activityProgressSql: () => ({
    text: `SELECT p.* FROM (VALUES ('k', 'a')) x(agent_key, activity_id) CROSS JOIN LATERAL (${completions.activityProgressSql('$1', 'x.agent_key', 'x.activity_id')}) p`,
    values: [],
  }),
  competencyActivitiesSql: () => ({ text: activities.competencyActivitiesSql('$1', 'ac.competency_id IS NOT NULL'), values: [] }),
  competencyNameSql: () => ({
    text: `SELECT j.id FROM jobs j WHERE j.tenant_id = $1 AND ${organisation.competencyNameSql("c ->> 'Name' = $2")}`,
    values: ['TypeScript'],
  }),
  completionRecordsSql: () => ({ text: completions.completionRecordsSql('$1', "r.activity_id = 'a'"), values: [] }),
  jobCompetenciesSql: () => ({ text: organisation.jobCompetenciesSql('$1'), values: [] }),
  jobIdsSql: () => ({ text: organisation.jobIdsSql('$1', "j.name = 'Engineer'"), values: [] }),
  notDeactivatedSql: () => ({ text: `SELECT x.k FROM (VALUES ('k')) x(k) WHERE ${actors.notDeactivatedSql('x.k')}`, values: [] }),
  organisationEntryIdsSql: () => ({
    text: `SELECT id FROM (${organisation.organisationEntryIdsSql('$1', "o.id = 'A'", false)}) matched
            UNION SELECT id FROM (${organisation.organisationEntryIdsSql('$1', "o.id = 'B'", true)}) below`,
    values: [],
  }),
  organisationSubtreeIdsSql: () => ({ text: organisation.organisationSubtreeIdsSql('$1', '$2', true), values: ['CEO'] }),
  peopleAmongSql: () => ({
    text: `WITH changed AS (${actors.peopleAmongSql('$2')}) SELECT c.agent_key FROM changed c`,
    values: [['k1', 'k2']],
  }),
  peopleMatchingSql: () => {
    const values = new SqlValues(['tenant']);
    const within = values.bind(['k1']);
    const matching = actors.peopleMatchingSql(CRITERIA, TENANT_SETTINGS, values);
    const fromChanged = actors.peopleMatchingSql(
      { field: 'organisation.ancestors.id', op: 'eq', value: 'CTO' },
      TENANT_SETTINGS,
      values,
      'changed',
    );
    return { text: `WITH changed AS (${actors.peopleAmongSql(within)}) ${matching} UNION ${fromChanged}`, values: values.values.slice(1) };
  },
  peopleSql: () => {
    const values = new SqlValues(['tenant']);
    const text = actors.peopleSql(SETTINGS, CRITERIA, values, { reach: 'true' });
    return { text, values: values.values.slice(1) };
  },
  positionIdsOfFewJobsSql: () => ({
    text: organisation.positionIdsOfFewJobsSql('$1', '$2', "SELECT j.id FROM jobs j WHERE j.tenant_id = $1 AND j.id IN ('J1', 'J2')"),
    values: ['jobCode'],
  }),
  positionIdsOfJobsSql: () => ({
    text: organisation.positionIdsOfJobsSql('$1', '$2', 'SELECT j.id FROM jobs j WHERE j.tenant_id = $1'),
    values: ['jobCode'],
  }),
  positionJobValuesSql: () => ({ text: organisation.positionJobValuesSql('$1', '$2'), values: ['jobCode'] }),
  positionJobsSql: () => ({ text: organisation.positionJobsSql('$1', '$2'), values: ['jobCode'] }),
  registeredActivitiesSql: () => ({
    text: activities.registeredActivitiesSql('$1', { tag: '$2', id: '$3' }),
    values: ['safety', 'https://example.com/a'],
  }),
  registeredRequiresSuccessSql: () => ({
    text: `SELECT ${activities.registeredRequiresSuccessSql('$1', '$2')} AS requires_success`,
    values: ['https://example.com/a'],
  }),
  requiresSuccessSql: () => ({
    text: `SELECT ${activities.requiresSuccessSql('$1', '$2')} AS requires_success`,
    values: ['https://example.com/a'],
  }),
  statementTalliesSql: () => ({
    text: xapi.statementTalliesSql('$1', { from: '$2', to: '$3', activity: '$4' }),
    values: ['2026-11-01', '2026-11-30', 'https://example.com/a'],
  }),
};

/** Every `…Sql` function a face exports, as `module.name`'s name. */
const exported = Object.values(FACES)
  .flatMap((face) => Object.entries(face))
  .filter(([name, value]) => name.endsWith('Sql') && typeof value === 'function')
  .map(([name]) => name);

it('every SQL fragment a module’s face exports is compiled below', () => {
  assert.deepEqual([...new Set(exported)].sort(), Object.keys(FRAGMENTS).sort());
});

describeEachBackend('the SQL fragments modules embed in one another’s statements', (ctx) => {
  for (const [name, embedding] of Object.entries(FRAGMENTS)) {
    it(`${name} runs against the migrated schema, embedded as its callers embed it`, async () => {
      const tenant = await ctx.given.tenant();
      const { text, values } = embedding();
      const { rows } = await ctx.db.query(`SELECT count(*)::int AS n FROM (${text}) fragment`, [tenant.id, ...values]);
      assert.equal(rows.length, 1);
      assert.equal(typeof (rows[0] as { n: number }).n, 'number');
    });
  }
});
