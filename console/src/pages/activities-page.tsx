import { useEffect, useMemo, useRef, useState } from 'react';
import {
  Button,
  Input,
  type Key,
  Label,
  ListBox,
  ListBoxItem,
  Popover,
  SearchField,
  Select,
  SelectValue,
  Text,
  Tree,
  TreeItem,
  TreeItemContent,
} from 'react-aria-components';
import { Link, useSearchParams } from 'react-router';
import { count } from '../components/data-table';
import { EmptyState, ErrorNote, Loading } from '../components/notes';
import { getPage, type ListPage } from '../lib/api';
import { type Loaded, useLoad } from '../lib/use-api';
import { ancestorsOf, day, languageText, loadRegistry, type Registry, type RegistryEntry } from './learning-common';
import { LaunchLink } from './launch-link';
import './assignments.css';

const ANY_TAG = '*any';
/** A registry larger than this opens at its roots. */
const LARGE = 200;
/** How long the search waits after the last key before it asks the API. */
const DEBOUNCE_MS = 300;
/** The matches of a search the tree shows: the API's largest page. */
const MATCHES = 1000;

const nameOf = (entry: RegistryEntry) => languageText(entry.definition.name) ?? entry.id;

/**
 * The activities registry (GET /api/activities): its hierarchy as a tree, each activity's tags,
 * competencies, whether only passing it counts, and, for one with a launch URL, a launch link made
 * for a learner. The filters and the activity shown are the address (`?tag=…&q=…&activity=…`):
 * the search is the API's `q` (a text in the id, a name or a description, in any language), and
 * the tree shows its matches with the activities above them.
 */
export default function ActivitiesPage() {
  const [search, setSearch] = useSearchParams();
  const tag = search.get('tag') ?? '';
  // `search` is what the page's search was called before it became the API's `q`: old links still work.
  const q = (search.get('q') ?? search.get('search') ?? '').trim();
  const chosen = search.get('activity') ?? undefined;
  const [registry] = useLoad((signal) => loadRegistry(signal), 'registry');
  // The search's matches (with the tag, so the API's total is theirs); none asked without a text.
  const [found] = useLoad(
    (signal): Promise<ListPage<RegistryEntry> | undefined> =>
      q === ''
        ? Promise.resolve(undefined)
        : getPage<RegistryEntry>('/api/activities', { query: { q, tag: tag || undefined, limit: MATCHES }, signal }),
    `${q}|${tag}`,
  );
  const details = useRef<HTMLElement>(null);

  /** The address with these parameters changed (an empty value removes one). */
  function update(changes: Record<string, string | undefined>, replace = false) {
    // From the address as it is when this runs: the search's change lands after a pause in the typing.
    setSearch(
      (now) => {
        const next = new URLSearchParams(now);
        const old = next.get('search');
        if (old && !('q' in changes)) next.set('q', old);
        next.delete('search');
        for (const [name, value] of Object.entries(changes)) {
          if (value) next.set(name, value);
          else next.delete(name);
        }
        return next;
      },
      { replace },
    );
  }

  if (registry.status === 'loading') return <Loading what="the activities" />;
  if (registry.status === 'error') {
    return (
      <>
        <h1>Activities</h1>
        <ErrorNote error={registry.error} />
      </>
    );
  }
  const { value } = registry;
  const entry = chosen === undefined ? undefined : value.byId.get(chosen);

  return (
    <>
      <h1>Activities</h1>
      {value.entries.length === 0 ? (
        <EmptyState title="No activities registered yet.">
          <p>
            Register them with <code>PUT /api/activities</code> (docs/activities.md): each with its name, the activity above it (
            <code>parentId</code>), its tags, competencies and the launch URL of its content. They can then be assigned.
          </p>
        </EmptyState>
      ) : (
        <div className="activities-layout">
          <section className="panel" aria-labelledby="registry-title">
            <h2 id="registry-title">{registryTitle(value)}</h2>
            <Filters
              registry={value}
              tag={tag}
              q={q}
              found={found}
              onTag={(next) => update({ tag: next })}
              onSearch={(next) => update({ q: next.trim() || undefined }, true)}
            />
            <ActivityTree
              registry={value}
              tag={tag}
              found={q === '' ? undefined : found}
              chosen={chosen}
              choose={(id) => {
                update({ activity: id });
                // At a narrow width the details are below the tree: bring them into view.
                if (window.matchMedia('(max-width: 48rem)').matches) requestAnimationFrame(() => details.current?.scrollIntoView());
              }}
              clear={() => update({ tag: undefined, q: undefined })}
            />
          </section>
          <section className="panel" aria-labelledby="activity-title" ref={details}>
            {entry ? (
              <ActivityDetails key={entry.id} entry={entry} registry={value} />
            ) : (
              <>
                <h2 id="activity-title">An activity</h2>
                {chosen !== undefined ? (
                  <ErrorNote error={new Error(`The registry has no activity "${chosen}": choose one in the tree.`)} />
                ) : (
                  <p className="muted">Choose an activity in the tree to see its details and make a launch link for a learner.</p>
                )}
              </>
            )}
          </section>
        </div>
      )}
    </>
  );
}

