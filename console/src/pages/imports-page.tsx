import { useState } from 'react';
import { Button, DropZone, FileTrigger, Label, ProgressBar, Radio, RadioGroup, Text } from 'react-aria-components';
import { count, DataTable } from '../components/data-table';
import { EmptyState, ErrorNote, Loading } from '../components/notes';
import { ApiError, api, upload } from '../lib/api';
import {
  type CheckRow,
  checkRows,
  checkSentence,
  contentTypeOf,
  type ProblemRow,
  problemRows,
  type StructureCheck,
  type StructureKind,
  type SummaryRow,
  summaryRows,
  summarySentence,
  type UserImportSummary,
} from '../lib/import-summary';
import { useLoad } from '../lib/use-api';

type Kind = 'users' | 'organisation' | 'jobs';

interface ImportRun {
  id: string;
  kind: Kind;
  verify: boolean;
  principal: { kind: string; id: string };
  startedAt: string;
  summary: Partial<UserImportSummary> & { entries?: number; people?: { linked: number; unlinked: number } };
}

/** A small file of each kind, as the guides' examples (docs/imports.md), to start from. */
interface Example {
  file: string;
  type: string;
  text: string;
}

const KINDS: Record<Kind, { label: string; path: string; method: string; accepts: string[]; hint: string; example: Example }> = {
  users: {
    label: 'People',
    path: '/api/import/users',
    method: 'POST',
    accepts: ['.csv', '.json', 'text/csv', 'application/json'],
    hint: 'A CSV file with a header line (a name column and one column per attribute), or JSON {"users": [...]}. Checked first, then imported.',
    example: {
      file: 'people-example.csv',
      type: 'text/csv',
      text: 'name,email,employeeId,city\nAda Lovelace,ada@example.com,E1001,London\nAlan Turing,alan@example.com,E1002,Manchester\n',
    },
  },
  organisation: {
    label: 'Organisation structure',
    path: '/api/import/organisation',
    method: 'PUT',
    accepts: ['.json', 'application/json'],
    hint: 'A JSON array of entries {"id", "parentId"?, "attributes"?}. Checked first (what changes, who would lose their position), then it replaces the whole structure.',
    example: {
      file: 'organisation-example.json',
      type: 'application/json',
      text: `${JSON.stringify(
        [
          { id: 'CEO', attributes: { title: 'Chief Executive' } },
          { id: 'CTO', parentId: 'CEO', attributes: { title: 'Chief Technology Officer' } },
          { id: 'CFO', parentId: 'CEO', attributes: { title: 'Chief Financial Officer' } },
          { id: 'DEV1', parentId: 'CTO', attributes: { title: 'Developer' } },
        ],
        null,
        2,
      )}\n`,
    },
  },
  jobs: {
    label: 'Job architecture',
    path: '/api/import/jobs',
    method: 'PUT',
    accepts: ['.json', 'application/json'],
    hint: 'A JSON array of jobs {"id", "name", "competencies"?}. Checked first (what changes, who would lose their job), then it replaces every job.',
    example: {
      file: 'jobs-example.json',
      type: 'application/json',
      text: `${JSON.stringify(
        [
          {
            id: 'J-ENG',
            name: 'Engineer',
            competencies: [{ Name: 'TypeScript', Description: 'Writes it' }],
            attributes: { family: 'Technology' },
          },
          {
            id: 'J-ACC',
            name: 'Accountant',
            competencies: [{ Name: 'Bookkeeping', Description: 'Keeps the ledgers' }],
            attributes: { family: 'Finance' },
          },
        ],
        null,
        2,
      )}\n`,
    },
  },
};

type Stage =
  | { step: 'choose' }
  | { step: 'sending'; share: number; checkOnly: boolean }
  | { step: 'checked'; summary: UserImportSummary }
  | { step: 'checkedStructure'; check: StructureCheck }
  | { step: 'done'; summary?: UserImportSummary }
  | { step: 'failed'; error: unknown };

/**
 * Imports: drop (or choose) a file of people, the organisation structure or the jobs; each is
 * checked first (the API's `verify`): people with each row's errors and warnings, the structure and
 * the jobs with what would change and who would lose their position or job (or, refused, every
 * problem); then imported; the upload's progress is shown as it goes; the history below.
 */
