/**
 * The user import's answer (docs/imports.md, "Importing users") and the rows of the table that
 * shows it: every error and warning, in row order, errors of a row before its warnings. Pure, with
 * no imports: tested on its own (test/console/import-summary.test.ts).
 */
export interface ImportMessage {
  type: string;
  message: string;
  value?: string;
  row: number;
}

export interface UserImportSummary {
  rows: number;
  new: number;
  existing: number;
  skipped: number;
  deactivated?: number;
  errorCount: number;
  warningCount: number;
  errors: ImportMessage[];
  warnings: ImportMessage[];
}

export interface SummaryRow {
  key: string;
  row: number;
  severity: 'error' | 'warning';
  type: string;
  message: string;
  value: string;
}

/** Errors and warnings as one list, by row, a row's errors (it was skipped) before its warnings. */
export function summaryRows(summary: Pick<UserImportSummary, 'errors' | 'warnings'>): SummaryRow[] {
  const tagged = [
    ...summary.errors.map((message, index) => ({ ...message, severity: 'error' as const, index })),
    ...summary.warnings.map((message, index) => ({ ...message, severity: 'warning' as const, index })),
  ];
  tagged.sort((a, b) => a.row - b.row || (a.severity === b.severity ? a.index - b.index : a.severity === 'error' ? -1 : 1));
  return tagged.map((message) => ({
    key: `${message.severity}-${message.index}`,
    row: message.row,
    severity: message.severity,
    type: message.type,
    message: message.message,
    value: message.value ?? '',
  }));
}

/** One sentence for the whole file: what would happen (a check) or what happened. */
export function summarySentence(summary: UserImportSummary, checkOnly: boolean): string {
  const would = checkOnly ? 'would be' : 'were';
  const parts = [
    `${summary.rows} ${summary.rows === 1 ? 'row' : 'rows'}: ${summary.new} new and ${summary.existing} existing ${would} imported`,
    `${summary.skipped} skipped for errors`,
  ];
  if (summary.deactivated !== undefined) parts.push(`${summary.deactivated} ${would} deactivated`);
  if (summary.warningCount > 0) parts.push(`${summary.warningCount} ${summary.warningCount === 1 ? 'warning' : 'warnings'}`);
  return `${parts.join(', ')}.`;
}

/** The content type a file is sent with, from its name: CSV for `.csv`, else JSON. */
export const contentTypeOf = (fileName: string): string => (/\.csv$/i.test(fileName) ? 'text/csv; charset=utf-8' : 'application/json');

/**
 * The check of an organisation or jobs replacement (`PUT /api/import/organisation|jobs?verify=true`,
 * docs/imports.md, "Checking a replacement first"): what it would change and whom it would unlink.
 */
export interface StructureCheck {
  verify: true;
  entries: number;
  added: number;
  removed: number;
  changed: number;
  unchanged: number;
  people: { linked: number; unlinked: number };
  /** Jobs only: the competencies new to the catalogue. */
  competencies?: { added: number };
  examples: {
    added: string[];
    removed: string[];
    changed: string[];
    unlinked: { agentKey: string; name?: string }[];
    competencies?: string[];
  };
}

export type StructureKind = 'organisation' | 'jobs';

const counted = (n: number, one: string, many: string) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

/**
 * The check in one sentence: "10,000 entries: 12 new, 3 removed, 40 changed; 25 people would lose
 * their position." (jobs: their job, and the competencies new to the catalogue).
 */
export function checkSentence(check: StructureCheck, kind: StructureKind): string {
  const what = kind === 'jobs' ? counted(check.entries, 'job', 'jobs') : counted(check.entries, 'entry', 'entries');
  const changes = [
    `${check.added.toLocaleString('en')} new`,
    `${check.removed.toLocaleString('en')} removed`,
    `${check.changed.toLocaleString('en')} changed`,
  ];
  const lost = `${counted(check.people.unlinked, 'person', 'people')} would lose ${kind === 'jobs' ? 'their job' : 'their position'}`;
  const fresh = check.competencies ? `; ${counted(check.competencies.added, 'competency', 'competencies')} new to the catalogue` : '';
  return `${what}: ${changes.join(', ')}; ${lost}${fresh}.`;
}

/** One kind of change with its first examples, as a row of the check's table. */
export interface CheckRow {
  key: string;
  change: string;
  count: number;
  examples: string;
}

/** A person as the examples show them: their name and their actor id, or the id alone. */
export const personShown = (person: { agentKey: string; name?: string }): string =>
  person.name === undefined ? person.agentKey : `${person.name} (${person.agentKey})`;

/** The first examples, then how many more there are: "A, B and 3 more". */
export function examplesText(examples: readonly string[], total: number): string {
  if (examples.length === 0) return '';
  const more = total - examples.length;
  return more > 0 ? `${examples.join(', ')} and ${more.toLocaleString('en')} more` : examples.join(', ');
}

/** The check as table rows, the kinds of change that happen only, people who would lose their place first. */
export function checkRows(check: StructureCheck, kind: StructureKind): CheckRow[] {
  const rows: CheckRow[] = [
    {
      key: 'unlinked',
      change: kind === 'jobs' ? 'People who would lose their job' : 'People who would lose their position',
      count: check.people.unlinked,
      examples: examplesText(check.examples.unlinked.map(personShown), check.people.unlinked),
    },
    { key: 'added', change: 'New', count: check.added, examples: examplesText(check.examples.added, check.added) },
    { key: 'removed', change: 'Removed', count: check.removed, examples: examplesText(check.examples.removed, check.removed) },
    { key: 'changed', change: 'Changed', count: check.changed, examples: examplesText(check.examples.changed, check.changed) },
  ];
  if (check.competencies) {
    rows.push({
      key: 'competencies',
      change: 'Competencies new to the catalogue',
      count: check.competencies.added,
      examples: examplesText(check.examples.competencies ?? [], check.competencies.added),
    });
  }
  return rows.filter((row) => row.count > 0);
}

/** One problem of a refused organisation or jobs file (`details.problems` of imports.invalid_organisation|invalid_jobs). */
export interface ProblemRow {
  key: string;
  index: number;
  id: string;
  problem: string;
}

/** The problems a refusal's details list, in the API's order; none when the details hold no such list. */
export function problemRows(details: Record<string, unknown> | undefined): ProblemRow[] {
  const problems = details?.problems;
  if (!Array.isArray(problems)) return [];
  return problems
    .filter(
      (item): item is { index: number; id?: unknown; problem: string } =>
        typeof item === 'object' && item !== null && typeof item.problem === 'string',
    )
    .map((item, position) => ({
      key: `problem-${position}`,
      index: typeof item.index === 'number' ? item.index : -1,
      id: typeof item.id === 'string' ? item.id : '',
      problem: item.problem,
    }));
}
