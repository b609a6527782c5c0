import { badRequest } from '../../../platform/http/app-error.js';
import { findJsonProblem } from '../../../platform/json-guard.js';
import { parseAgent } from '../../../kernel/agent.js';
import { lengthProblem, MAX_IRI_BYTES } from '../../../kernel/limits.js';
import { parseTimestamp } from '../../../kernel/timestamp.js';
import { isDuration, isIri, isLanguageTag, isUuid, type Json, type JsonObject, type XapiVersion } from '../../../kernel/formats.js';

/**
 * The rules of an xAPI statement that JSON Schema cannot say well (xAPI 2.0 Part 2 §2.2, §2.4;
 * 1.0.3 §2.2, §2.4): every property name and type, the formats of IRIs, UUIDs, timestamps,
 * durations and language tags, one IFI per agent, voiding, and where revision and platform may
 * appear. Unknown properties are rejected (2.0 Part 2 §2.2.s4.b8). Every error names the
 * property as a path (`statement.context.registration`). The identifiers the LRS indexes (activity
 * and verb ids here, agents in agent.ts) are held to the lengths of limits.ts.
 */

export const VOIDED_VERB = 'http://adlnet.gov/expapi/verbs/voided';

const VERSION_1 = /^1\.0(?:\.\d+)?$/;
const VERSION_2 = /^2\.0(?:\.\d+)?$/;
const INTERACTION_TYPES = [
  'true-false',
  'choice',
  'fill-in',
  'long-fill-in',
  'matching',
  'performance',
  'sequencing',
  'likert',
  'numeric',
  'other',
];
// Which interaction component lists go with which interactionType (2.0 Part 2 §2.4.4.1.1).
const COMPONENT_LISTS: Record<string, string[]> = {
  choices: ['choice', 'sequencing'],
  scale: ['likert'],
  source: ['matching'],
  target: ['matching'],
  steps: ['performance'],
};
const CONTEXT_ACTIVITY_KEYS = ['parent', 'grouping', 'category', 'other'];
const IFI_KEYS = ['mbox', 'mbox_sha1sum', 'openid', 'account'];

export interface ValidationOptions {
  /** The request's X-Experience-API-Version: 2.0.0 adds context agents and groups and accepts version 2.0.x. */
  version: XapiVersion;
}

/**
 * Validates one statement sent to the LRS; throws a 400 naming the first offending property.
 * First of all, anywhere in the statement (extensions included): no U+0000 and no lone
 * surrogate, which jsonb cannot store, and no nesting deeper than MAX_JSON_DEPTH, which the
 * recursive code after this one (comparison, serialization) could not handle.
 */
export function validateStatement(value: unknown, path: string, options: ValidationOptions): asserts value is JsonObject {
  const problem = findJsonProblem(value, path);
  if (problem) throw invalid(problem.path, problem.why);
  new StatementChecker(options).statement(value, path);
}

class StatementChecker {
  constructor(private readonly options: ValidationOptions) {}

  statement(value: unknown, path: string): void {
    const statement = this.object(value, path);
    this.keys(statement, path, [
      'id',
      'actor',
      'verb',
      'object',
      'result',
      'context',
      'timestamp',
      'stored',
      'authority',
      'version',
      'attachments',
    ]);
    if (statement.id !== undefined) this.uuid(statement.id, `${path}.id`);
    this.required(statement, path, ['actor', 'verb', 'object']);
    this.actor(statement.actor, `${path}.actor`);
    this.verb(statement.verb, `${path}.verb`);
    this.statementObject(statement.object, `${path}.object`, false);
    this.voiding(statement, path);
    if (statement.result !== undefined) this.result(statement.result, `${path}.result`);
    if (statement.context !== undefined) this.context(statement.context, `${path}.context`, statement.object);
    if (statement.timestamp !== undefined) this.timestamp(statement.timestamp, `${path}.timestamp`);
    if (statement.stored !== undefined) this.timestamp(statement.stored, `${path}.stored`);
    if (statement.authority !== undefined) this.authority(statement.authority, `${path}.authority`);
    if (statement.version !== undefined) this.version(statement.version, `${path}.version`);
    if (statement.attachments !== undefined) this.attachments(statement.attachments, `${path}.attachments`);
  }

