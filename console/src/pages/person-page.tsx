import { useState } from 'react';
import { Button, Tab, TabList, TabPanel, Tabs, ToggleButton, ToggleButtonGroup } from 'react-aria-components';
import { Link, useSearchParams } from 'react-router';
import { ConfirmDialog } from '../components/confirm-dialog';
import { type CredentialKind, CredentialSection } from '../components/credentials';
import { DataTable } from '../components/data-table';
import { EmptyState, ErrorNote, Loading } from '../components/notes';
import { ApiError, api } from '../lib/api';
import { type Actor, attributesOf, displayName, identifierText, ifiOf, jobOf, organisationOf } from '../lib/agent';
import { type Loaded, useLoad } from '../lib/use-api';
import { LaunchLink } from './launch-link';
import { day, languageText, when } from './learning-common';
import { firstOf } from './records';

interface PersonItem {
  actor: Actor;
  active: boolean;
}

interface CompletionRecord {
  activityId: string;
  registration?: string;
  status: 'in-progress' | 'completed' | 'passed' | 'failed';
  progress?: number;
  score?: { scaled?: number; raw?: number };
  completedAt?: string;
  lastAt?: string;
  children?: CompletionRecord[];
}

interface PersonAssignment {
  id: string;
  name: string;
  dueAt?: string;
  status: string;
  activities: { activityId: string; status: string }[];
}

interface Statement {
  id: string;
  verb: { id: string; display?: Record<string, string> };
  object: { id?: string; definition?: { name?: Record<string, string> } };
  timestamp: string;
}

interface Gap {
  job: { id: string; name?: string };
  position?: { id: string; attributes?: Record<string, unknown> };
  competencies: {
    id: string;
    name: string;
    description?: string;
    held: boolean;
    evidence: { activityId: string; name?: Record<string, string>; at: string }[];
  }[];
  held: number;
  missing: number;
}

interface Recommendations {
  recommendations: { activity: { id: string; name?: Record<string, string> }; covers: { id: string; name: string }[]; peers: number }[];
}

interface AuditEntry {
  id: string;
  at: string;
  action: string;
  source?: string;
  principal: { kind: string; id: string };
}

interface LearnerCredential {
  username: string;
  createdAt: string;
  expiresAt: string;
  revokedAt?: string;
  state: 'active' | 'expired' | 'revoked';
}

const TABS = [
  { id: 'learning', label: 'Learning' },
  { id: 'records', label: 'Statements and audit' },
  { id: 'access', label: 'Credentials and launch' },
] as const;
type TabId = (typeof TABS)[number]['id'];
const isTab = (value: string | null): value is TabId => TABS.some((tab) => tab.id === value);

const XAPI = { 'x-experience-api-version': '2.0.0' };
const personLink = (actor: Actor) => `/people/person?${new URLSearchParams({ agent: JSON.stringify(ifiOf(actor)) })}`;

/**
 * One person (`/people/person?agent=<their identifier as JSON>&tab=…`, a link that can be
 * shared): who they are (attributes, position with the people above them, job), deactivating and
 * reactivating them, and three tabs: their learning (skills gap and recommendations towards their
 * job or the next one up, assignments, completions with their parts), their statements and audit
 * entries, and their learner credentials with a launch link. Each section reads the API as the
 * signed-in admin may, and says its own error: one refused read leaves the rest of the page.
 */
