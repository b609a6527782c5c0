import { useState } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { Button, Form, Input, Label, Tab, TabList, TabPanel, Tabs, TextField } from 'react-aria-components';
import { useSearchParams } from 'react-router';
import { count, DataTable, percent } from '../components/data-table';
import { pageOf, SkipPager } from './records';
import { EmptyState, ErrorNote, Loading } from '../components/notes';
import { api, send } from '../lib/api';
import { utcDay, verbName } from '../lib/reports';
import { useLoad } from '../lib/use-api';

/** A row of any report, as the table and the chart show it. */
interface ReportRow {
  id: string;
  label: string;
  figures: Record<string, number | null>;
}

interface ReportKind {
  id: string;
  title: string;
  path: string;
  filters: readonly string[];
  /** The figures charted, by label. */
  series: readonly { key: string; label: string; rate?: boolean }[];
  rows: (body: Record<string, unknown>) => ReportRow[];
}

const nameOf = (name: unknown): string =>
  typeof name === 'string' ? name : name && typeof name === 'object' ? String(Object.values(name)[0] ?? '') : '';

type Json = Record<string, unknown>;
const list = (body: Json, property: string) => (body[property] as Json[] | undefined) ?? [];

const REPORTS: readonly ReportKind[] = [
  {
    id: 'by-unit',
    title: 'Completion by organisation entry',
    path: '/api/reports/completion-by-unit',
    filters: ['organisationId', 'jobId', 'activityId', 'tag'],
    series: [
      { key: 'people', label: 'People' },
      { key: 'completed', label: 'Completed' },
      { key: 'rate', label: 'Rate', rate: true },
    ],
    rows: (body) =>
      list(body, 'units').map((unit) => ({
        id: String(unit.id),
        label: `${unit.id} ${nameOf((unit.attributes as Json | undefined)?.title)}`.trim(),
        figures: { ...(unit.subtree as Record<string, number | null>) },
      })),
  },
  {
    id: 'by-job',
    title: 'Completion by job',
    path: '/api/reports/completion-by-job',
    filters: ['organisationId', 'jobId', 'activityId', 'tag'],
    series: [
      { key: 'people', label: 'People' },
      { key: 'completed', label: 'Completed' },
      { key: 'rate', label: 'Rate', rate: true },
    ],
    rows: (body) =>
      list(body, 'jobs').map((job) => ({
        id: String(job.id),
        label: `${job.id} ${nameOf(job.name)}`.trim(),
        figures: { people: job.people as number, completed: job.completed as number, rate: job.rate as number | null },
      })),
  },
  {
    id: 'by-activity',
    title: 'Completion by activity',
    path: '/api/reports/completion-by-activity',
    filters: ['organisationId', 'jobId', 'activityId', 'tag'],
    series: [
      { key: 'attempted', label: 'Attempted' },
      { key: 'completed', label: 'Completed' },
      { key: 'passed', label: 'Passed' },
    ],
    rows: (body) =>
      list(body, 'activities').map((activity) => ({
        id: String(activity.id),
        label: nameOf(activity.name) || String(activity.id),
        figures: {
          attempted: activity.attempted as number,
          completed: activity.completed as number,
          passed: activity.passed as number,
        },
      })),
  },
  {
    id: 'compliance',
    title: 'Assignment compliance',
    path: '/api/reports/assignment-compliance',
    filters: ['organisationId', 'jobId', 'activityId', 'assignmentId'],
    series: [
      { key: 'onTime', label: 'On time' },
      { key: 'late', label: 'Late' },
      { key: 'overdue', label: 'Overdue' },
      { key: 'inProgress', label: 'In progress' },
      { key: 'notStarted', label: 'Not started' },
    ],
    rows: (body) =>
      list(body, 'units').map((unit) => ({
        id: String(unit.id),
        label: `${unit.id} ${nameOf((unit.attributes as Json | undefined)?.title)}`.trim(),
        figures: { ...(unit.subtree as Record<string, number | null>) },
      })),
  },
  {
    id: 'over-time',
    title: 'Activity over time',
    path: '/api/reports/activity-over-time',
    filters: ['from', 'to', 'organisationId', 'jobId', 'activityId'],
    series: [
      { key: 'statements', label: 'Statements' },
      { key: 'activeLearners', label: 'Active learners' },
    ],
    rows: (body) =>
      list(body, 'intervals').map((interval) => ({
        id: String(interval.start).slice(0, 10),
        label: String(interval.start).slice(0, 10),
        figures: {
          statements: interval.statements as number,
          activeLearners: interval.activeLearners as number,
          ...Object.fromEntries(Object.entries(interval.verbs as Record<string, number>).map(([verb, n]) => [verbName(verb), n])),
        },
      })),
  },
];

const FILTER_LABELS: Record<string, string> = {
  organisationId: 'Organisation entry',
  jobId: 'Job',
  activityId: 'Activity id',
  tag: 'Tag',
  assignmentId: 'Assignment id',
  from: 'From (YYYY-MM-DD)',
  to: 'To (YYYY-MM-DD)',
};

const COLOURS = ['#1d4ed8', '#0f766e', '#b45309', '#7c3aed', '#be123c'];
/**
 * The table shows a page of rows at a time (`?skip=` in the address): a tenant of 10,000
 * organisation entries answers 10,000 rows, which a browser lays out in seconds; the CSV has them all.
 */
const TABLE_PAGE = 100;

/**
 * Every report of docs/learning.md as a chart and a table, with its filters and its CSV download.
 * The report and its filters are the address (`?report=by-job&organisationId=CTO`): a reload or a
 * shared link shows the same.
 */
