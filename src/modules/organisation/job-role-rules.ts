import { textProblem } from '../../platform/json-guard.js';
import type { Job } from './organisation.repository.js';
import {
  attributesProblems,
  duplicateProblems,
  idProblem,
  isPlainObject,
  shown,
  unknownFieldProblems,
  type ImportCheck,
  type ImportProblem,
} from './org-unit-rules.js';

/**
 * The rules of a job architecture import (`PUT /api/import/jobs`, interface 2.5), pure like
 * org-unit-rules.ts and reporting the same way: every problem of every entry, 0-based index.
 */

/** Names (of a job, of a competency) are 1 to 1,000 characters: a title, not a document. */
export const MAX_NAME_LENGTH = 1000;
/** A competency's description is at most 10,000 characters. */
export const MAX_DESCRIPTION_LENGTH = 10_000;

const JOB_FIELDS = ['id', 'name', 'competencies', 'attributes'] as const;
const COMPETENCY_FIELDS = ['Name', 'Description'] as const;

function textFieldProblem(value: unknown, max: number, required: boolean): string | undefined {
  if (value === undefined) return required ? 'is missing' : undefined;
  if (typeof value !== 'string') return 'must be a string';
  if (required && value.trim().length === 0) return 'must not be empty';
  const text = textProblem(value);
  if (text) return text.why;
  if ([...value].length > max) return `must be at most ${max} characters`;
  return undefined;
}

/**
 * The problems of `competencies` (absent is fine): an array of `{Name, Description?}`, capitalised
 * exactly so (interface 2.5). `Description` may be left out and is then stored as "".
 */
export function competenciesProblems(value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return ['`competencies` must be an array of `{Name, Description}`'];
  const problems: string[] = [];
  value.forEach((competency, at) => {
    const where = `competencies[${at}]`;
    if (!isPlainObject(competency)) {
      problems.push(`\`${where}\` must be an object \`{Name, Description}\``);
      return;
    }
    const name = textFieldProblem(competency.Name, MAX_NAME_LENGTH, true);
    if (name) problems.push(`\`${where}.Name\` ${name}`);
    const description = textFieldProblem(competency.Description, MAX_DESCRIPTION_LENGTH, false);
    if (description) problems.push(`\`${where}.Description\` ${description}`);
    for (const field of Object.keys(competency).filter((key) => !(COMPETENCY_FIELDS as readonly string[]).includes(key))) {
      const hint = COMPETENCY_FIELDS.find((known) => known.toLowerCase() === field.toLowerCase());
      problems.push(
        `\`${where}\` has the unknown field ${shown(field)}; a competency has only \`Name\` and \`Description\`` +
          (hint ? ` (capitalised: \`${hint}\`)` : ''),
      );
    }
  });
  return problems;
}

/** Checks a whole job architecture import: every job `{id, name, competencies?, attributes?}`, ids unique. */
export function checkJobsImport(body: unknown): ImportCheck<Job[]> {
  if (!Array.isArray(body)) return { ok: false, problems: [], body: 'must be a JSON array of jobs' };
  const problems: ImportProblem[] = [];
  body.forEach((entry, index) => {
    if (!isPlainObject(entry)) {
      problems.push({ index, problem: 'the entry must be an object with `id`, `name` and optional `competencies`, `attributes`' });
      return;
    }
    const idWhy = idProblem(entry.id);
    const add = (problem: string) => problems.push(idWhy === undefined ? { index, id: entry.id as string, problem } : { index, problem });
    if (idWhy) add(`\`id\` ${idWhy}`);
    const nameWhy = textFieldProblem(entry.name, MAX_NAME_LENGTH, true);
    if (nameWhy) add(`\`name\` ${nameWhy}`);
    for (const problem of competenciesProblems(entry.competencies)) add(problem);
    for (const problem of attributesProblems(entry.attributes)) add(problem);
    for (const problem of unknownFieldProblems(entry, JOB_FIELDS)) add(problem);
  });
  problems.push(...duplicateProblems(body).problems);

  if (problems.length > 0) return { ok: false, problems: problems.sort((a, b) => a.index - b.index) };
  return {
    ok: true,
    value: (body as Record<string, unknown>[]).map((entry) => ({
      id: entry.id as string,
      name: entry.name as string,
      competencies: ((entry.competencies as Record<string, string>[] | undefined) ?? []).map((competency) => ({
        Name: competency.Name,
        Description: competency.Description ?? '',
      })),
      attributes: (entry.attributes as Record<string, string> | undefined) ?? {},
    })),
  };
}