export default function PersonPage() {
  const [search, setSearch] = useSearchParams();
  const agentText = search.get('agent') ?? '';
  const tab: TabId = isTab(search.get('tab')) ? (search.get('tab') as TabId) : 'learning';
  const [person, reload] = useLoad(async (signal) => {
    try {
      JSON.parse(agentText);
    } catch {
      throw new Error('This address names no person: open one from the people page.');
    }
    try {
      return await api<PersonItem>('GET', '/api/actors/item', { query: { agent: agentText }, signal });
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return undefined;
      throw error;
    }
  }, agentText);

  if (person.status === 'loading') return <Loading what="the person" />;
  if (person.status === 'error') return <ErrorNote error={person.error} />;
  if (!person.value) {
    return (
      <EmptyState title="No such person here.">
        <p>
          They may be outside what you may see, or not stored at all. <Link to="/people">Back to people</Link>
        </p>
      </EmptyState>
    );
  }
  const { actor, active } = person.value;
  const agent = JSON.stringify(ifiOf(actor));

  return (
    <>
      <p className="crumbs">
        <Link to="/people">People</Link> › {displayName(actor)}
      </p>
      <div className="page-head">
        <h1>
          {displayName(actor)} {!active && <span className="badge">Deactivated</span>}
        </h1>
        <ActiveSwitch actor={actor} active={active} onChanged={reload} />
      </div>
      <p className="muted">{identifierText(actor)}</p>
      {!active && (
        <p className="note">
          Deactivated: out of the people, the search, the reports and dynamic assignments, and no learner credential of theirs works. Their
          records are kept.
        </p>
      )}

      <div className="columns">
        <AttributesPanel actor={actor} />
        <PositionPanel actor={actor} />
      </div>

      <Tabs
        className="page-tabs"
        selectedKey={tab}
        onSelectionChange={(key) => {
          const next = new URLSearchParams(search);
          if (key === 'learning') next.delete('tab');
          else next.set('tab', String(key));
          setSearch(next, { replace: true });
        }}
      >
        <TabList aria-label="About this person" className="tabs">
          {TABS.map((entry) => (
            <Tab key={entry.id} id={entry.id}>
              {entry.label}
            </Tab>
          ))}
        </TabList>
        <TabPanel id="learning" className="tab-panel">
          <GapSections agent={agent} />
          <AssignmentsSection agent={agent} />
          <CompletionsSection agent={agent} />
        </TabPanel>
        <TabPanel id="records" className="tab-panel">
          <StatementsSection agent={agent} />
          <AuditSection agent={agent} />
        </TabPanel>
        <TabPanel id="access" className="tab-panel">
          <AccessSection actor={actor} agent={agent} active={active} />
        </TabPanel>
      </Tabs>
    </>
  );
}

