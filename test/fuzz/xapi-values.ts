import fc from 'fast-check';
import { DEEP_ARRAY, hostileDate, hostileJson, hostileText, longIndexedText, rawNumber, toJson, validDate } from './hostile-values.js';
import { absent, mutated, part } from './requests.js';

/** xAPI values for the route generators: agents, actors, activities, results, contexts and statements, valid and hostile. */

export const MBOXES = ['mailto:learner@example.com', 'mailto:fuzz@example.com'];
export const ACTIVITIES = ['http://example.com/activities/a', 'http://example.com/activities/b', 'https://example.com/x?y=1'];
/** The fuzz context's learner, and the activity its launch token was launched for. */
export const LEARNER_MBOX = MBOXES[0]!;
export const LAUNCH_ACTIVITY = ACTIVITIES[0]!;
export const VERBS = ['http://adlnet.gov/expapi/verbs/completed', 'http://adlnet.gov/expapi/verbs/voided', 'http://example.com/verbs/x'];

export const validAgent = fc.oneof(
  fc.constantFrom(...MBOXES).map((mbox) => ({ mbox })),
  fc.constant({ objectType: 'Agent', mbox: MBOXES[1], name: 'Fuzz' }),
  fc.constant({ mbox_sha1sum: 'a'.repeat(40) }),
  fc.constant({ openid: 'http://example.com/openid' }),
  fc.constant({ account: { homePage: 'http://example.com', name: 'learner' } }),
);
// MBOXES[0] is the fuzz context's learner (its credential and launch token act for it): the
// groups below are what a learner principal must not write (issue 24), an API key may.
const validActor = fc.oneof(
  validAgent,
  fc.constant({ objectType: 'Group', member: [{ mbox: MBOXES[0] }] }),
  fc.constant({ objectType: 'Group', member: [{ mbox: MBOXES[0] }, { mbox: MBOXES[1] }] }),
  fc.constant({ objectType: 'Group', name: 'Forged', mbox: MBOXES[1], member: [{ mbox: MBOXES[0] }] }),
  fc.constant({ objectType: 'Group', account: { homePage: 'http://example.com', name: 'learner' }, member: [{ mbox: MBOXES[0] }] }),
);

/** An agent of the right shape whose text is hostile, a wrong shape, or anything. */
export const hostileAgent: fc.Arbitrary<unknown> = fc.oneof(
  hostileText.map((text) => ({ mbox: `mailto:${text}@example.com` })),
  hostileText.map((text) => ({ mbox: MBOXES[0], name: text })),
  hostileText.map((text) => ({ mbox_sha1sum: text })),
  hostileText.map((text) => ({ openid: `http://example.com/${text}` })),
  hostileText.map((text) => ({ account: { homePage: 'http://example.com', name: text } })),
  hostileText.map((text) => ({ account: { homePage: `http://example.com/${text}`, name: 'n' } })),
  hostileJson.map((value) => ({ account: value })),
  hostileJson.map((value) => ({ objectType: 'Group', member: value })),
  hostileJson.map((value) => ({ objectType: value, mbox: MBOXES[0] })),
  fc.constant({ mbox: MBOXES[0], openid: 'http://example.com/' }),
  fc.constant({ objectType: 'Group', member: [] }),
  longIndexedText.map((text) => ({ mbox: `mailto:${text}@example.com` })),
  longIndexedText.map((text) => ({ mbox: MBOXES[0], name: text })),
  longIndexedText.map((text) => ({ openid: `http://example.com/${text}` })),
  longIndexedText.map((text) => ({ account: { homePage: 'http://example.com', name: text } })),
  longIndexedText.map((text) => ({ account: { homePage: `http://example.com/${text}`, name: 'n' } })),
  longIndexedText.map((text) => ({ objectType: 'Group', member: [{ mbox: MBOXES[0] }, { mbox: `mailto:${text}@example.com` }] })),
  hostileJson,
);

/** An `agent` query parameter: JSON text (its escapes carry NUL and lone surrogates into the value). */
export const agentParameter = validAgent.map(toJson);
export const hostileAgentParameter: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: hostileAgent.map(toJson) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{',
      'null',
      '[]',
      '"x"',
      '{"mbox":"mailto:a@example.com"',
      `{"mbox":"mailto:a@example.com","x":${DEEP_ARRAY.slice(0, 2_000)}${']'.repeat(1_000)}}`,
    ),
  },
);

export const actorIdParameter = fc.constantFrom(
  'mbox|mailto:learner@example.com',
  `mbox_sha1sum|${'a'.repeat(40)}`,
  'openid|http://example.com/openid',
  'account|http://example.com|learner',
);
export const hostileActorId = fc.oneof(
  hostileText.map((text) => `mbox|mailto:${text}@example.com`),
  hostileText.map((text) => `account|http://example.com|${text}`),
  hostileText.map((text) => `${text}|x`),
  fc.constantFrom('|', '||', 'account|', 'account||', 'mbox|', 'account|x|y|z'),
);