  private subStatement(value: JsonObject, path: string): void {
    this.keys(value, path, ['objectType', 'actor', 'verb', 'object', 'result', 'context', 'timestamp', 'attachments']);
    this.required(value, path, ['actor', 'verb', 'object']);
    this.actor(value.actor, `${path}.actor`);
    this.verb(value.verb, `${path}.verb`);
    this.statementObject(value.object, `${path}.object`, true);
    this.voiding(value, path);
    if (value.result !== undefined) this.result(value.result, `${path}.result`);
    if (value.context !== undefined) this.context(value.context, `${path}.context`, value.object);
    if (value.timestamp !== undefined) this.timestamp(value.timestamp, `${path}.timestamp`);
    if (value.attachments !== undefined) this.attachments(value.attachments, `${path}.attachments`);
  }

  // xAPI 2.0 Part 2 §2.3.2: a voiding statement's object is a StatementRef.
  private voiding(statement: JsonObject, path: string): void {
    const verb = statement.verb as JsonObject;
    const object = statement.object as JsonObject;
    if (verb.id === VOIDED_VERB && object.objectType !== 'StatementRef') {
      throw invalid(`${path}.object`, `must be a StatementRef: the verb ${VOIDED_VERB} voids a statement`);
    }
  }

  actor(value: unknown, path: string): void {
    const actor = this.object(value, path);
    if (actor.objectType === 'Group') this.group(actor, path);
    else if (actor.objectType === undefined || actor.objectType === 'Agent') this.agent(actor, path);
    else throw invalid(`${path}.objectType`, 'must be "Agent" or "Group"');
  }

  private agent(agent: JsonObject, path: string): void {
    this.keys(agent, path, ['objectType', 'name', ...IFI_KEYS]);
    if (agent.name !== undefined) this.string(agent.name, `${path}.name`);
    this.ifi(agent, path);
  }

  private group(group: JsonObject, path: string): void {
    this.keys(group, path, ['objectType', 'name', 'member', ...IFI_KEYS]);
    if (group.name !== undefined) this.string(group.name, `${path}.name`);
    const identified = IFI_KEYS.some((key) => group[key] !== undefined);
    if (identified) this.ifi(group, path);
    if (group.member === undefined) {
      if (!identified) throw invalid(`${path}.member`, 'is required: an anonymous Group lists its members');
      return;
    }
    const members = this.array(group.member, `${path}.member`);
    if (!identified && members.length === 0) throw invalid(`${path}.member`, 'must list at least one Agent in an anonymous Group');
    members.forEach((member, index) => {
      const memberPath = `${path}.member[${index}]`;
      const agent = this.object(member, memberPath);
      if (agent.objectType !== undefined && agent.objectType !== 'Agent') {
        throw invalid(`${memberPath}.objectType`, 'must be "Agent": a Group\'s members are Agents');
      }
      this.agent(agent, memberPath);
    });
  }

  private ifi(agent: JsonObject, path: string): void {
    if (agent.account !== undefined) {
      const account = this.object(agent.account, `${path}.account`);
      this.keys(account, `${path}.account`, ['homePage', 'name']);
    }
    // agent.ts owns the IFI rules; its message already names the path.
    parseAgent({ ...agent, objectType: undefined }, path);
  }

  verb(value: unknown, path: string): void {
    const verb = this.object(value, path);
    this.keys(verb, path, ['id', 'display']);
    this.required(verb, path, ['id']);
    this.indexedIri(verb.id, `${path}.id`);
    if (verb.display !== undefined) this.languageMap(verb.display, `${path}.display`);
  }

  private statementObject(value: unknown, path: string, inSubStatement: boolean): void {
    const object = this.object(value, path);
    switch (object.objectType) {
      case undefined:
      case 'Activity':
        return this.activity(object, path);
      case 'Agent':
        return this.agent(object, path);
      case 'Group':
        return this.group(object, path);
      case 'StatementRef':
        return this.statementRef(object, path);
      case 'SubStatement':
        if (inSubStatement) throw invalid(`${path}.objectType`, 'must not be "SubStatement" inside a SubStatement');
        return this.subStatement(object, path);
      default:
        throw invalid(`${path}.objectType`, 'must be "Activity", "Agent", "Group", "StatementRef" or "SubStatement"');
    }
  }

  private statementRef(value: unknown, path: string): void {
    const ref = this.object(value, path);
    this.keys(ref, path, ['objectType', 'id']);
    if (ref.objectType !== 'StatementRef') throw invalid(`${path}.objectType`, 'must be "StatementRef"');
    this.required(ref, path, ['id']);
    this.uuid(ref.id, `${path}.id`);
  }

