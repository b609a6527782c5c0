import { Button, Tab, TabList, TabPanel, Tabs } from 'react-aria-components';
import { Link, useSearchParams } from 'react-router';
import { count, DataTable } from '../components/data-table';
import { EmptyState, ErrorNote, Loading } from '../components/notes';
import { api } from '../lib/api';
import { useLoad } from '../lib/use-api';
import {
  type Assignment,
  type AssignmentSummary,
  activityName,
  BAR_ORDER,
  countsText,
  day,
  loadRegistry,
  STATUS_LABELS,
  StatusBar,
} from './learning-common';
import { CreateAssignment } from './create-assignment';
import './assignments.css';

const PAGE_SIZE = 20;

/**
 * Assignments: the tenant's assignments, newest first, each with its people by status; and the
 * form that creates one (name, activities of the registry, due date, and who: the criteria
 * builder, with a preview of who matches). The tab and the page are the address (`?tab=create`,
 * `?skip=20`); `?tab=create&activity=…&q=…` opens the form with an activity and criteria chosen.
 */
export default function AssignmentsPage() {
  const [search, setSearch] = useSearchParams();
  const tab = search.get('tab') === 'create' ? 'create' : 'list';
  return (
    <>
      <h1>Assignments</h1>
      <Tabs className="page-tabs" selectedKey={tab} onSelectionChange={(key) => setSearch(key === 'create' ? { tab: 'create' } : {})}>
        <TabList aria-label="Assignments" className="tabs">
          <Tab id="list">All assignments</Tab>
          <Tab id="create">Create an assignment</Tab>
        </TabList>
        <TabPanel id="list" className="tab-panel">
          <AssignmentList />
        </TabPanel>
        <TabPanel id="create" className="tab-panel">
          <CreateAssignment />
        </TabPanel>
      </Tabs>
    </>
  );
}

type Counted = { status: 'done'; assignment: Assignment } | { status: 'error'; error: unknown };

const SELECTION_WORDS: Record<AssignmentSummary['selection'], string> = {
  criteria: 'people matching criteria',
  organisationId: 'an organisation entry and below',
  jobId: 'a job',
  actorIds: 'people named one by one',
};

function AssignmentList() {
  const [search, setSearch] = useSearchParams();
  const skip = Math.max(0, Number.parseInt(search.get('skip') ?? '0', 10) || 0);
  const [list] = useLoad(
    (signal) =>
      api<{ assignments: AssignmentSummary[]; total: number }>('GET', '/api/assignments', { query: { limit: PAGE_SIZE, skip }, signal }),
    String(skip),
  );
  const [registry] = useLoad((signal) => loadRegistry(signal), 'registry');
  // The list has no counts (a static assignment can hold 50,000 people): each row's come from its item.
  const ids = list.status === 'done' ? list.value.assignments.map((assignment) => assignment.id) : [];
  const [counted] = useLoad(async (signal) => {
    const answers = await Promise.all(
      ids.map((id) =>
        api<Assignment>('GET', '/api/assignments/item', { query: { id }, signal }).then(
          (assignment): Counted => ({ status: 'done', assignment }),
          (error: unknown): Counted => ({ status: 'error', error }),
        ),
      ),
    );
    return new Map(ids.map((id, index) => [id, answers[index]!]));
  }, ids.join(','));

  if (list.status === 'loading') return <Loading what="the assignments" />;
  if (list.status === 'error') return <ErrorNote error={list.error} />;
  const { assignments, total } = list.value;
  const names = registry.status === 'done' ? registry.value : undefined;
  const countedOf = (id: string) => (counted.status === 'done' ? counted.value.get(id) : undefined);

  if (total === 0) {
    return (
      <EmptyState title="No assignments yet.">
        <p>Create one: choose activities of the registry, who takes them and when they are due; then follow who has done them here.</p>
        <Link className="button" to="?tab=create">
          Create an assignment
        </Link>
      </EmptyState>
    );
  }

  return (
    <section className="panel" aria-labelledby="list-title">
      <h2 id="list-title">
        {count(total)} {total === 1 ? 'assignment' : 'assignments'}
        {total > PAGE_SIZE && `, ${skip + 1} to ${Math.min(skip + PAGE_SIZE, total)} shown`}
      </h2>
      <ul className="legend" aria-label="The colours of the progress bars">
        {BAR_ORDER.map((status) => (
          <li key={status}>
            <span className={`swatch ${status}`} aria-hidden="true" />
            {STATUS_LABELS[status]}
          </li>
        ))}
      </ul>
      {counted.status === 'error' && <ErrorNote error={counted.error} />}
      {assignments.length === 0 ? (
        <EmptyState title="No assignments on this page.">
          <Link to="?">Go to the first page</Link>
        </EmptyState>
      ) : (
        <DataTable
          label="Assignments"
          columns={[
            {
              id: 'name',
              label: 'Name',
              cell: (row: AssignmentSummary) => <Link to={`/assignments/assignment?id=${row.id}`}>{row.name}</Link>,
            },
            {
              id: 'progress',
              label: 'Progress',
              cell: (row) => {
                const state = countedOf(row.id);
                if (!state) return '…';
                if (state.status === 'error') return <ErrorNote error={state.error} />;
                return (
                  <div className="progress-cell">
                    <StatusBar counts={state.assignment.counts} />
                    <span>{countsText(state.assignment.counts)}</span>
                  </div>
                );
              },
            },
            {
              id: 'overdue',
              label: 'Overdue',
              numeric: true,
              cell: (row) => {
                const state = countedOf(row.id);
                if (state?.status !== 'done') return '…';
                const overdue = state.assignment.counts.overdue;
                return overdue === 0 ? (
                  '0'
                ) : (
                  <Link to={`/assignments/assignment?id=${row.id}&status=overdue`} aria-label={`${count(overdue)} overdue in ${row.name}`}>
                    {count(overdue)}
                  </Link>
                );
              },
            },
            { id: 'due', label: 'Due', cell: (row) => (row.dueAt ? day(row.dueAt) : 'no due date') },
            { id: 'members', label: 'People', cell: (row) => count(row.members), numeric: true },
            {
              id: 'activities',
              label: 'Activities',
              cell: (row) =>
                row.activityIds.length > 3
                  ? `${row.activityIds
                      .slice(0, 2)
                      .map((id) => activityName(id, names))
                      .join(', ')} and ${count(row.activityIds.length - 2)} more`
                  : row.activityIds.map((id) => activityName(id, names)).join(', '),
            },
            {
              id: 'who',
              label: 'Who',
              cell: (row) => `${SELECTION_WORDS[row.selection]}${row.scope ? ` (limited to ${row.scope.organisationId})` : ''}`,
            },
          ]}
          rows={assignments}
          rowKey={(row) => row.id}
        />
      )}
      {total > PAGE_SIZE && (
        <nav className="pager" aria-label="Pages of assignments">
          <Button
            className="secondary"
            isDisabled={skip === 0}
            onPress={() => setSearch(skip - PAGE_SIZE > 0 ? { skip: String(skip - PAGE_SIZE) } : {})}
          >
            Previous
          </Button>
          <Button
            className="secondary"
            isDisabled={skip + PAGE_SIZE >= total}
            onPress={() => setSearch({ skip: String(skip + PAGE_SIZE) })}
          >
            Next
          </Button>
        </nav>
      )}
    </section>
  );
}