export default function ImportsPage() {
  const [kind, setKind] = useState<Kind>('users');
  const [file, setFile] = useState<File>();
  const [stage, setStage] = useState<Stage>({ step: 'choose' });
  const [history, reloadHistory] = useLoad(
    (signal) => api<ImportRun[]>('GET', '/api/import/history', { query: { limit: 20 }, signal }),
    'history',
  );

  function choose(next: File | undefined) {
    setFile(next);
    setStage({ step: 'choose' });
  }

  async function send(checkOnly: boolean) {
    if (!file) return;
    const target = KINDS[kind];
    setStage({ step: 'sending', share: 0, checkOnly });
    try {
      const answer = await upload<UserImportSummary | StructureCheck | undefined>(
        target.method,
        target.path,
        file,
        contentTypeOf(file.name),
        {
          query: checkOnly ? { verify: true } : {},
          onProgress: (share) => setStage({ step: 'sending', share, checkOnly }),
        },
      );
      if (kind !== 'users')
        setStage(checkOnly && answer ? { step: 'checkedStructure', check: answer as StructureCheck } : { step: 'done' });
      else {
        const summary = answer as UserImportSummary | undefined;
        setStage(checkOnly && summary ? { step: 'checked', summary } : { step: 'done', summary });
      }
      reloadHistory();
    } catch (error) {
      setStage({ step: 'failed', error });
    }
  }

  const target = KINDS[kind];
  return (
    <>
      <h1>Imports</h1>
      <section className="panel" aria-labelledby="import-title">
        <h2 id="import-title">Import a file</h2>
        <RadioGroup
          value={kind}
          onChange={(value) => {
            setKind(value as Kind);
            choose(undefined);
          }}
          orientation="horizontal"
          className="choices"
        >
          <Label>What the file holds</Label>
          {(Object.keys(KINDS) as Kind[]).map((key) => (
            <Radio key={key} value={key}>
              {KINDS[key].label}
            </Radio>
          ))}
        </RadioGroup>
        <p className="muted">
          {target.hint}{' '}
          <Button className="secondary small" onPress={() => downloadExample(target.example)}>
            Download an example file
          </Button>
        </p>
        <DropZone
          className="drop"
          aria-label={`Drop a file of ${target.label.toLowerCase()}`}
          onDrop={async (event) => {
            const item = event.items.find((entry) => entry.kind === 'file');
            if (item && item.kind === 'file') choose(await item.getFile());
          }}
        >
          <Text slot="label">{file ? `${file.name}, ${count(file.size)} bytes` : 'Drop a file here, or'}</Text>
          <FileTrigger acceptedFileTypes={target.accepts} onSelect={(files) => choose(files?.[0] ?? undefined)}>
            <Button className="secondary">{file ? 'Choose another file' : 'Choose a file'}</Button>
          </FileTrigger>
        </DropZone>
        <div className="actions">
          <Button isDisabled={!file || stage.step === 'sending'} onPress={() => void send(true)}>
            Check the file
          </Button>
          {stage.step === 'checked' && (
            <Button isDisabled={stage.summary.new + stage.summary.existing === 0} onPress={() => void send(false)}>
              Import {count(stage.summary.new + stage.summary.existing)}{' '}
              {stage.summary.new + stage.summary.existing === 1 ? 'person' : 'people'}
            </Button>
          )}
          {stage.step === 'checkedStructure' && <Button onPress={() => void send(false)}>Replace the {target.label.toLowerCase()}</Button>}
        </div>
        {stage.step === 'sending' && (
          <ProgressBar
            value={stage.share * 100}
            className="progress"
            aria-label={stage.checkOnly ? 'Checking the file' : 'Importing the file'}
          >
            {({ percentage }) => (
              <>
                <span>
                  {stage.checkOnly ? 'Checking' : 'Importing'}… {Math.round(percentage ?? 0)}% sent
                </span>
                <progress max={100} value={percentage ?? 0} aria-hidden="true" />
              </>
            )}
          </ProgressBar>
        )}
        {stage.step === 'failed' && (
          <ErrorNote error={stage.error}>
            <Problems rows={stage.error instanceof ApiError ? problemRows(stage.error.details) : []} />
          </ErrorNote>
        )}
        {stage.step === 'done' && (
          <p className="note" role="status">
            {stage.summary ? summarySentence(stage.summary, false) : `The ${target.label.toLowerCase()} was replaced.`}
          </p>
        )}
        {stage.step === 'checkedStructure' && kind !== 'users' && <StructureSummary check={stage.check} kind={kind} />}
        {(stage.step === 'checked' || (stage.step === 'done' && stage.summary)) && (
          <Summary summary={stage.step === 'checked' ? stage.summary : stage.summary!} checkOnly={stage.step === 'checked'} />
        )}
      </section>

      <section className="panel" aria-labelledby="history-title">
        <h2 id="history-title">History</h2>
        {history.status === 'loading' && <Loading what="the history" />}
        {history.status === 'error' && <ErrorNote error={history.error} />}
        {history.status === 'done' &&
          (history.value.length === 0 ? (
            <EmptyState title="Nothing imported yet." />
          ) : (
            <DataTable
              label="Import history"
              columns={[
                { id: 'when', label: 'Started', cell: (run: ImportRun) => new Date(run.startedAt).toLocaleString('en-GB') },
                { id: 'kind', label: 'What', cell: (run) => `${KINDS[run.kind]?.label ?? run.kind}${run.verify ? ' (check only)' : ''}` },
                { id: 'by', label: 'By', cell: (run) => principalText(run.principal) },
                {
                  id: 'summary',
                  label: 'Result',
                  cell: (run) =>
                    run.summary.entries !== undefined
                      ? `${count(run.summary.entries)} entries${run.verify && run.summary.people ? `, ${count(run.summary.people.unlinked)} ${run.summary.people.unlinked === 1 ? 'person' : 'people'} unlinked` : ''}`
                      : `${count(run.summary.new ?? 0)} new, ${count(run.summary.existing ?? 0)} existing, ${plural(run.summary.errorCount ?? 0, 'error')}`,
                },
              ]}
              rows={history.value}
              rowKey={(run) => run.id}
            />
          ))}
      </section>
    </>
  );
}