  activity(value: unknown, path: string): void {
    const activity = this.object(value, path);
    this.keys(activity, path, ['objectType', 'id', 'definition']);
    if (activity.objectType !== undefined && activity.objectType !== 'Activity') throw invalid(`${path}.objectType`, 'must be "Activity"');
    this.required(activity, path, ['id']);
    this.indexedIri(activity.id, `${path}.id`);
    if (activity.definition !== undefined) this.definition(activity.definition, `${path}.definition`);
  }

  private definition(value: unknown, path: string): void {
    const definition = this.object(value, path);
    this.keys(definition, path, [
      'name',
      'description',
      'type',
      'moreInfo',
      'extensions',
      'interactionType',
      'correctResponsesPattern',
      ...Object.keys(COMPONENT_LISTS),
    ]);
    if (definition.name !== undefined) this.languageMap(definition.name, `${path}.name`);
    if (definition.description !== undefined) this.languageMap(definition.description, `${path}.description`);
    if (definition.type !== undefined) this.iri(definition.type, `${path}.type`);
    if (definition.moreInfo !== undefined) this.iri(definition.moreInfo, `${path}.moreInfo`);
    if (definition.extensions !== undefined) this.extensions(definition.extensions, `${path}.extensions`);
    const interactionType = definition.interactionType;
    if (interactionType !== undefined && !INTERACTION_TYPES.includes(interactionType as string)) {
      throw invalid(`${path}.interactionType`, `must be one of ${INTERACTION_TYPES.join(', ')}`);
    }
    if (definition.correctResponsesPattern !== undefined) {
      if (interactionType === undefined) throw invalid(`${path}.correctResponsesPattern`, 'needs an interactionType');
      this.array(definition.correctResponsesPattern, `${path}.correctResponsesPattern`).forEach((item, index) =>
        this.string(item, `${path}.correctResponsesPattern[${index}]`),
      );
    }
    for (const [list, types] of Object.entries(COMPONENT_LISTS)) {
      if (definition[list] === undefined) continue;
      if (!types.includes(interactionType as string)) {
        throw invalid(`${path}.${list}`, `is only used with interactionType ${types.join(' or ')}`);
      }
      const seen = new Set<string>();
      this.array(definition[list], `${path}.${list}`).forEach((item, index) => {
        const itemPath = `${path}.${list}[${index}]`;
        const component = this.object(item, itemPath);
        this.keys(component, itemPath, ['id', 'description']);
        this.required(component, itemPath, ['id']);
        this.string(component.id, `${itemPath}.id`);
        if (component.id === '') throw invalid(`${itemPath}.id`, 'must not be empty');
        if (seen.has(component.id as string)) throw invalid(`${itemPath}.id`, 'must be unique within the list');
        seen.add(component.id as string);
        if (component.description !== undefined) this.languageMap(component.description, `${itemPath}.description`);
      });
    }
  }

  private result(value: unknown, path: string): void {
    const result = this.object(value, path);
    this.keys(result, path, ['score', 'success', 'completion', 'response', 'duration', 'extensions']);
    if (result.score !== undefined) this.score(result.score, `${path}.score`);
    if (result.success !== undefined) this.boolean(result.success, `${path}.success`);
    if (result.completion !== undefined) this.boolean(result.completion, `${path}.completion`);
    if (result.response !== undefined) this.string(result.response, `${path}.response`);
    if (result.duration !== undefined && !isDuration(result.duration)) {
      throw invalid(`${path}.duration`, 'must be an ISO 8601 duration such as "PT1H30M"');
    }
    if (result.extensions !== undefined) this.extensions(result.extensions, `${path}.extensions`);
  }

  private score(value: unknown, path: string): void {
    const score = this.object(value, path);
    this.keys(score, path, ['scaled', 'raw', 'min', 'max']);
    for (const key of ['scaled', 'raw', 'min', 'max']) if (score[key] !== undefined) this.number(score[key], `${path}.${key}`);
    const { scaled, raw, min, max } = score as Record<string, number | undefined>;
    if (scaled !== undefined && (scaled < -1 || scaled > 1)) throw invalid(`${path}.scaled`, 'must be between -1 and 1');
    if (min !== undefined && max !== undefined && min > max) throw invalid(`${path}.min`, 'must not be greater than max');
    if (raw !== undefined && min !== undefined && raw < min) throw invalid(`${path}.raw`, 'must not be less than min');
    if (raw !== undefined && max !== undefined && raw > max) throw invalid(`${path}.raw`, 'must not be greater than max');
  }