/** Deactivating (after a confirmation: it revokes their credentials) or reactivating them. */
function ActiveSwitch({ actor, active, onChanged }: { actor: Actor; active: boolean; onChanged: () => void }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>();

  async function change(to: boolean) {
    setBusy(true);
    setFailure(undefined);
    try {
      await api('PATCH', '/api/actors/item', {
        query: { agent: JSON.stringify(ifiOf(actor)) },
        body: { active: to },
        headers: { 'svc-account-source': 'learnbase console' },
      });
      setAsking(false);
      onChanged();
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="head-actions">
      {active ? (
        <Button className="secondary" onPress={() => setAsking(true)}>
          Deactivate
        </Button>
      ) : (
        <Button onPress={() => void change(true)} isDisabled={busy}>
          {busy ? 'Reactivating…' : 'Reactivate'}
        </Button>
      )}
      {!asking && <ErrorNote error={failure} />}
      <ConfirmDialog
        isOpen={asking}
        onClose={() => setAsking(false)}
        title={`Deactivate ${displayName(actor)}?`}
        error={failure}
        confirmLabel={busy ? 'Deactivating…' : 'Deactivate'}
        onConfirm={() => void change(false)}
        busy={busy}
        keepLabel="Keep them active"
      >
        They leave the people, the reports and their dynamic assignments, and every learner credential and launch of theirs stops working
        now. Their records stay, and reactivating them brings them back (with new credentials).
      </ConfirmDialog>
    </div>
  );
}

function AttributesPanel({ actor }: { actor: Actor }) {
  const attributes = Object.entries(attributesOf(actor));
  return (
    <section className="panel" aria-labelledby="attributes-title">
      <h2 id="attributes-title">Attributes</h2>
      {attributes.length === 0 ? (
        <EmptyState title="No attributes." />
      ) : (
        <dl className="facts">
          {attributes.map(([name, value]) => (
            <div key={name}>
              <dt>{name}</dt>
              <dd>{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
            </div>
          ))}
        </dl>
      )}
    </section>
  );
}

/** The most people one position above them lists (a position is usually held by one). */
const HOLDERS_SHOWN = 50;

/**
 * Their position, the entries above it nearest first, each with the people who hold it (their
 * managers, found with one actor search), and their job with its competencies.
 */
function PositionPanel({ actor }: { actor: Actor }) {
  const organisation = organisationOf(actor);
  const job = jobOf(actor);
  const above = organisation?.ancestors ?? [];
  const [holders] = useLoad(
    async (signal) => {
      if (above.length === 0) return [];
      const found = await api<{ actors: Actor[] }>('POST', '/api/actors/search', {
        body: { criteria: { or: above.map((entry) => ({ field: 'organisation.id', op: 'eq', value: entry.id })) } },
        query: { limit: HOLDERS_SHOWN },
        signal,
      });
      return found.actors;
    },
    above.map((entry) => entry.id).join('|'),
  );
  const holdersOf = (id: string) => (holders.status === 'done' ? holders.value.filter((person) => organisationOf(person)?.id === id) : []);
  const title = (attributes?: Record<string, unknown>) => (attributes?.title === undefined ? '' : ` ${String(attributes.title)}`);

  return (
    <section className="panel" aria-labelledby="position-title">
      <h2 id="position-title">Position and job</h2>
      {organisation ? (
        <>
          <p>
            <Link to={`/organisation?entry=${encodeURIComponent(organisation.id)}`}>
              <strong>{organisation.id}</strong>
            </Link>
            {title(organisation.attributes)}
          </p>
          {above.length > 0 && (
            <>
              <h3 className="small-title">Above them, nearest first</h3>
              <ol className="chain" aria-label="Positions above them and who holds them, nearest first">
                {above.map((entry) => (
                  <li key={entry.id}>
                    {entry.id}
                    {title(entry.attributes)}
                    {holders.status === 'done' && (
                      <>
                        {' · '}
                        {holdersOf(entry.id).length === 0 ? (
                          <span className="muted">nobody you can see holds it</span>
                        ) : (
                          holdersOf(entry.id).map((holder, index) => (
                            <span key={JSON.stringify(ifiOf(holder))}>
                              {index > 0 && ', '}
                              <Link to={personLink(holder)}>{displayName(holder)}</Link>
                            </span>
                          ))
                        )}
                      </>
                    )}
                  </li>
                ))}
              </ol>
              {holders.status === 'error' && <ErrorNote error={holders.error} />}
            </>
          )}
        </>
      ) : (
        <p className="muted">No position in the organisation structure.</p>
      )}
      {job ? (
        <p>
          Job: <strong>{job.name ?? job.id}</strong> ({job.id})
          {job.competencies && job.competencies.length > 0 && <> · {job.competencies.map((c) => c.Name).join(', ')}</>}
        </p>
      ) : (
        <p className="muted">No job.</p>
      )}
    </section>
  );
}

/**
 * The skills gap and the recommendations towards their own job or the one of the position above
 * theirs (`?target=next`). What the organisation's data cannot answer (no job, no position above)
 * is said in the API's words, as an empty state.
 */
function GapSections({ agent }: { agent: string }) {
  const [search, setSearch] = useSearchParams();
  const target = search.get('target') === 'next' ? 'next' : 'current';
  const [gap] = useLoad((signal) => api<Gap>('GET', '/api/skills-gap', { query: { agent, target }, signal }), `${agent}|${target}|gap`);
  const [recommended] = useLoad(
    (signal) => api<Recommendations>('GET', '/api/recommendations', { query: { agent, target }, signal }),
    `${agent}|${target}|recommendations`,
  );

  return (
    <>
      <section className="panel" aria-labelledby="gap-title">
        <div className="page-head">
          <h2 id="gap-title">Skills gap</h2>
          <ToggleButtonGroup
            aria-label="Towards"
            selectionMode="single"
            disallowEmptySelection
            selectedKeys={[target]}
            onSelectionChange={(keys) => {
              const next = new URLSearchParams(search);
              if (keys.has('next')) next.set('target', 'next');
              else next.delete('target');
              setSearch(next, { replace: true });
            }}
            className="toggles"
          >
            <ToggleButton id="current">Their job</ToggleButton>
            <ToggleButton id="next">The job above</ToggleButton>
          </ToggleButtonGroup>
        </div>
        <Answer loaded={gap} what="the skills gap">
          {(value) => (
            <>
              <p>
                Towards <strong>{value.job.name ?? value.job.id}</strong>
                {value.position && <> (position {value.position.id})</>}: holds {value.held} of {value.held + value.missing} competencies.
              </p>
              <DataTable
                label="Competencies of the job"
                columns={[
                  { id: 'competency', label: 'Competency', cell: (row: Gap['competencies'][number]) => row.name },
                  { id: 'held', label: 'Held', cell: (row) => (row.held ? 'Held' : 'Missing') },
                  {
                    id: 'evidence',
                    label: 'Latest evidence',
                    cell: (row) =>
                      row.evidence[0]
                        ? `${languageText(row.evidence[0].name) ?? row.evidence[0].activityId}, ${day(row.evidence[0].at)}`
                        : '—',
                  },
                ]}
                rows={value.competencies}
                rowKey={(row) => row.id}
                empty="The job requires no competency."
              />
            </>
          )}
        </Answer>
      </section>
      <section className="panel" aria-labelledby="recommendations-title">
        <h2 id="recommendations-title">Recommended activities</h2>
        <Answer loaded={recommended} what="the recommendations">
          {(value) => (
            <DataTable
              label="Recommended activities"
              columns={[
                {
                  id: 'activity',
                  label: 'Activity',
                  cell: (row: Recommendations['recommendations'][number]) => (
                    <Link to={`/activities?activity=${encodeURIComponent(row.activity.id)}`}>
                      {languageText(row.activity.name) ?? row.activity.id}
                    </Link>
                  ),
                },
                { id: 'covers', label: 'Develops', cell: (row) => row.covers.map((competency) => competency.name).join(', ') },
                { id: 'peers', label: 'Peers who completed it', cell: (row) => row.peers, numeric: true },
              ]}
              rows={value.recommendations}
              rowKey={(row) => row.activity.id}
              empty="Nothing to recommend: no registered activity develops what they miss, or they completed it."
            />
          )}
        </Answer>
      </section>
    </>
  );
}

/** A section's answer; an API refusal of the data (409: no job, no position) said as an empty state in its words. */
function Answer<T>({ loaded, what, children }: { loaded: Loaded<T>; what: string; children: (value: T) => React.ReactNode }) {
  if (loaded.status === 'loading') return <Loading what={what} />;
  if (loaded.status === 'error') {
    const error = loaded.error;
    if (error instanceof ApiError && error.status === 409) {
      return (
        <EmptyState title="Not answered by the organisation's data.">
          <p>{error.message}</p>
        </EmptyState>
      );
    }
    return <ErrorNote error={error} />;
  }
  return <>{children(loaded.value)}</>;
}

function AssignmentsSection({ agent }: { agent: string }) {
  const [assignments] = useLoad(
    (signal) => api<{ assignments: PersonAssignment[] }>('GET', '/api/actors/assignments', { query: { agent }, signal }),
    `${agent}|assignments`,
  );
  return (
    <section className="panel" aria-labelledby="assignments-title">
      <h2 id="assignments-title">Assignments</h2>
      <Answer loaded={assignments} what="their assignments">
        {(value) => (
          <DataTable
            label="Assignments"
            columns={[
              {
                id: 'name',
                label: 'Assignment',
                cell: (row: PersonAssignment) => <Link to={`/assignments/assignment?id=${encodeURIComponent(row.id)}`}>{row.name}</Link>,
              },
              { id: 'status', label: 'Status', cell: (row) => row.status },
              { id: 'due', label: 'Due', cell: (row) => day(row.dueAt) },
              { id: 'activities', label: 'Activities', cell: (row) => row.activities.length, numeric: true },
            ]}
            rows={value.assignments}
            rowKey={(row) => row.id}
            empty="No assignment holds this person."
          />
        )}
      </Answer>
    </section>
  );
}

const STATUS_WORDS: Record<CompletionRecord['status'], string> = {
  'in-progress': 'In progress',
  completed: 'Completed',
  passed: 'Passed',
  failed: 'Failed',
};

function recordText(record: CompletionRecord): string {
  const parts = [STATUS_WORDS[record.status]];
  if (record.completedAt) parts.push(`completed ${day(record.completedAt)}`);
  else if (record.lastAt) parts.push(`last ${day(record.lastAt)}`);
  if (record.score?.scaled !== undefined) parts.push(`score ${Math.round(record.score.scaled * 100)}%`);
  return parts.join(', ');
}

/** Their completion records, each able to show the records of its parts (`expand=hierarchy`), recursively. */
function CompletionsSection({ agent }: { agent: string }) {
  const [records] = useLoad(
    (signal) => api<CompletionRecord[]>('GET', '/api/actors/completions', { query: { agent }, signal }),
    `${agent}|completions`,
  );
  return (
    <section className="panel" aria-labelledby="completions-title">
      <h2 id="completions-title">Completions</h2>
      <Answer loaded={records} what="their completions">
        {(value) =>
          value.length === 0 ? (
            <EmptyState title="No completion records yet.">
              <p>They follow from the statements content sends: make a launch link on the credentials tab.</p>
            </EmptyState>
          ) : (
            <ul className="record-tree" aria-label="Completion records">
              {value.map((record) => (
                <RecordItem key={`${record.activityId}#${record.registration ?? ''}`} record={record} agent={agent} />
              ))}
            </ul>
          )
        }
      </Answer>
    </section>
  );
}

function RecordItem({ record, agent, depth = 0 }: { record: CompletionRecord; agent: string; depth?: number }) {
  const [open, setOpen] = useState(false);
  const [parts, setParts] = useState<Loaded<CompletionRecord[]>>();
  const known = record.children;

  async function toggle() {
    const opening = !open;
    setOpen(opening);
    if (!opening || known || parts?.status === 'done') return;
    setParts({ status: 'loading' });
    try {
      const found = await api<CompletionRecord[]>('GET', '/api/actors/completions', {
        query: { agent, activityId: record.activityId, expand: 'hierarchy' },
      });
      const same = found.find((candidate) => (candidate.registration ?? '') === (record.registration ?? ''));
      setParts({ status: 'done', value: same?.children ?? [] });
    } catch (error) {
      setParts({ status: 'error', error });
    }
  }

  const children: Loaded<CompletionRecord[]> | undefined = known ? { status: 'done', value: known } : parts;
  return (
    <li>
      <div className="record-line">
        {(depth === 0 || (known && known.length > 0)) && (
          <Button
            className="disclosure"
            aria-expanded={open}
            aria-label={`The parts of ${record.activityId}`}
            onPress={() => void toggle()}
          >
            <span aria-hidden="true">{open ? '▾' : '▸'}</span>
          </Button>
        )}
        <Link to={`/activities?activity=${encodeURIComponent(record.activityId)}`}>{record.activityId}</Link>
        <span className="muted">
          {' '}
          {recordText(record)}
          {record.registration && ` · registration ${record.registration.slice(0, 8)}…`}
        </span>
      </div>
      {open && children && (
        <div className="record-parts">
          {children.status === 'loading' && <Loading what="its parts" />}
          {children.status === 'error' && <ErrorNote error={children.error} />}
          {children.status === 'done' &&
            (children.value.length === 0 ? (
              <p className="muted">No records of parts below it.</p>
            ) : (
              <ul className="record-tree">
                {children.value.map((child) => (
                  <RecordItem key={`${child.activityId}#${child.registration ?? ''}`} record={child} agent={agent} depth={depth + 1} />
                ))}
              </ul>
            ))}
        </div>
      )}
    </li>
  );
}

function StatementsSection({ agent }: { agent: string }) {
  const [statements] = useLoad(
    (signal) => api<{ statements: Statement[] }>('GET', '/xapi/statements', { query: { agent, limit: 10 }, headers: XAPI, signal }),
    `${agent}|statements`,
  );
  return (
    <section className="panel" aria-labelledby="statements-title">
      <div className="page-head">
        <h2 id="statements-title">Recent statements</h2>
        <Link to={`/statements?${new URLSearchParams({ agent })}`}>All their statements</Link>
      </div>
      <Answer loaded={statements} what="their statements">
        {(value) => (
          <DataTable
            label="Recent statements"
            columns={[
              { id: 'when', label: 'When', cell: (row: Statement) => when(row.timestamp) },
              { id: 'verb', label: 'Verb', cell: (row) => firstOf(row.verb.display) ?? row.verb.id },
              { id: 'object', label: 'Object', cell: (row) => firstOf(row.object.definition?.name) ?? row.object.id ?? '' },
            ]}
            rows={value.statements}
            rowKey={(row) => row.id}
            empty="No statements name this person as their actor."
          />
        )}
      </Answer>
    </section>
  );
}

function AuditSection({ agent }: { agent: string }) {
  const [entries] = useLoad((signal) => api<AuditEntry[]>('GET', '/api/audit', { query: { agent, limit: 10 }, signal }), `${agent}|audit`);
  return (
    <section className="panel" aria-labelledby="audit-title">
      <div className="page-head">
        <h2 id="audit-title">Audit entries about them</h2>
        <Link to={`/audit?${new URLSearchParams({ agent })}`}>All of them</Link>
      </div>
      <Answer loaded={entries} what="the audit entries">
        {(value) => (
          <DataTable
            label="Audit entries about them"
            columns={[
              { id: 'when', label: 'When', cell: (row: AuditEntry) => when(row.at) },
              { id: 'action', label: 'Action', cell: (row) => row.action },
              { id: 'who', label: 'By', cell: (row) => `${row.principal.kind} ${row.principal.id}` },
              { id: 'source', label: 'Source', cell: (row) => row.source ?? '—' },
            ]}
            rows={value}
            rowKey={(row) => row.id}
            empty="Nothing recorded about them."
          />
        )}
      </Answer>
    </section>
  );
}

const STATE_WORDS: Record<LearnerCredential['state'], string> = { active: 'In use', expired: 'Expired', revoked: 'Revoked' };

/** Their learner credentials (each launch link holds one), revocable, and a launch link made for them. */
function AccessSection({ actor, agent, active }: { actor: Actor; agent: string; active: boolean }) {
  const [version, setVersion] = useState(0);
  const kind: CredentialKind<LearnerCredential> = {
    title: 'Learner credentials',
    one: 'a learner credential',
    explanation:
      'Each acts for this person: content launched with one sends statements as them. Every launch link holds one; revoking it ends its launches.',
    path: '/api/auth/basic',
    listPath: `/api/auth/basic?${new URLSearchParams({ agent })}`,
    columns: [
      { id: 'username', label: 'Username', cell: (row) => <code>{row.username.slice(0, 12)}…</code> },
      { id: 'created', label: 'Created', cell: (row) => when(row.createdAt) },
      { id: 'expires', label: 'Expires', cell: (row) => day(row.expiresAt) },
    ],
    keyOf: (row) => row.username,
    live: (row) => row.state === 'active',
    endedWord: (row) => STATE_WORDS[row.state],
    removePath: (row) => `/api/auth/basic/${encodeURIComponent(row.username)}`,
    removeWord: 'Revoke',
    removeWarning: () => 'Content launched with it stops working at its next request, and links holding it no longer open.',
    form: () =>
      active ? (
        <LaunchLink learner={actor} onIssued={() => setVersion((n) => n + 1)} />
      ) : (
        <p className="muted">A deactivated person gets no new credential: reactivate them first.</p>
      ),
  };
  return <CredentialSection kind={kind} canManage version={version} />;
}
