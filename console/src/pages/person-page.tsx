import { Link, useSearchParams } from 'react-router';
import { DataTable } from '../components/data-table';
import { EmptyState, ErrorNote, Loading } from '../components/notes';
import { api } from '../lib/api';
import { type Actor, attributesOf, criteriaOfIfi, displayName, identifierText, jobOf, organisationOf } from '../lib/agent';
import { useLoad } from '../lib/use-api';

interface CompletionRecord {
  activityId: string;
  status: 'in-progress' | 'completed' | 'passed' | 'failed';
  completedAt?: string;
  updatedAt?: string;
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

const firstOf = (map: Record<string, string> | undefined) => (map ? Object.values(map)[0] : undefined);

/**
 * One person (`/people/person?agent=<their identifier as JSON>`, a link that can be shared): their
 * attributes, position with the chain of managers' entries, job and competencies, completions,
 * assignments and recent statements, each read from the API as the signed-in admin may.
 */
export default function PersonPage() {
  const [search] = useSearchParams();
  const agentText = search.get('agent') ?? '';
  const [person] = useLoad(async (signal) => {
    let agent: Actor;
    try {
      agent = JSON.parse(agentText) as Actor;
    } catch {
      throw new Error('This address names no person: open one from the people page.');
    }
    const query = { agent: JSON.stringify(agent) };
    const found = await api<{ actors: Actor[] }>('POST', '/api/actors/search', {
      body: { criteria: criteriaOfIfi(agent) },
      query: { limit: 1 },
      signal,
    });
    const actor = found.actors[0];
    if (!actor) return undefined;
    const [completions, assignments, statements] = await Promise.all([
      api<CompletionRecord[]>('GET', '/api/actors/completions', { query, signal }),
      api<{ assignments: PersonAssignment[] }>('GET', '/api/actors/assignments', { query, signal }),
      api<{ statements: Statement[] }>('GET', '/xapi/statements', {
        query: { ...query, limit: 10 },
        headers: { 'x-experience-api-version': '2.0.0' },
        signal,
      }).catch(() => ({ statements: [] as Statement[] })),
    ]);
    return { actor, completions, assignments: assignments.assignments, statements: statements.statements };
  }, agentText);

  if (person.status === 'loading') return <Loading what="the person" />;
  if (person.status === 'error') return <ErrorNote error={person.error} />;
  if (!person.value) {
    return (
      <EmptyState title="No such person here.">
        <p>
          They may have been deactivated, or be outside what you may see. <Link to="/people">Back to people</Link>
        </p>
      </EmptyState>
    );
  }
  const { actor, completions, assignments, statements } = person.value;
  const attributes = Object.entries(attributesOf(actor));
  const organisation = organisationOf(actor);
  const job = jobOf(actor);

  return (
    <>
      <p className="crumbs">
        <Link to="/people">People</Link> › {displayName(actor)}
      </p>
      <h1>{displayName(actor)}</h1>
      <p className="muted">{identifierText(actor)}</p>

      <div className="columns">
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
        <section className="panel" aria-labelledby="position-title">
          <h2 id="position-title">Position and job</h2>
          {organisation ? (
            <>
              <p>
                <strong>{organisation.id}</strong> {String(organisation.attributes?.title ?? '')}
              </p>
              {(organisation.ancestors ?? []).length > 0 && (
                <ol className="chain" aria-label="Entries above, from the nearest">
                  {organisation.ancestors?.map((entry) => (
                    <li key={entry.id}>
                      {entry.id} {String(entry.attributes?.title ?? '')}
                    </li>
                  ))}
                </ol>
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
      </div>

      <section className="panel" aria-labelledby="assignments-title">
        <h2 id="assignments-title">Assignments</h2>
        <DataTable
          label="Assignments"
          columns={[
            { id: 'name', label: 'Assignment', cell: (row: PersonAssignment) => row.name },
            { id: 'status', label: 'Status', cell: (row) => row.status },
            { id: 'due', label: 'Due', cell: (row) => (row.dueAt ? row.dueAt.slice(0, 10) : '—') },
            { id: 'activities', label: 'Activities', cell: (row) => row.activities.length, numeric: true },
          ]}
          rows={assignments}
          rowKey={(row) => row.id}
          empty="No assignment holds this person."
        />
      </section>

      <section className="panel" aria-labelledby="completions-title">
        <h2 id="completions-title">Completions</h2>
        <DataTable
          label="Completions"
          columns={[
            { id: 'activity', label: 'Activity', cell: (row: CompletionRecord) => row.activityId },
            { id: 'status', label: 'Status', cell: (row) => row.status },
            { id: 'when', label: 'Completed', cell: (row) => row.completedAt?.slice(0, 10) ?? '—' },
          ]}
          rows={completions}
          rowKey={(row, index) => `${row.activityId}#${index}`}
          empty="No completion records yet: they follow from the statements content sends."
        />
      </section>

      <section className="panel" aria-labelledby="statements-title">
        <h2 id="statements-title">Recent statements</h2>
        <DataTable
          label="Recent statements"
          columns={[
            { id: 'when', label: 'When', cell: (row: Statement) => new Date(row.timestamp).toLocaleString('en-GB') },
            { id: 'verb', label: 'Verb', cell: (row) => firstOf(row.verb.display) ?? row.verb.id },
            { id: 'object', label: 'Object', cell: (row) => firstOf(row.object.definition?.name) ?? row.object.id ?? '' },
          ]}
          rows={statements}
          rowKey={(row) => row.id}
          empty="No statements name this person as their actor."
        />
      </section>
    </>
  );
}