  private context(value: unknown, path: string, statementObject: unknown): void {
    const context = this.object(value, path);
    const keys = ['registration', 'instructor', 'team', 'contextActivities', 'revision', 'platform', 'language', 'statement', 'extensions'];
    if (this.options.version === '2.0.0') keys.push('contextAgents', 'contextGroups');
    this.keys(context, path, keys);
    if (context.registration !== undefined) this.uuid(context.registration, `${path}.registration`);
    if (context.instructor !== undefined) this.actor(context.instructor, `${path}.instructor`);
    if (context.team !== undefined) {
      const team = this.object(context.team, `${path}.team`);
      if (team.objectType !== 'Group') throw invalid(`${path}.team.objectType`, 'must be "Group"');
      this.group(team, `${path}.team`);
    }
    if (context.contextActivities !== undefined) {
      const activities = this.object(context.contextActivities, `${path}.contextActivities`);
      this.keys(activities, `${path}.contextActivities`, CONTEXT_ACTIVITY_KEYS);
      for (const key of CONTEXT_ACTIVITY_KEYS) {
        const entry = activities[key];
        if (entry === undefined) continue;
        if (Array.isArray(entry)) entry.forEach((item, index) => this.activity(item, `${path}.contextActivities.${key}[${index}]`));
        else this.activity(entry, `${path}.contextActivities.${key}`);
      }
    }
    // 2.0 Part 2 §2.4.6.2: revision and platform only describe an Activity object.
    const objectType = (statementObject as JsonObject).objectType;
    const aboutActivity = objectType === undefined || objectType === 'Activity';
    for (const key of ['revision', 'platform']) {
      if (context[key] === undefined) continue;
      this.string(context[key], `${path}.${key}`);
      if (!aboutActivity) throw invalid(`${path}.${key}`, 'may only be used when the object is an Activity');
    }
    if (context.language !== undefined && !isLanguageTag(context.language)) {
      throw invalid(`${path}.language`, 'must be an RFC 5646 language tag');
    }
    if (context.statement !== undefined) this.statementRef(context.statement, `${path}.statement`);
    if (context.extensions !== undefined) this.extensions(context.extensions, `${path}.extensions`);
    if (context.contextAgents !== undefined) {
      this.array(context.contextAgents, `${path}.contextAgents`).forEach((item, index) =>
        this.contextActor(item, `${path}.contextAgents[${index}]`, 'contextAgent', 'agent'),
      );
    }
    if (context.contextGroups !== undefined) {
      this.array(context.contextGroups, `${path}.contextGroups`).forEach((item, index) =>
        this.contextActor(item, `${path}.contextGroups[${index}]`, 'contextGroup', 'group'),
      );
    }
  }

  // xAPI 2.0 Part 2 §2.4.6.3 and §2.4.6.4.
  private contextActor(value: unknown, path: string, objectType: string, property: 'agent' | 'group'): void {
    const entry = this.object(value, path);
    this.keys(entry, path, ['objectType', property, 'relevantTypes']);
    if (entry.objectType !== objectType) throw invalid(`${path}.objectType`, `must be "${objectType}"`);
    this.required(entry, path, [property]);
    const actor = this.object(entry[property], `${path}.${property}`);
    if (property === 'group') {
      if (actor.objectType !== 'Group') throw invalid(`${path}.group.objectType`, 'must be "Group"');
      this.group(actor, `${path}.group`);
    } else {
      if (actor.objectType !== undefined && actor.objectType !== 'Agent') throw invalid(`${path}.agent.objectType`, 'must be "Agent"');
      this.agent(actor, `${path}.agent`);
    }
    if (entry.relevantTypes !== undefined) {
      const types = this.array(entry.relevantTypes, `${path}.relevantTypes`);
      if (types.length === 0) throw invalid(`${path}.relevantTypes`, 'must list at least one IRI');
      types.forEach((item, index) => this.iri(item, `${path}.relevantTypes[${index}]`));
    }
  }

  private authority(value: unknown, path: string): void {
    const authority = this.object(value, path);
    this.actor(authority, path);
    // 2.0 Part 2 §2.4.9: a Group authority is the two Agents of a three-legged OAuth consumer.
    if (authority.objectType === 'Group') {
      const members = (authority.member as Json[] | undefined) ?? [];
      if (IFI_KEYS.some((key) => authority[key] !== undefined) || members.length !== 2) {
        throw invalid(path, 'as a Group must be an anonymous Group of exactly two Agents (an OAuth consumer and a user)');
      }
    }
  }