export const activityId = fc.constantFrom(...ACTIVITIES);
export const hostileIri = fc.oneof(
  hostileText.map((text) => `http://example.com/${text}`),
  fc.constantFrom('not an iri', 'http://', 'x:', `http://example.com/${'a'.repeat(10_000)}`),
  longIndexedText.map((text) => `http://example.com/${text}`),
);

export const languageMap = fc.constant({ 'en-US': 'completed' });
export const hostileLanguageMap = fc.oneof(
  fc.tuple(hostileText, hostileText).map(([tag, text]) => ({ [tag]: text })),
  hostileText.map((text) => ({ 'en-US': text })),
  hostileJson,
);

/** Data that is valid JSON and must be stored as data: a `__proto__` key is a property name like any other (issue 24). */
export const protoKeyedValue = fc.constantFrom(
  JSON.parse('{"__proto__":{"polluted":true}}') as unknown,
  JSON.parse('{"a":{"__proto__":[1,2]},"constructor":{"prototype":{"x":1}}}') as unknown,
);
export const validExtensions = fc.dictionary(
  fc.constantFrom('http://example.com/ext/a', 'http://example.com/ext/b'),
  fc.oneof({ weight: 4, arbitrary: fc.jsonValue({ maxDepth: 2 }) }, { weight: 1, arbitrary: protoKeyedValue }),
  { maxKeys: 2 },
);
export const hostileExtensions = fc.oneof(
  fc.tuple(fc.constantFrom('http://example.com/ext/a'), hostileJson).map(([key, value]) => ({ [key]: value })),
  hostileText.map((text) => ({ [`http://example.com/${text}`]: 1 })),
  hostileText.map((text) => ({ [text]: 1 })),
  fc.constant({ 'http://example.com/ext/deep': JSON.parse(`[${'['.repeat(1_000)}${']'.repeat(1_000)}]`) as unknown }),
  hostileJson,
);