/** The user import's summary: one sentence, then each row's errors and warnings in a table. */
function Summary({ summary, checkOnly }: { summary: UserImportSummary; checkOnly: boolean }) {
  const rows = summaryRows(summary);
  return (
    <div className="summary">
      <p role="status">{summarySentence(summary, checkOnly)}</p>
      {rows.length > 0 && (
        <DataTable
          label="Errors and warnings by row"
          columns={[
            { id: 'row', label: 'Row', cell: (row: SummaryRow) => row.row, numeric: true },
            { id: 'severity', label: 'Kind', cell: (row) => (row.severity === 'error' ? 'Error: row skipped' : 'Warning') },
            { id: 'message', label: 'Message', cell: (row) => row.message },
            { id: 'value', label: 'Value', cell: (row) => <code>{row.value}</code> },
          ]}
          rows={rows}
          rowKey={(row) => row.key}
        />
      )}
    </div>
  );
}

/** An organisation or jobs check: one sentence, then each kind of change with its first examples. */
function StructureSummary({ check, kind }: { check: StructureCheck; kind: StructureKind }) {
  const rows = checkRows(check, kind);
  return (
    <div className="summary">
      <p role="status">{checkSentence(check, kind)} Nothing is replaced until you import it.</p>
      {rows.length > 0 && (
        <DataTable
          label="What would change"
          columns={[
            { id: 'change', label: 'Change', cell: (row: CheckRow) => row.change },
            { id: 'count', label: 'How many', cell: (row) => count(row.count), numeric: true },
            { id: 'examples', label: 'First ones', cell: (row) => row.examples },
          ]}
          rows={rows}
          rowKey={(row) => row.key}
        />
      )}
    </div>
  );
}

/** Every problem of a refused organisation or jobs file: the entry (counting from 0), its id, what is wrong. */
function Problems({ rows }: { rows: ProblemRow[] }) {
  if (rows.length === 0) return null;
  return (
    <DataTable
      label="Problems by entry"
      columns={[
        { id: 'index', label: 'Entry (from 0)', cell: (row: ProblemRow) => row.index, numeric: true },
        { id: 'id', label: 'Id', cell: (row) => <code>{row.id}</code> },
        { id: 'problem', label: 'Problem', cell: (row) => row.problem },
      ]}
      rows={rows}
      rowKey={(row) => row.key}
    />
  );
}

const plural = (n: number, noun: string) => `${count(n)} ${noun}${n === 1 ? '' : 's'}`;

/** Who ran an import, as a person reads it: an admin, an API key, the command line or the import folder. */
function principalText(principal: ImportRun['principal']): string {
  switch (principal.kind) {
    case 'admin':
      return 'an admin';
    case 'api_key':
      return `API key ${principal.id}`;
    default:
      return principal.id.startsWith('drop:')
        ? `the import folder (${principal.id.slice(5)})`
        : `the command line (${principal.id.replace(/^cli:/, '')})`;
  }
}

/** Saves `example` as the browser saves a download. */
function downloadExample(example: Example) {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([example.text], { type: example.type }));
  link.download = example.file;
  link.click();
  URL.revokeObjectURL(link.href);
}