  private version(value: unknown, path: string): void {
    const accepted = this.options.version === '2.0.0' ? [VERSION_1, VERSION_2] : [VERSION_1];
    if (typeof value !== 'string' || !accepted.some((pattern) => pattern.test(value))) {
      throw invalid(path, this.options.version === '2.0.0' ? 'must be "1.0", "1.0.x", "2.0" or "2.0.x"' : 'must be "1.0" or "1.0.x"');
    }
  }

  private attachments(value: unknown, path: string): void {
    this.array(value, path).forEach((item, index) => {
      const itemPath = `${path}[${index}]`;
      const attachment = this.object(item, itemPath);
      this.keys(attachment, itemPath, ['usageType', 'display', 'description', 'contentType', 'length', 'sha2', 'fileUrl']);
      this.required(attachment, itemPath, ['usageType', 'display', 'contentType', 'length', 'sha2']);
      this.iri(attachment.usageType, `${itemPath}.usageType`);
      this.languageMap(attachment.display, `${itemPath}.display`);
      if (attachment.description !== undefined) this.languageMap(attachment.description, `${itemPath}.description`);
      this.string(attachment.contentType, `${itemPath}.contentType`);
      if (!Number.isInteger(attachment.length) || (attachment.length as number) < 0) {
        throw invalid(`${itemPath}.length`, 'must be a non-negative integer');
      }
      this.string(attachment.sha2, `${itemPath}.sha2`);
      if (!/^[0-9a-f]{56,128}$/i.test(attachment.sha2 as string)) throw invalid(`${itemPath}.sha2`, 'must be a hexadecimal SHA-2 hash');
      // Without a fileUrl the raw data must come as a part of the request: attachment.ts checks that.
      if (attachment.fileUrl !== undefined) this.iri(attachment.fileUrl, `${itemPath}.fileUrl`);
    });
  }

  private extensions(value: unknown, path: string): void {
    const extensions = this.object(value, path);
    for (const key of Object.keys(extensions)) {
      if (!isIri(key)) throw invalid(`${path}`, `has the key "${key}", which is not an IRI`);
    }
  }

  private languageMap(value: unknown, path: string): void {
    const map = this.object(value, path);
    for (const [tag, text] of Object.entries(map)) {
      if (!isLanguageTag(tag)) throw invalid(path, `has the key "${tag}", which is not an RFC 5646 language tag`);
      this.string(text, `${path}.${tag}`);
    }
  }

  private timestamp(value: unknown, path: string): void {
    if (!parseTimestamp(value)) throw invalid(path, 'must be an ISO 8601 timestamp such as "2024-05-01T12:00:00.000Z"');
  }

  private uuid(value: unknown, path: string): void {
    if (!isUuid(value)) throw invalid(path, 'must be a UUID such as "fd41c918-b88b-4b20-a0a5-a4c32391aaa0"');
  }

  private iri(value: unknown, path: string): void {
    if (!isIri(value)) throw invalid(path, 'must be an IRI with a scheme, such as "http://example.com/x"');
  }

  /** An IRI a statement is found by (an activity or verb id): an index entry, so of bounded length. */
  private indexedIri(value: unknown, path: string): void {
    this.iri(value, path);
    const problem = lengthProblem(value as string, MAX_IRI_BYTES);
    if (problem) throw invalid(path, problem);
  }

  private required(value: JsonObject, path: string, keys: string[]): void {
    for (const key of keys) if (value[key] === undefined) throw invalid(`${path}.${key}`, 'is required');
  }

  private keys(value: JsonObject, path: string, allowed: string[]): void {
    for (const key of Object.keys(value)) {
      if (!allowed.includes(key)) throw invalid(`${path}.${key}`, 'is not a property xAPI defines here');
    }
  }

  private object(value: unknown, path: string): JsonObject {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid(path, 'must be a JSON object');
    return value as JsonObject;
  }

  private array(value: unknown, path: string): Json[] {
    if (!Array.isArray(value)) throw invalid(path, 'must be an array');
    return value;
  }

  private string(value: unknown, path: string): void {
    if (typeof value !== 'string') throw invalid(path, 'must be a string');
  }

  private number(value: unknown, path: string): void {
    if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(path, 'must be a number');
  }

  private boolean(value: unknown, path: string): void {
    if (typeof value !== 'boolean') throw invalid(path, 'must be true or false');
  }
}

function invalid(path: string, why: string) {
  return badRequest('statement.invalid', `${path} ${why}.`, { property: path });
}