const validActivity = fc.record(
  {
    objectType: fc.constant('Activity'),
    id: activityId,
    definition: fc.record(
      {
        name: languageMap,
        description: languageMap,
        type: fc.constant('http://adlnet.gov/expapi/activities/course'),
        interactionType: fc.constant('choice'),
        correctResponsesPattern: fc.constant(['a']),
        choices: fc.constant([{ id: 'a', description: { 'en-US': 'A' } }]),
        extensions: validExtensions,
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ['id'] },
);

const hostileActivity: fc.Arbitrary<unknown> = fc.oneof(
  hostileIri.map((id) => ({ id })),
  mutated({
    objectType: part(
      fc.constant('Activity'),
      fc.oneof(fc.constantFrom('activity', 'SubStatement', 'StatementRef', 'Group', ''), hostileText),
    ),
    id: part(activityId, hostileIri),
    name: part(languageMap, hostileLanguageMap),
    interactionType: part(
      fc.constant('choice'),
      fc.oneof(fc.constantFrom('fill-in', 'likert', 'numeric', 'other', 'nonsense'), hostileText),
    ),
    correctResponsesPattern: part(fc.constant(['a']), hostileJson),
    choices: part(fc.constant([{ id: 'a', description: { 'en-US': 'A' } }]), hostileJson),
    extensions: part(validExtensions, hostileExtensions),
  }).map(({ objectType, id, ...definition }) => ({ objectType, id, definition })),
);

const validResult = fc.record(
  {
    score: fc.record(
      { scaled: fc.double({ min: -1, max: 1, noNaN: true }), raw: fc.constant(5), min: fc.constant(0), max: fc.constant(10) },
      { requiredKeys: [] },
    ),
    success: fc.boolean(),
    completion: fc.boolean(),
    response: fc.string({ maxLength: 20 }),
    duration: fc.constantFrom('PT1H', 'P1Y2M3DT4H5M6.7S', 'PT0.5S'),
    extensions: validExtensions,
  },
  { requiredKeys: [] },
);

const hostileResult = mutated({
  score: part(
    fc.constant({ scaled: 0.5 }),
    fc.oneof(
      rawNumber.map((scaled) => ({ scaled })),
      rawNumber.map((raw) => ({ raw, min: 0, max: 10 })),
      fc.constant({ raw: 5, min: 10, max: 0 }),
      hostileJson.map((scaled) => ({ scaled })),
      hostileJson,
    ),
  ),
  success: part(fc.boolean(), hostileJson),
  response: part(fc.string({ maxLength: 20 }), hostileText),
  duration: part(
    fc.constant('PT1H'),
    fc.oneof(fc.constantFrom('P', 'PT', 'P1W2D', 'PT1e309S', 'PT-1S', `P${'9'.repeat(400)}Y`, 'P1.5Y'), hostileText),
  ),
  extensions: part(validExtensions, hostileExtensions),
});

const validContext = fc.record(
  {
    registration: fc.uuid(),
    instructor: validAgent,
    contextActivities: fc.record({
      parent: fc.array(
        activityId.map((id) => ({ id })),
        { maxLength: 2 },
      ),
    }),
    language: fc.constantFrom('en-US', 'fr'),
    extensions: validExtensions,
  },
  { requiredKeys: [] },
);

const hostileContext = mutated({
  registration: part(fc.uuid(), fc.oneof(fc.constantFrom('not-a-uuid', '{00000000-0000-0000-0000-000000000000}'), hostileText)),
  instructor: part(validAgent, hostileAgent),
  team: part(absent, hostileAgent),
  contextActivities: part(
    fc.constant({ parent: [{ id: ACTIVITIES[0] }] }),
    fc.oneof(
      hostileActivity.map((activity) => ({ grouping: activity })),
      hostileJson,
    ),
  ),
  revision: part(absent, fc.oneof(fc.constant('1'), hostileText)),
  platform: part(absent, fc.oneof(fc.constant('fuzz'), hostileText)),
  language: part(fc.constant('en-US'), fc.oneof(fc.constantFrom('x-\u0000', '', 'en-US-x-'), hostileText)),
  statement: part(
    absent,
    fc.oneof(
      fc.uuid().map((id) => ({ objectType: 'StatementRef', id })),
      hostileJson,
    ),
  ),
  extensions: part(validExtensions, hostileExtensions),
});

/** A valid statement: some optional parts present, all of them well formed. */
export const validStatement = fc.record(
  {
    id: fc.uuid(),
    actor: validActor,
    verb: fc.record(
      { id: fc.constantFrom(...VERBS.filter((verb) => !verb.endsWith('voided'))), display: languageMap },
      { requiredKeys: ['id'] },
    ),
    object: fc.oneof(
      { weight: 4, arbitrary: validActivity },
      { weight: 1, arbitrary: validAgent.map((agent) => ({ objectType: 'Agent', ...agent })) },
      { weight: 1, arbitrary: fc.uuid().map((id) => ({ objectType: 'StatementRef', id })) },
    ),
    result: validResult,
    context: validContext,
    timestamp: validDate,
  },
  { requiredKeys: ['actor', 'verb', 'object'] },
);

/** A statement with one or two of its parts hostile: the rest valid, so the validator and the store see the hostile one. */
export const hostileStatement: fc.Arbitrary<Record<string, unknown>> = mutated({
  id: part(
    fc.option(fc.uuid(), { nil: undefined }),
    fc.oneof(fc.constantFrom('not-a-uuid', 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF', ''), hostileText, hostileJson),
  ),
  actor: part(validActor, hostileAgent, 2),
  verb: part(
    fc.constant({ id: VERBS[0], display: { 'en-US': 'completed' } }),
    fc.oneof(
      hostileLanguageMap.map((display) => ({ id: VERBS[0], display })),
      hostileIri.map((id) => ({ id })),
      fc.constant({ id: VERBS[1] }),
      hostileJson,
    ),
  ),
  object: part(
    validActivity,
    fc.oneof(
      { weight: 3, arbitrary: hostileActivity },
      {
        weight: 1,
        arbitrary: hostileAgent.map((agent) => (typeof agent === 'object' && agent !== null ? { objectType: 'Agent', ...agent } : agent)),
      },
      { weight: 1, arbitrary: fc.oneof(fc.uuid(), hostileText).map((id) => ({ objectType: 'StatementRef', id })) },
      {
        weight: 1,
        arbitrary: fc.tuple(fc.oneof(validAgent, hostileAgent), fc.oneof(validActivity, hostileActivity)).map(([actor, object]) => ({
          objectType: 'SubStatement',
          actor,
          verb: { id: VERBS[0] },
          object,
        })),
      },
      { weight: 1, arbitrary: hostileJson },
    ),
    2,
  ),
  result: part(
    fc.option(validResult, { nil: undefined }),
    fc.oneof({ weight: 4, arbitrary: hostileResult }, { weight: 1, arbitrary: hostileJson }),
    2,
  ),
  context: part(
    fc.option(validContext, { nil: undefined }),
    fc.oneof({ weight: 4, arbitrary: hostileContext }, { weight: 1, arbitrary: hostileJson }),
    2,
  ),
  timestamp: part(fc.option(validDate, { nil: undefined }), fc.oneof(hostileDate, hostileText)),
  stored: part(absent, fc.oneof(validDate, hostileDate)),
  authority: part(absent, fc.oneof(validAgent, hostileAgent)),
  version: part(absent, fc.oneof(fc.constantFrom('1.0.0', '1.0.3', '2.0.0', '2.0.99', '3.0.0'), hostileText)),
  attachments: part(
    absent,
    fc.oneof(
      fc.constant([
        {
          usageType: 'http://example.com/u',
          display: { 'en-US': 'a' },
          contentType: 'text/plain',
          length: 1,
          sha2: 'a'.repeat(64),
          fileUrl: 'http://example.com/f',
        },
      ]),
      fc.constant([
        { usageType: 'http://example.com/u', display: { 'en-US': 'a' }, contentType: 'text/plain', length: 1, sha2: 'a'.repeat(64) },
      ]),
      hostileJson,
    ),
  ),
  extra: part(absent, hostileJson),
});