/** "12 activities", or how many of how many the console read when the registry holds more. */
function registryTitle(registry: Registry): string {
  const total = registry.total ?? registry.entries.length;
  const noun = total === 1 ? 'activity' : 'activities';
  return registry.complete ? `${count(total)} ${noun}` : `${count(total)} ${noun} (the first ${count(registry.entries.length)} shown)`;
}

/** What the filters keep, in a sentence: the API's total for a search, the tree's count for a tag alone. */
function matchText(registry: Registry, tag: string, q: string, found: Loaded<ListPage<RegistryEntry> | undefined>): string {
  if (q !== '') {
    if (found.status !== 'done' || found.value === undefined) return found.status === 'error' ? '' : 'Searching the registry…';
    const page = found.value;
    const total = page.total ?? page.items.length;
    const withTag = tag === '' ? '' : ` with the tag ${tag}`;
    const shown = total > page.items.length ? ` (the first ${count(page.items.length)} shown)` : '';
    return `${count(total)} ${total === 1 ? 'activity matches' : 'activities match'} “${q}”${withTag}${shown}.`;
  }
  if (tag === '') return '';
  const tagged = registry.entries.filter((entry) => entry.tags.includes(tag)).length;
  return `${count(tagged)} ${tagged === 1 ? 'activity carries' : 'activities carry'} the tag ${tag}.`;
}

/**
 * The search (debounced: the address, and the API's search, follow the typing once it pauses)
 * and the tag; below them, what they keep in a sentence, announced as it changes.
 */
