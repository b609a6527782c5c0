import { useMemo, useState } from 'react';
import { Button, type Key, Tab, TabList, TabPanel, Tabs, Tree, TreeItem, TreeItemContent } from 'react-aria-components';
import { Link, useSearchParams } from 'react-router';
import { encodeCriteria } from '../criteria/criteria-model';
import { count, DataTable } from '../components/data-table';
import { EmptyState, ErrorNote, Loading } from '../components/notes';
import { api } from '../lib/api';
import { completionByUnit } from '../lib/reports';
import { useLoad } from '../lib/use-api';

interface Entry {
  id: string;
  parentId: string | null;
  attributes?: Record<string, unknown>;
}

interface Job {
  id: string;
  name: string;
  competencies?: { Name: string; Description?: string }[];
  attributes?: Record<string, unknown>;
}

const titleOf = (entry: Entry) => (typeof entry.attributes?.title === 'string' ? entry.attributes.title : '');

/** The people placed in an entry or below it, as the people page's criteria (`?q=`). */
const peopleBelow = (id: string) =>
  `/people?q=${encodeCriteria({
    or: [
      { field: 'organisation.id', op: 'eq', value: id },
      { field: 'organisation.ancestors.id', op: 'eq', value: id },
    ],
  })}`;

/**
 * The organisation: the position tree (GET /api/organisation, flat, linked here by `parentId`) with
 * how many people each entry holds and its subtree (the completion-by-unit report's `people`), an
 * entry's children drawn only when it is opened, so a structure of 10,000 entries opens as fast as
 * one of ten; and the jobs with their competencies. The tab and the chosen entry are the address
 * (`?tab=jobs`, `?entry=DEV1`, which opens the entries above it).
 */
export default function OrganisationPage() {
  const [search, setSearch] = useSearchParams();
  const tab = search.get('tab') === 'jobs' ? 'jobs' : 'structure';
  return (
    <>
      <h1>Organisation</h1>
      <Tabs selectedKey={tab} onSelectionChange={(key) => setSearch(key === 'jobs' ? { tab: 'jobs' } : {})}>
        <TabList aria-label="Organisation" className="tabs">
          <Tab id="structure">Structure</Tab>
          <Tab id="jobs">Jobs</Tab>
        </TabList>
        <TabPanel id="structure">
          <Structure chosen={search.get('entry') ?? undefined} choose={(id) => setSearch({ entry: id })} />
        </TabPanel>
        <TabPanel id="jobs">
          <Jobs />
        </TabPanel>
      </Tabs>
    </>
  );
}