export default function ReportsPage() {
  const [search, setSearch] = useSearchParams();
  const report = REPORTS.find((kind) => kind.id === search.get('report')) ?? REPORTS[0]!;
  const filters = Object.fromEntries(report.filters.map((name) => [name, search.get(name) ?? defaultFilter(report, name)]));
  const key = `${report.id}?${new URLSearchParams(filters)}`;
  const [answer] = useLoad((signal) => api<Json>('GET', report.path, { query: filters, signal }), key);
  const [draft, setDraft] = useState<Record<string, string>>(filters);
  const [download, setDownload] = useState<{ busy: boolean; error?: unknown }>({ busy: false });

  function choose(id: string) {
    const kind = REPORTS.find((candidate) => candidate.id === id) ?? REPORTS[0]!;
    setDraft(Object.fromEntries(kind.filters.map((name) => [name, defaultFilter(kind, name)])));
    setSearch({ report: id });
  }

  async function downloadCsv() {
    setDownload({ busy: true });
    try {
      const response = await send('GET', report.path, { query: filters }, 'text/csv');
      const link = document.createElement('a');
      link.href = URL.createObjectURL(await response.blob());
      link.download = `${report.id}.csv`;
      link.click();
      URL.revokeObjectURL(link.href);
      setDownload({ busy: false });
    } catch (error) {
      setDownload({ busy: false, error });
    }
  }

  const rows = answer.status === 'done' ? report.rows(answer.value) : [];
  const skip = pageOf(search, TABLE_PAGE, TABLE_PAGE).skip;
  const shown = rows.slice(skip, skip + TABLE_PAGE);
  const counted = report.series.filter((series) => !series.rate);
  return (
    <>
      <h1>Reports</h1>
      <Tabs selectedKey={report.id} onSelectionChange={(id) => choose(String(id))}>
        <TabList aria-label="Report" className="tabs">
          {REPORTS.map((kind) => (
            <Tab key={kind.id} id={kind.id}>
              {kind.title}
            </Tab>
          ))}
        </TabList>
        <TabPanel id={report.id}>
          <Form
            className="filters"
            onSubmit={(event) => {
              event.preventDefault();
              setSearch({ report: report.id, ...Object.fromEntries(Object.entries(draft).filter(([, value]) => value.trim() !== '')) });
            }}
          >
            {report.filters.map((name) => (
              <TextField key={name} value={draft[name] ?? ''} onChange={(value) => setDraft({ ...draft, [name]: value })}>
                <Label>{FILTER_LABELS[name]}</Label>
                <Input spellCheck={false} />
              </TextField>
            ))}
            <Button type="submit">Apply</Button>
            <Button className="secondary" onPress={() => void downloadCsv()} isDisabled={download.busy}>
              {download.busy ? 'Preparing the CSV…' : 'Download CSV'}
            </Button>
          </Form>
          <ErrorNote error={download.error} />
          <section className="panel" aria-labelledby="report-title">
            <h2 id="report-title">{report.title}</h2>
            {answer.status === 'loading' && <Loading what="the report" />}
            {answer.status === 'error' && <ErrorNote error={answer.error} />}
            {answer.status === 'done' &&
              (rows.length === 0 ? (
                <EmptyState title="Nothing to report for these filters.">
                  <p>Reports count the people imported, their organisation and jobs, and the activities registered.</p>
                </EmptyState>
              ) : (
                <div className="chart-and-table">
                  <figure className="chart" aria-hidden="true">
                    <ResponsiveContainer width="100%" height={Math.min(420, Math.max(200, rows.length * 24))}>
                      <BarChart data={rows.slice(0, 40).map((row) => ({ label: row.id, ...row.figures }))} accessibilityLayer={false}>
                        <CartesianGrid strokeDasharray="3 3" />
                        <XAxis dataKey="label" />
                        <YAxis allowDecimals={false} />
                        <Tooltip />
                        <Legend />
                        {counted.map((series, index) => (
                          <Bar key={series.key} dataKey={series.key} name={series.label} fill={COLOURS[index % COLOURS.length]} />
                        ))}
                      </BarChart>
                    </ResponsiveContainer>
                  </figure>
                  <div>
                    <DataTable
                      label={report.title}
                      columns={[
                        { id: 'label', label: 'Row', cell: (row: ReportRow) => row.label },
                        ...report.series.map((series) => ({
                          id: series.key,
                          label: series.label,
                          numeric: true,
                          cell: (row: ReportRow) =>
                            series.rate ? percent(row.figures[series.key]) : count(Number(row.figures[series.key] ?? 0)),
                        })),
                      ]}
                      rows={shown}
                      rowKey={(row) => row.id}
                    />
                    {rows.length > TABLE_PAGE && (
                      <div className="table-pages">
                        <p className="muted" aria-live="polite">
                          Rows {count(Math.min(skip + 1, rows.length))} to {count(Math.min(skip + TABLE_PAGE, rows.length))} of{' '}
                          {count(rows.length)}: the CSV has them all.
                        </p>
                        <SkipPager
                          label="Pages of the report's rows"
                          search={search}
                          skip={skip}
                          limit={TABLE_PAGE}
                          hasMore={skip + TABLE_PAGE < rows.length}
                        />
                      </div>
                    )}
                  </div>
                </div>
              ))}
          </section>
        </TabPanel>
      </Tabs>
    </>
  );
}

/** Activity over time needs a range: the last 30 days unless the address says. */
function defaultFilter(report: ReportKind, name: string): string {
  if (report.id !== 'over-time') return '';
  if (name === 'from') return utcDay(29);
  if (name === 'to') return utcDay(0);
  return '';
}
