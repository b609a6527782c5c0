import { useState } from 'react';
import { Bar, BarChart, CartesianGrid, Rectangle, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { Button, Tab, TabList, TabPanel, Tabs } from 'react-aria-components';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { ConfirmDialog } from '../components/confirm-dialog';
import { count, DataTable, percent } from '../components/data-table';
import { EmptyState, ErrorNote, Loading } from '../components/notes';
import { api } from '../lib/api';
import { type Actor, displayName, identifierText, ifiOf } from '../lib/agent';
import { useLoad } from '../lib/use-api';
import {
  type Assignment,
  activityName,
  day,
  isStatus,
  loadRegistry,
  type Registry,
  STATUS_COLOURS,
  STATUS_LABELS,
  STATUSES,
  type Status,
  totalOf,
  WhoText,
  when,
} from './learning-common';
import './assignments.css';

const PAGE_SIZE = 50;

interface PersonState {
  actorId: string;
  actor: Actor;
  status: Status;
  joinedAt: string;
  leftAt?: string;
  activities: { activityId: string; status: Status; startedAt?: string; completedAt?: string }[];
}

/**
 * One assignment (GET /api/assignments/item): what it assigns to whom and by when, its people by
 * status as a chart and a table, the people themselves by status (GET /api/assignments/people, 50 a
 * page), the overdue a click away, and delete (confirmed first). The assignment, the status shown
 * and the page are the address (`?id=…&status=overdue&skip=50`).
 */
export default function AssignmentPage() {
  const [search] = useSearchParams();
  const navigate = useNavigate();
  const id = search.get('id') ?? '';
  const [assignment] = useLoad((signal) => api<Assignment>('GET', '/api/assignments/item', { query: { id }, signal }), id);
  const [registry] = useLoad((signal) => loadRegistry(signal), 'registry');
  const [deleting, setDeleting] = useState(false);
  const [failure, setFailure] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  async function remove() {
    setBusy(true);
    setFailure(undefined);
    try {
      await api('DELETE', '/api/assignments/item', { query: { id } });
      navigate('/assignments');
    } catch (error) {
      setFailure(error);
      setBusy(false);
    }
  }

  const crumbs = (
    <p className="crumbs">
      <Link to="/assignments">Assignments</Link>
    </p>
  );
  if (id === '') {
    return (
      <>
        {crumbs}
        <h1>Assignment</h1>
        <EmptyState title="The address names no assignment.">
          <p>
            Open one from the <Link to="/assignments">list of assignments</Link>.
          </p>
        </EmptyState>
      </>
    );
  }
  if (assignment.status === 'loading') return <Loading what="the assignment" />;
  if (assignment.status === 'error') {
    return (
      <>
        {crumbs}
        <h1>Assignment</h1>
        <ErrorNote error={assignment.error}>
          <p>
            Check the address, or open the assignment from the <Link to="/assignments">list of assignments</Link>.
          </p>
        </ErrorNote>
      </>
    );
  }
  const value = assignment.value;
  const names = registry.status === 'done' ? registry.value : undefined;

  return (
    <>
      {crumbs}
      <div className="page-head">
        <h1>{value.name}</h1>
        <Button className="danger" onPress={() => setDeleting(true)}>
          Delete the assignment
        </Button>
      </div>
      <ErrorNote error={!deleting && failure} />

      {value.counts.overdue > 0 && (
        <div className="note overdue-note">
          <p>
            <span className="figure">{count(value.counts.overdue)}</span> {value.counts.overdue === 1 ? 'person is' : 'people are'} overdue
            since {when(value.dueAt)}.{' '}
            <Link
              to={`?${new URLSearchParams({ id, status: 'overdue' })}`}
              // The list is further down the page: its heading takes focus, which scrolls to it.
              onClick={() => requestAnimationFrame(() => document.getElementById('people-title')?.focus())}
            >
              See who is overdue
            </Link>
          </p>
        </div>
      )}

      <section className="panel" aria-labelledby="definition-title">
        <h2 id="definition-title">What, for whom, by when</h2>
        <dl className="facts">
          <div>
            <dt>Activities</dt>
            <dd>
              <ul className="plain">
                {value.activityIds.map((activityId) => (
                  <li key={activityId}>
                    <Link to={`/activities?activity=${encodeURIComponent(activityId)}`}>{activityName(activityId, names)}</Link>
                  </li>
                ))}
              </ul>
            </dd>
          </div>
          <div>
            <dt>Who</dt>
            <dd>
              <WhoText people={value.people} />
            </dd>
          </div>
          <div>
            <dt>Due</dt>
            <dd>{value.dueAt ? when(value.dueAt) : 'no due date'}</dd>
          </div>
          <div>
            <dt>People now</dt>
            <dd>{count(value.members)}</dd>
          </div>
          <div>
            <dt>Former members</dt>
            <dd>
              {value.formerMembers === 0
                ? 'none'
                : `${count(value.formerMembers)}, who stopped matching and keep the activities they had done`}
            </dd>
          </div>
          {value.scope && (
            <div>
              <dt>Limited to</dt>
              <dd>the people of {value.scope.organisationId} and below it</dd>
            </div>
          )}
          <div>
            <dt>Created</dt>
            <dd>{when(value.createdAt)}</dd>
          </div>
          {value.updatedAt !== value.createdAt && (
            <div>
              <dt>Last changed</dt>
              <dd>{when(value.updatedAt)}</dd>
            </div>
          )}
        </dl>
      </section>

      <Progress assignment={value} />
      <PeopleByStatus assignment={value} registry={names} />

      <ConfirmDialog
        isOpen={deleting}
        onClose={() => setDeleting(false)}
        title="Delete this assignment?"
        error={failure}
        confirmLabel="Delete"
        onConfirm={() => void remove()}
        busy={busy}
      >
        “{value.name}” and its list of {count(value.members)} {value.members === 1 ? 'person' : 'people'} are deleted. What they did stays
        in their records; only the assignment goes. This cannot be undone.
      </ConfirmDialog>
    </>
  );
}

/** The people by status: a chart (hidden from screen readers) beside a table of the same figures. */
function Progress({ assignment }: { assignment: Assignment }) {
  const total = totalOf(assignment.counts);
  const rows = STATUSES.map((status) => ({ status, label: STATUS_LABELS[status], people: assignment.counts[status] }));
  return (
    <section className="panel" aria-labelledby="progress-title">
      <h2 id="progress-title">Progress</h2>
      {total === 0 ? (
        <EmptyState title="Nobody is assigned yet.">
          <p>People join as they come to match who it is for; check the criteria above, or import the people it is meant for.</p>
        </EmptyState>
      ) : (
        <div className="chart-and-table">
          <figure className="chart" aria-hidden="true">
            <ResponsiveContainer width="100%" height={220}>
              <BarChart data={rows} layout="vertical" margin={{ left: 16, right: 16 }} accessibilityLayer={false}>
                <CartesianGrid strokeDasharray="3 3" />
                <XAxis type="number" allowDecimals={false} />
                <YAxis type="category" dataKey="label" width={110} />
                <Tooltip />
                <Bar
                  dataKey="people"
                  name="People"
                  shape={(props: unknown) => {
                    const bar = props as { payload: { status: Status } } & Record<string, unknown>;
                    return <Rectangle {...bar} fill={STATUS_COLOURS[bar.payload.status]} />;
                  }}
                />
              </BarChart>
            </ResponsiveContainer>
          </figure>
          <DataTable
            label="People by status"
            columns={[
              {
                id: 'status',
                label: 'Status',
                cell: (row: (typeof rows)[number]) => (
                  <Link to={`?${new URLSearchParams({ id: assignment.id, status: row.status })}`}>{row.label}</Link>
                ),
              },
              { id: 'people', label: 'People', cell: (row) => count(row.people), numeric: true },
              { id: 'share', label: 'Share', cell: (row) => percent(row.people / total), numeric: true },
            ]}
            rows={rows}
            rowKey={(row) => row.status}
          />
        </div>
      )}
    </section>
  );
}

const EVERYONE = 'everyone';

const EMPTY_WORDS: Record<Status | typeof EVERYONE, string> = {
  everyone: 'Nobody is assigned yet: people join as they come to match who it is for.',
  assigned: 'Nobody is left to start: everyone has begun.',
  inProgress: 'Nobody is part way through.',
  completed: 'Nobody has completed it in time yet.',
  completedLate: 'Nobody completed it late.',
  overdue: 'Nobody is overdue.',
};

function PeopleByStatus({ assignment, registry }: { assignment: Assignment; registry?: Registry }) {
  const [search, setSearch] = useSearchParams();
  const asked = search.get('status');
  const status = isStatus(asked) ? asked : undefined;
  const skip = Math.max(0, Number.parseInt(search.get('skip') ?? '0', 10) || 0);
  const [people] = useLoad(
    (signal) =>
      api<{ people: PersonState[]; total: number }>('GET', '/api/assignments/people', {
        query: { id: assignment.id, status, limit: PAGE_SIZE, skip },
        signal,
      }),
    `${assignment.id}|${status}|${skip}`,
  );
  const go = (next: { status?: string; skip?: number }) => {
    const params = new URLSearchParams({ id: assignment.id });
    if (next.status && next.status !== EVERYONE) params.set('status', next.status);
    if (next.skip) params.set('skip', String(next.skip));
    setSearch(params);
  };
  const tab = status ?? EVERYONE;
  const label = (key: Status | typeof EVERYONE) =>
    key === EVERYONE ? `Everyone (${count(totalOf(assignment.counts))})` : `${STATUS_LABELS[key]} (${count(assignment.counts[key])})`;

  return (
    <section className="panel" aria-labelledby="people-title">
      <h2 id="people-title" tabIndex={-1}>
        People
      </h2>
      {asked !== null && !status && (
        <ErrorNote error={new Error(`The address asks for the status "${asked}", which is none of the five: everyone is shown.`)} />
      )}
      <Tabs className="page-tabs" selectedKey={tab} onSelectionChange={(key) => go({ status: String(key) })}>
        <TabList aria-label="People by status" className="tabs status-tabs">
          {([EVERYONE, 'overdue', 'assigned', 'inProgress', 'completed', 'completedLate'] as const).map((key) => (
            <Tab key={key} id={key}>
              {label(key)}
            </Tab>
          ))}
        </TabList>
        <TabPanel id={tab} className="tab-panel">
          {people.status === 'loading' && <Loading what="the people" />}
          {people.status === 'error' && <ErrorNote error={people.error} />}
          {people.status === 'done' && (
            <>
              <p aria-live="polite">
                {count(people.value.total)} {people.value.total === 1 ? 'person' : 'people'}
                {people.value.total > PAGE_SIZE && `, ${skip + 1} to ${Math.min(skip + PAGE_SIZE, people.value.total)} shown`}
              </p>
              {people.value.people.length === 0 ? (
                <EmptyState title={skip > 0 ? 'Nobody on this page.' : EMPTY_WORDS[tab]}>
                  {tab !== EVERYONE && (
                    <Button className="secondary small" onPress={() => go({})}>
                      Show everyone
                    </Button>
                  )}
                </EmptyState>
              ) : (
                <DataTable
                  label={status ? `People ${STATUS_LABELS[status].toLowerCase()}` : 'People of the assignment'}
                  columns={[
                    {
                      id: 'name',
                      label: 'Name',
                      cell: (row: PersonState) => (
                        <Link to={`/people/person?${new URLSearchParams({ agent: JSON.stringify(ifiOf(row.actor)) })}`}>
                          {displayName(row.actor)}
                        </Link>
                      ),
                    },
                    {
                      id: 'status',
                      label: 'Status',
                      cell: (row) => `${STATUS_LABELS[row.status]}${row.leftAt ? ` (left ${day(row.leftAt)})` : ''}`,
                    },
                    {
                      id: 'activities',
                      label: 'Activities',
                      cell: (row) => (
                        <ul className="person-activities">
                          {row.activities.map((activity) => (
                            <li key={activity.activityId}>
                              {activityName(activity.activityId, registry)}: {STATUS_LABELS[activity.status].toLowerCase()}
                              {activity.completedAt
                                ? `, ${day(activity.completedAt)}`
                                : activity.startedAt
                                  ? `, started ${day(activity.startedAt)}`
                                  : ''}
                            </li>
                          ))}
                        </ul>
                      ),
                    },
                    { id: 'id', label: 'Identifier', cell: (row) => identifierText(row.actor) },
                    { id: 'joined', label: 'Joined', cell: (row) => day(row.joinedAt) },
                  ]}
                  rows={people.value.people}
                  rowKey={(row) => row.actorId}
                />
              )}
              {people.value.total > PAGE_SIZE && (
                <nav className="pager" aria-label="Pages of people">
                  <Button
                    className="secondary"
                    isDisabled={skip === 0}
                    onPress={() => go({ status: tab, skip: Math.max(0, skip - PAGE_SIZE) })}
                  >
                    Previous
                  </Button>
                  <Button
                    className="secondary"
                    isDisabled={skip + PAGE_SIZE >= people.value.total}
                    onPress={() => go({ status: tab, skip: skip + PAGE_SIZE })}
                  >
                    Next
                  </Button>
                </nav>
              )}
            </>
          )}
        </TabPanel>
      </Tabs>
    </section>
  );
}
