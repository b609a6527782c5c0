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