function Structure({ chosen, choose }: { chosen?: string; choose: (id: string) => void }) {
  const [entries] = useLoad((signal) => api<Entry[]>('GET', '/api/organisation', { query: { format: 'flat' }, signal }), 'structure');
  // The counts come apart from the structure: at a large tenant the report takes longer.
  const [figures] = useLoad(async (signal) => {
    // Every entry's figures, up to the report's largest page (docs/learning.md, "Paging and depth").
    const report = await completionByUnit({ limit: 10_000 }, signal);
    return new Map(report.units.map((unit) => [unit.id, { direct: unit.direct.people, subtree: unit.subtree.people }]));
  }, 'figures');

  const tree = useMemo(() => (entries.status === 'done' ? linked(entries.value) : undefined), [entries]);
  const [expanded, setExpanded] = useState<Set<Key>>(() => new Set());
  // The chosen entry's ancestors are open, so a shared link shows it.
  const open = useMemo(() => {
    const keys = new Set(expanded);
    for (let id = chosen && tree?.byId.get(chosen)?.parentId; id; id = tree?.byId.get(id)?.parentId) keys.add(id);
    return keys;
  }, [expanded, chosen, tree]);

  if (entries.status === 'loading') return <Loading what="the organisation structure" />;
  if (entries.status === 'error') return <ErrorNote error={entries.error} />;
  if (!tree || tree.roots.length === 0) {
    return (
      <EmptyState title="No organisation structure yet.">
        <p>
          Import one on the <Link to="/imports">imports</Link> page: people are placed by their position.
        </p>
      </EmptyState>
    );
  }
  const peopleOf = (id: string) => (figures.status === 'done' ? figures.value.get(id) : undefined);

  const render = (entry: Entry) => {
    const children = tree.children.get(entry.id) ?? [];
    const people = peopleOf(entry.id);
    return (
      <TreeItem
        key={entry.id}
        id={entry.id}
        textValue={`${entry.id} ${titleOf(entry)}`}
        hasChildItems={children.length > 0}
        className="tree-item"
      >
        <TreeItemContent>
          {({ hasChildItems, isExpanded }) => (
            <div className="tree-row">
              {hasChildItems ? (
                <Button slot="chevron" className="tree-chevron" aria-label={`${isExpanded ? 'Close' : 'Open'} ${entry.id}`}>
                  <span aria-hidden="true">{isExpanded ? '▾' : '▸'}</span>
                </Button>
              ) : (
                <span className="tree-leaf" aria-hidden="true" />
              )}
              <span className="tree-id">{entry.id}</span>
              <span className="tree-title">{titleOf(entry)}</span>
              <span className="tree-count">
                {people
                  ? `${count(people.direct)} here · ${count(people.subtree)} with those below`
                  : figures.status === 'error'
                    ? ''
                    : '…'}
              </span>
            </div>
          )}
        </TreeItemContent>
        {open.has(entry.id) && children.map(render)}
      </TreeItem>
    );
  };

  const entry = chosen ? tree.byId.get(chosen) : undefined;
  const people = entry && peopleOf(entry.id);
  return (
    <div className="columns">
      <section className="panel" aria-labelledby="tree-title">
        <h2 id="tree-title">
          {count(tree.byId.size)} {tree.byId.size === 1 ? 'entry' : 'entries'}
        </h2>
        {figures.status === 'error' && <ErrorNote error={figures.error} />}
        <Tree
          aria-label="Organisation structure"
          className="tree"
          expandedKeys={open}
          onExpandedChange={setExpanded}
          selectionMode="single"
          selectedKeys={chosen ? [chosen] : []}
          onSelectionChange={(keys) => {
            const [id] = [...(keys as Set<Key>)];
            if (id !== undefined) choose(String(id));
          }}
        >
          {tree.roots.map(render)}
        </Tree>
      </section>
      <section className="panel" aria-labelledby="entry-title">
        {entry ? (
          <>
            <h2 id="entry-title">
              {entry.id} {titleOf(entry)}
            </h2>
            <dl className="facts">
              <div>
                <dt>Above it</dt>
                <dd>{entry.parentId ?? 'nothing: a root'}</dd>
              </div>
              <div>
                <dt>Entries directly below</dt>
                <dd>{count(tree.children.get(entry.id)?.length ?? 0)}</dd>
              </div>
              <div>
                <dt>People here</dt>
                <dd>{people ? count(people.direct) : '…'}</dd>
              </div>
              <div>
                <dt>People here and below</dt>
                <dd>{people ? count(people.subtree) : '…'}</dd>
              </div>
              {Object.entries(entry.attributes ?? {}).map(([name, value]) => (
                <div key={name}>
                  <dt>{name}</dt>
                  <dd>{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
                </div>
              ))}
            </dl>
            <p>
              <Link to={peopleBelow(entry.id)}>The people here and below</Link>
            </p>
          </>
        ) : (
          <>
            <h2 id="entry-title">An entry</h2>
            <p className="muted">Choose an entry in the structure to see its figures and attributes.</p>
          </>
        )}
      </section>
    </div>
  );
}

/** The flat list linked into a tree: the roots, each entry's children (in import order), and entries by id. */
function linked(entries: Entry[]) {
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const children = new Map<string, Entry[]>();
  const roots: Entry[] = [];
  for (const entry of entries) {
    if (entry.parentId === null || !byId.has(entry.parentId)) roots.push(entry);
    else children.set(entry.parentId, [...(children.get(entry.parentId) ?? []), entry]);
  }
  return { byId, children, roots };
}

function Jobs() {
  const [jobs] = useLoad((signal) => api<Job[]>('GET', '/api/jobs', { signal }), 'jobs');
  if (jobs.status === 'loading') return <Loading what="the jobs" />;
  if (jobs.status === 'error') return <ErrorNote error={jobs.error} />;
  if (jobs.value.length === 0) {
    return (
      <EmptyState title="No jobs yet.">
        <p>
          Import the job architecture on the <Link to="/imports">imports</Link> page.
        </p>
      </EmptyState>
    );
  }
  return (
    <section className="panel" aria-labelledby="jobs-title">
      <h2 id="jobs-title">
        {count(jobs.value.length)} {jobs.value.length === 1 ? 'job' : 'jobs'}
      </h2>
      <DataTable
        label="Jobs"
        columns={[
          { id: 'id', label: 'Job', cell: (job: Job) => job.id },
          { id: 'name', label: 'Name', cell: (job) => job.name },
          {
            id: 'competencies',
            label: 'Competencies',
            cell: (job) => (job.competencies ?? []).map((competency) => competency.Name).join(', ') || '—',
          },
          {
            id: 'attributes',
            label: 'Attributes',
            cell: (job) =>
              Object.entries(job.attributes ?? {})
                .map(([name, value]) => `${name}: ${String(value)}`)
                .join('; ') || '—',
          },
        ]}
        rows={jobs.value}
        rowKey={(job) => job.id}
      />
    </section>
  );
}
