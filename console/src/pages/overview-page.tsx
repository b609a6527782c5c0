import { Bar, BarChart, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { Label, ListBox, ListBoxItem, Popover, Select, SelectValue, Button } from 'react-aria-components';
import { Link, useSearchParams } from 'react-router';
import { count, DataTable, percent } from '../components/data-table';
import { EmptyState, ErrorNote, Loading } from '../components/notes';
import { api } from '../lib/api';
import { activityOverTime, assignmentCompliance, completionByUnit, topUnits, utcDay } from '../lib/reports';
import { useLoad } from '../lib/use-api';

interface ImportRun {
  id: string;
  kind: 'users' | 'organisation' | 'jobs';
  verify: boolean;
  startedAt: string;
  summary: { errorCount?: number; rows?: number; entries?: number };
}

const RANGES = [7, 30, 90] as const;
const COMPLETED = 'http://adlnet.gov/expapi/verbs/completed';

/**
 * The overview: statements and active learners per day, completions this week, how the assignments
 * stand, imports that had errors, and people by organisation entry; each chart with its table.
 * The range is in the address (`?days=`), so a reload or a shared link keeps it.
 */
export default function OverviewPage() {
  const [search, setSearch] = useSearchParams();
  const days = RANGES.find((range) => String(range) === search.get('days')) ?? 30;
  const [overview] = useLoad(async (signal) => {
    const [activity, compliance, units, imports] = await Promise.all([
      activityOverTime({ from: utcDay(days - 1), to: utcDay(0) }, signal),
      // The roots and their children are all the charts need (topUnits): depth 1, whatever the structure's size.
      assignmentCompliance({ depth: 1 }, signal),
      completionByUnit({ depth: 1 }, signal),
      api<ImportRun[]>('GET', '/api/import/history', { query: { limit: 100 }, signal }),
    ]);
    return { activity, compliance, units, imports };
  }, String(days));

  if (overview.status === 'loading') return <Loading what="the overview" />;
  if (overview.status === 'error') return <ErrorNote error={overview.error} />;
  const { activity, compliance, units, imports } = overview.value;

  const perDay = activity.intervals.map((interval) => ({
    day: interval.start.slice(0, 10),
    statements: interval.statements,
    learners: interval.activeLearners,
    completions: interval.verbs[COMPLETED] ?? 0,
  }));
  const lastWeek = perDay.slice(-7);
  const completionsThisWeek = lastWeek.reduce((sum, day) => sum + day.completions, 0);
  const statements = perDay.reduce((sum, day) => sum + day.statements, 0);
  const complianceTotals = topUnits(compliance.units).reduce(
    (sum, unit) => ({
      onTime: sum.onTime + unit.subtree.onTime,
      total: sum.total + unit.subtree.total,
      overdue: sum.overdue + unit.subtree.overdue,
    }),
    { onTime: 0, total: 0, overdue: 0 },
  );
  const failedImports = imports.filter((run) => (run.summary.errorCount ?? 0) > 0).slice(0, 10);
  const people = topUnits(units.units).map((unit) => ({
    id: unit.id,
    title: String(unit.attributes?.title ?? ''),
    people: unit.subtree.people,
  }));

  return (
    <>
      <div className="page-head">
        <h1>Overview</h1>
        <Select
          className="range"
          selectedKey={String(days)}
          onSelectionChange={(key) => setSearch({ days: String(key) })}
          aria-label="Range"
        >
          <Label>Range</Label>
          <Button className="select-button">
            <SelectValue />
          </Button>
          <Popover>
            <ListBox>
              {RANGES.map((range) => (
                <ListBoxItem key={range} id={String(range)}>
                  Last {range} days
                </ListBoxItem>
              ))}
            </ListBox>
          </Popover>
        </Select>
      </div>

      <ul className="tiles" aria-label="At a glance">
        <li>
          <span className="figure">{count(statements)}</span> statements in the last {days} days
        </li>
        <li>
          <span className="figure">{count(completionsThisWeek)}</span> completions in the last 7 days
        </li>
        <li>
          <span className="figure">{complianceTotals.total === 0 ? '—' : percent(complianceTotals.onTime / complianceTotals.total)}</span>{' '}
          of assigned work done on time{complianceTotals.overdue > 0 ? `, ${count(complianceTotals.overdue)} overdue` : ''}
        </li>
        <li>
          <span className="figure">{count(failedImports.length)}</span> recent imports with errors
        </li>
      </ul>

      <section aria-labelledby="activity-title" className="panel">
        <h2 id="activity-title">Statements and active learners per day</h2>
        {statements === 0 ? (
          <EmptyState title="No statements in this range yet.">
            <p>Content sends them as learners work; the guides at /docs show how to launch a course.</p>
          </EmptyState>
        ) : (
          <div className="chart-and-table">
            <figure className="chart" aria-hidden="true">
              <ResponsiveContainer width="100%" height={260}>
                <ComposedChart data={perDay} accessibilityLayer={false}>
                  <CartesianGrid strokeDasharray="3 3" />
                  <XAxis dataKey="day" tickFormatter={(day: string) => day.slice(5)} />
                  <YAxis allowDecimals={false} />
                  <Tooltip />
                  <Legend />
                  <Bar dataKey="statements" name="Statements" fill="#1d4ed8" />
                  <Line dataKey="learners" name="Active learners" stroke="#b45309" strokeWidth={2} dot={false} />
                </ComposedChart>
              </ResponsiveContainer>
            </figure>
            <DataTable
              label="Statements and active learners per day"
              columns={[
                { id: 'day', label: 'Day', cell: (row) => row.day },
                { id: 'statements', label: 'Statements', cell: (row) => count(row.statements), numeric: true },
                { id: 'learners', label: 'Active learners', cell: (row) => count(row.learners), numeric: true },
              ]}
              rows={[...perDay].reverse().filter((row) => row.statements > 0)}
              rowKey={(row) => row.day}
            />
          </div>
        )}
      </section>

      <section aria-labelledby="people-title" className="panel">
        <h2 id="people-title">People by organisation entry</h2>
        {people.length === 0 ? (
          <EmptyState title="No organisation structure yet.">
            <p>
              Import it on the <Link to="/imports">imports</Link> page or with <code>PUT /api/import/organisation</code>; people are placed
              by their position.
            </p>
          </EmptyState>
        ) : (
          <div className="chart-and-table">
            <figure className="chart" aria-hidden="true">
              <ResponsiveContainer width="100%" height={Math.max(160, people.length * 28)}>
                <BarChart data={people} layout="vertical" margin={{ left: 24 }} accessibilityLayer={false}>
                  <CartesianGrid strokeDasharray="3 3" />
                  <XAxis type="number" allowDecimals={false} />
                  <YAxis type="category" dataKey="id" width={90} />
                  <Tooltip />
                  <Bar dataKey="people" name="People" fill="#0f766e" />
                </BarChart>
              </ResponsiveContainer>
            </figure>
            <DataTable
              label="People by organisation entry"
              columns={[
                { id: 'id', label: 'Entry', cell: (row) => row.id },
                { id: 'title', label: 'Title', cell: (row) => row.title },
                { id: 'people', label: 'People (entry and below)', cell: (row) => count(row.people), numeric: true },
              ]}
              rows={people}
              rowKey={(row) => row.id}
            />
          </div>
        )}
      </section>

      <section aria-labelledby="imports-title" className="panel">
        <h2 id="imports-title">Recent imports with errors</h2>
        {failedImports.length === 0 ? (
          <EmptyState title="No recent import had errors." />
        ) : (
          <DataTable
            label="Recent imports with errors"
            columns={[
              { id: 'when', label: 'Started', cell: (row) => new Date(row.startedAt).toLocaleString('en-GB') },
              { id: 'kind', label: 'Kind', cell: (row) => `${row.kind}${row.verify ? ' (checked only)' : ''}` },
              { id: 'errors', label: 'Rows with errors', cell: (row) => count(row.summary.errorCount ?? 0), numeric: true },
            ]}
            rows={failedImports}
            rowKey={(row) => row.id}
          />
        )}
      </section>
    </>
  );
}