function Filters({
  registry,
  tag,
  q,
  found,
  onTag,
  onSearch,
}: {
  registry: Registry;
  tag: string;
  q: string;
  found: Loaded<ListPage<RegistryEntry> | undefined>;
  onTag: (tag: string | undefined) => void;
  onSearch: (q: string) => void;
}) {
  const [typed, setTyped] = useState(q);
  // What this field last put in the address: another change (back, a link, Clear) replaces the text.
  const sent = useRef(q);
  useEffect(() => {
    if (q !== sent.current.trim()) {
      sent.current = q;
      setTyped(q);
    }
  }, [q]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: onSearch changes the address as it is when it runs.
  useEffect(() => {
    if (typed.trim() === sent.current.trim()) return;
    const timer = setTimeout(() => {
      sent.current = typed;
      onSearch(typed);
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [typed]);
  const tags = useMemo(() => {
    const counted = new Map<string, number>();
    for (const entry of registry.entries) for (const name of entry.tags) counted.set(name, (counted.get(name) ?? 0) + 1);
    return [...counted].sort(([a], [b]) => a.localeCompare(b));
  }, [registry]);
  return (
    <>
      <div className="filters activity-filters">
        <SearchField
          value={typed}
          onChange={setTyped}
          onClear={() => {
            sent.current = '';
            onSearch('');
          }}
          className="activity-search"
          isInvalid={q !== '' && found.status === 'error'}
        >
          <Label>Find by name, id or description</Label>
          <div className="search-box">
            <Input spellCheck={false} />
            <Button className="search-clear" aria-label="Clear the search">
              ×
            </Button>
          </div>
          <Text slot="description" className="hint">
            A word or part of one, in any language the registry holds
          </Text>
        </SearchField>
        <Select
          className="tag-select"
          selectedKey={tag === '' ? ANY_TAG : tag}
          onSelectionChange={(key) => onTag(key === ANY_TAG ? undefined : String(key))}
        >
          <Label className="field-label">Tag</Label>
          <Button className="select-button">
            <SelectValue />
          </Button>
          <Popover>
            <ListBox>
              <ListBoxItem id={ANY_TAG}>Any tag</ListBoxItem>
              {tags.map(([name, n]) => (
                <ListBoxItem key={name} id={name} textValue={name}>
                  {name} ({count(n)})
                </ListBoxItem>
              ))}
              {/* A tag from a shared link that no activity carries any more is still shown as chosen. */}
              {tag !== '' && !tags.some(([name]) => name === tag) && (
                <ListBoxItem id={tag} textValue={tag}>
                  {tag} (0)
                </ListBoxItem>
              )}
            </ListBox>
          </Popover>
        </Select>
      </div>
      {q !== '' && found.status === 'error' && <ErrorNote error={found.error} />}
      <p className="muted activity-matches" role="status">
        {matchText(registry, tag, q, found)}
      </p>
    </>
  );
}

function ActivityTree({
  registry,
  tag,
  found,
  chosen,
  choose,
  clear,
}: {
  registry: Registry;
  tag: string;
  /** The search's answer; undefined without a search. */
  found?: Loaded<ListPage<RegistryEntry> | undefined>;
  chosen?: string;
  choose: (id: string) => void;
  clear: () => void;
}) {
  const searched = found?.status === 'done' ? found.value : undefined;
  // Filtering keeps each match with the activities above it, so a match is seen where it sits.
  const { shown, matches } = useMemo(() => {
    const ids = searched && new Set(searched.items.map((entry) => entry.id));
    const filtered = tag !== '' || ids !== undefined;
    const matching = registry.entries.filter((entry) => (tag === '' || entry.tags.includes(tag)) && (!ids || ids.has(entry.id)));
    const kept = new Set(matching.map((entry) => entry.id));
    if (filtered) for (const entry of matching) for (const above of ancestorsOf(entry, registry)) kept.add(above.id);
    return { shown: kept, matches: filtered ? new Set(matching.map((entry) => entry.id)) : undefined };
  }, [registry, tag, searched]);
  // Everything is open but what the admin closed, so the hierarchy is seen at once; a large
  // registry unfiltered opens at its roots, drawing an entry's children once it is opened. The
  // chosen activity's ancestors are open, so a shared link shows it.
  const filtered = matches !== undefined;
  const closedAtFirst = () => new Set<Key>(!filtered && registry.entries.length > LARGE ? registry.children.keys() : []);
  const [closed, setClosed] = useState<Set<Key>>(closedAtFirst);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new filter starts from what it shows, all open.
  useEffect(() => setClosed(closedAtFirst()), [tag, searched]);
  useEffect(() => {
    const entry = chosen === undefined ? undefined : registry.byId.get(chosen);
    if (!entry) return;
    const above = ancestorsOf(entry, registry).map((parent) => parent.id);
    setClosed((now) => (above.some((id) => now.has(id)) ? new Set([...now].filter((id) => !above.includes(String(id)))) : now));
  }, [chosen, registry]);
  const parents = useMemo(() => [...registry.children.keys()].filter((id) => shown.has(id)), [registry, shown]);
  const expanded = useMemo(() => new Set(parents.filter((id) => !closed.has(id))), [parents, closed]);

  // A search under way (the line above the tree says so) or refused (said beside the field): no tree for it yet.
  if (found !== undefined && found.status !== 'done') return null;
  if (shown.size === 0) {
    return (
      <EmptyState title="No activity matches these filters.">
        <p>Try another word or another tag, or clear the filters to see the whole registry.</p>
        <Button className="secondary small" onPress={clear}>
          Clear the filters
        </Button>
      </EmptyState>
    );
  }

  const render = (entry: RegistryEntry) => {
    const children = (registry.children.get(entry.id) ?? []).filter((child) => shown.has(child.id));
    const context = matches !== undefined && !matches.has(entry.id);
    return (
      <TreeItem
        key={entry.id}
        id={entry.id}
        textValue={nameOf(entry)}
        hasChildItems={children.length > 0}
        className={context ? 'tree-item activity-item context' : 'tree-item activity-item'}
      >
        <TreeItemContent>
          {({ hasChildItems, isExpanded }) => (
            <div className="tree-row">
              {hasChildItems ? (
                <Button slot="chevron" className="tree-chevron" aria-label={`${isExpanded ? 'Close' : 'Open'} ${nameOf(entry)}`}>
                  <span aria-hidden="true">{isExpanded ? '▾' : '▸'}</span>
                </Button>
              ) : (
                <span className="tree-leaf" aria-hidden="true" />
              )}
              <span className="activity-name">{nameOf(entry)}</span>
              {entry.tags.length > 0 && (
                <span className="chips">
                  {entry.tags.map((name) => (
                    <span key={name} className="chip">
                      {name}
                    </span>
                  ))}
                </span>
              )}
              {entry.launchUrl && <span className="chip launchable">launchable</span>}
            </div>
          )}
        </TreeItemContent>
        {expanded.has(entry.id) && children.map(render)}
      </TreeItem>
    );
  };

  return (
    <Tree
      aria-label="Activities by hierarchy"
      className="activity-tree"
      expandedKeys={expanded}
      onExpandedChange={(keys) => setClosed(new Set(parents.filter((id) => !keys.has(id))))}
      selectionMode="single"
      selectedKeys={chosen ? [chosen] : []}
      onSelectionChange={(keys) => {
        const [id] = [...(keys as Set<Key>)];
        if (id !== undefined) choose(String(id));
      }}
    >
      {registry.roots.filter((entry) => shown.has(entry.id)).map(render)}
    </Tree>
  );
}

function ActivityDetails({ entry, registry }: { entry: RegistryEntry; registry: Registry }) {
  const [search] = useSearchParams();
  const linkTo = (id: string) => {
    const next = new URLSearchParams(search);
    next.set('activity', id);
    return `?${next}`;
  };
  const above = ancestorsOf(entry, registry).reverse();
  const below = registry.children.get(entry.id) ?? [];
  const description = languageText(entry.definition.description);
  const attributes = Object.entries(entry.attributes);
  return (
    <>
      <h2 id="activity-title">{nameOf(entry)}</h2>
      {description && <p>{description}</p>}
      <dl className="facts">
        <div>
          <dt>Id</dt>
          <dd>
            <code>{entry.id}</code>
          </dd>
        </div>
        {entry.definition.type && (
          <div>
            <dt>Type</dt>
            <dd>
              <code>{entry.definition.type}</code>
            </dd>
          </div>
        )}
        <div>
          <dt>Above it</dt>
          <dd>
            {above.length === 0 ? (
              'nothing: it is a root'
            ) : (
              <ol className="path">
                {above.map((parent) => (
                  <li key={parent.id}>
                    <Link to={linkTo(parent.id)}>{nameOf(parent)}</Link>
                  </li>
                ))}
              </ol>
            )}
          </dd>
        </div>
        <div>
          <dt>Below it</dt>
          <dd>
            {below.length === 0 ? (
              'nothing'
            ) : (
              <ul className="plain">
                {below.map((child) => (
                  <li key={child.id}>
                    <Link to={linkTo(child.id)}>{nameOf(child)}</Link>
                  </li>
                ))}
              </ul>
            )}
          </dd>
        </div>
        <div>
          <dt>Tags</dt>
          <dd>{entry.tags.length === 0 ? 'none' : entry.tags.join(', ')}</dd>
        </div>
        <div>
          <dt>Develops</dt>
          <dd>{entry.competencies.length === 0 ? 'none' : entry.competencies.join(', ')}</dd>
        </div>
        <div>
          <dt>Done when</dt>
          <dd>{entry.requiresSuccess ? 'passed (completing it without passing does not count)' : 'completed or passed'}</dd>
        </div>
        {attributes.map(([name, value]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd>{value}</dd>
          </div>
        ))}
        <div>
          <dt>Launch URL</dt>
          <dd>{entry.launchUrl ? <code>{entry.launchUrl}</code> : 'none: it cannot be launched from learnbase'}</dd>
        </div>
        <div>
          <dt>Last written</dt>
          <dd>{day(entry.updated)}</dd>
        </div>
      </dl>
      <p className="links">
        <Link to={`/assignments?tab=create&activity=${encodeURIComponent(entry.id)}`}>Assign it</Link>
        <Link to={`/reports?report=by-activity&activityId=${encodeURIComponent(entry.id)}`}>Its completion report</Link>
      </p>
      {entry.launchUrl && <LaunchLink entry={entry} />}
    </>
  );
}
