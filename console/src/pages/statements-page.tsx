import { useEffect, useRef, useState } from 'react';
import { Button, Checkbox, Form, Switch, Text } from 'react-aria-components';
import { Link, useSearchParams } from 'react-router';
import { EmptyState, ErrorNote, Loading } from '../components/notes';
import { type Query, send } from '../lib/api';
import { useLoad } from '../lib/use-api';
import {
  actorText,
  checkRange,
  FilterField,
  firstOf,
  JsonDialog,
  MoreFilters,
  RecordTable,
  PageSizeField,
  plural,
  type Reading,
  readAgent,
  readInstant,
  When,
} from './records';

/** The console speaks xAPI 2.0 to the LRS (docs/xapi-statements.md). */
const XAPI = { 'x-experience-api-version': '2.0.0' };
const DEFAULT_LIMIT = 25;
const MAX_LIMIT = 100;
/** How often the live view asks for what was stored since the newest statement shown. */
const LIVE_EVERY_MS = 3000;
/** The most statements the live view keeps on the page: older ones drop off the bottom. */
const LIVE_KEEP = 500;
const ADL_VERBS = 'http://adlnet.gov/expapi/verbs/';

/** The xAPI query parameters a list is filtered by, as the address holds them. */
const TEXT_FILTERS = ['agent', 'verb', 'activity', 'registration', 'since', 'until'] as const;
const FLAGS = ['related_agents', 'related_activities', 'ascending'] as const;
type TextFilter = (typeof TEXT_FILTERS)[number];
type Flag = (typeof FLAGS)[number];

interface Statement {
  id: string;
  stored: string;
  timestamp?: string;
  actor?: unknown;
  verb?: { id: string; display?: Record<string, string> };
  object?: StatementObject;
}

interface StatementObject {
  objectType?: string;
  id?: string;
  definition?: { name?: Record<string, string> };
  actor?: unknown;
  verb?: Statement['verb'];
  object?: StatementObject;
}

interface StatementPage {
  statements: Statement[];
  more: string;
  /** The LRS's X-Experience-API-Consistent-Through: everything stored before it is in the answer. */
  consistentThrough?: string;
}

type Applied = Record<TextFilter, string> & Record<Flag, boolean> & { limit: number };

function appliedOf(search: URLSearchParams): Applied {
  const limit = Number.parseInt(search.get('limit') ?? '', 10);
  return {
    ...(Object.fromEntries(TEXT_FILTERS.map((name) => [name, search.get(name) ?? ''])) as Record<TextFilter, string>),
    ...(Object.fromEntries(FLAGS.map((name) => [name, search.get(name) === 'true'])) as Record<Flag, boolean>),
    limit: Number.isFinite(limit) && limit >= 1 ? Math.min(limit, MAX_LIMIT) : DEFAULT_LIMIT,
  };
}

/** The query of a list, as the LRS takes it (and the address keeps it). */
function queryOf(applied: Applied): Record<string, string> {
  const query: Record<string, string> = {};
  for (const name of TEXT_FILTERS) if (applied[name]) query[name] = applied[name];
  for (const name of FLAGS) if (applied[name]) query[name] = 'true';
  query.limit = String(applied.limit);
  return query;
}

/** The filters as the address keeps them: the query, but the page size only when it is not the console's own. */
function addressOf(applied: Applied): URLSearchParams {
  const address = new URLSearchParams(queryOf(applied));
  if (applied.limit === DEFAULT_LIMIT) address.delete('limit');
  return address;
}

/** A `more` link of the LRS's own (relative to the server), or nothing: another path is never followed. */
const moreOf = (search: URLSearchParams) => {
  const more = search.get('more');
  return more?.startsWith('/xapi/statements?') ? more : undefined;
};

async function readPage(path: string, query: Query | undefined, signal: AbortSignal): Promise<StatementPage> {
  const response = await send('GET', path, { query, headers: XAPI, signal }, 'application/json');
  const body = (await response.json()) as StatementPage;
  return { ...body, consistentThrough: response.headers.get('x-experience-api-consistent-through') ?? undefined };
}

/** The latest `stored` of a list (ISO 8601 in UTC as the LRS prints it, so text order is time order). */
const newestOf = (statements: readonly Statement[]) =>
  statements.reduce<string | undefined>(
    (newest, statement) => (!newest || statement.stored > newest ? statement.stored : newest),
    undefined,
  );

/**
 * Statements (GET /xapi/statements): filtered by the xAPI query parameters, every filter in the
 * address (`?verb=…&agent=…&limit=…`); paged by the LRS's own `more` links, the page shown kept in
 * the address too (`&more=/xapi/statements?…`), so a reload or a shared link shows the same page; a
 * statement's whole JSON in a dialog; and a live view, polling for what is stored after the newest
 * statement shown. The LRS refuses an admin limited to an organisation subtree: said in its words.
 */
export default function StatementsPage() {
  const [search, setSearch] = useSearchParams();
  const applied = appliedOf(search);
  const query = queryOf(applied);
  const more = moreOf(search);
  const address = addressOf(applied);
  const filterKey = address.toString();
  const key = `${filterKey}|${more ?? ''}`;
  const [page] = useLoad((signal) => (more ? readPage(more, undefined, signal) : readPage('/xapi/statements', query, signal)), key);
  const [shown, setShown] = useState<Statement>();
  const live = useLiveView(applied, query, key, page.status === 'done' ? page.value : undefined);

  const liveBlocked = applied.until
    ? 'The live view shows what is stored from now on: clear “Until” to use it.'
    : applied.ascending
      ? 'The live view shows the newest first: clear “Oldest first” to use it.'
      : undefined;
  const firstPage = `?${filterKey}`;
  const fresh = new Set(live.arrived.map((statement) => statement.id));
  const rows = [...live.arrived, ...(page.status === 'done' ? page.value.statements.filter((statement) => !fresh.has(statement.id)) : [])];

  return (
    <>
      <h1>Statements</h1>
      <StatementFilters key={filterKey} applied={applied} onApply={(next) => setSearch(next)} />

      <section className="panel" aria-labelledby="statements-title">
        <div className="page-head">
          <h2 id="statements-title">{more ? 'A later page' : applied.ascending ? 'Oldest stored first' : 'Newest stored first'}</h2>
          <div className="records-live">
            <Switch
              className="records-switch"
              isSelected={live.on}
              isDisabled={liveBlocked !== undefined || page.status === 'error'}
              onChange={(on) => {
                live.turn(on);
                // The live view adds to the newest statements: from a later page, it goes back to the first.
                if (on && more) setSearch(address);
              }}
              aria-describedby="live-hint"
            >
              <span className="records-switch-track" aria-hidden="true" />
              Live view
            </Switch>
            <Text id="live-hint" className="hint">
              {liveBlocked ?? `Checks every ${LIVE_EVERY_MS / 1000} seconds for new statements and adds them at the top.`}
            </Text>
          </div>
        </div>
        <p className="records-announce" role="status" aria-live="polite">
          {live.announcement}
        </p>
        <ErrorNote error={live.error}>
          <p>The live view stopped. Turn it on again to go on.</p>
        </ErrorNote>

        {page.status === 'loading' && <Loading what="statements" />}
        {page.status === 'error' && (
          <ErrorNote error={page.error}>
            {more && (
              <p>
                <Link to={firstPage}>Back to the first page</Link>
              </p>
            )}
          </ErrorNote>
        )}
        {page.status === 'done' &&
          (rows.length === 0 ? (
            <EmptyState title={more ? 'No more statements.' : 'No statements match these filters.'}>
              {more ? (
                <p>
                  <Link to={firstPage}>Back to the first page</Link>
                </p>
              ) : (
                <p>
                  Loosen the filters (an agent's statements as its actor or object; a verb or an activity id as the statements carry it), or
                  turn on the live view to see statements as content sends them to POST /xapi/statements.
                </p>
              )}
            </EmptyState>
          ) : (
            <RecordTable
              label="Statements"
              columns={[
                {
                  id: 'when',
                  label: 'When',
                  cell: (row: Statement) => (
                    <>
                      <When iso={row.timestamp} />
                      {fresh.has(row.id) && <span className="records-new"> new</span>}
                    </>
                  ),
                },
                { id: 'actor', label: 'Actor', cell: (row) => actorText(row.actor) },
                { id: 'verb', label: 'Verb', cell: (row) => verbText(row.verb) },
                { id: 'object', label: 'Object', cell: (row) => <ObjectCell object={row.object} /> },
                { id: 'stored', label: 'Stored', cell: (row) => <When iso={row.stored} /> },
                {
                  id: 'json',
                  label: 'Statement',
                  cell: (row) => (
                    <Button className="secondary small" onPress={() => setShown(row)} aria-label={`JSON of statement ${row.id}`}>
                      JSON
                    </Button>
                  ),
                },
              ]}
              rows={rows}
              rowKey={(row) => row.id}
              onOpen={setShown}
            />
          ))}
        {page.status === 'done' && (more || page.value.more) && (
          <nav className="records-pager" aria-label="Pages of statements">
            {more && (
              <Link className="records-link-button" to={firstPage}>
                Back to the first page
              </Link>
            )}
            {page.value.more && (
              <Link className="records-link-button" rel="next" to={`?${new URLSearchParams([...address, ['more', page.value.more]])}`}>
                Next page
              </Link>
            )}
          </nav>
        )}
      </section>

      <JsonDialog title={`Statement ${shown?.id ?? ''}`} value={shown} onClose={() => setShown(undefined)}>
        <p className="muted">
          {shown && `${actorText(shown.actor)} ${verbText(shown.verb)} ${objectText(shown.object)}, stored `}
          {shown && <When iso={shown.stored} />}
        </p>
      </JsonDialog>
    </>
  );
}

/** The filters' form: what is typed is checked here, and the address changes only when all of it reads. */
function StatementFilters({ applied, onApply }: { applied: Applied; onApply: (search: URLSearchParams) => void }) {
  const [draft, setDraft] = useState(applied);
  const [tried, setTried] = useState(false);
  const readings: Record<TextFilter, Reading> = {
    agent: readAgent(draft.agent),
    verb: readVerb(draft.verb),
    activity: readIri(draft.activity, 'an activity id'),
    registration: readRegistration(draft.registration),
    since: readInstant(draft.since),
    until: checkRange(readInstant(draft.since), readInstant(draft.until)),
  };
  const invalid = TEXT_FILTERS.some((name) => readings[name].error !== undefined);
  const errorOf = (name: TextFilter) => (tried ? readings[name].error : undefined);
  const set = (patch: Partial<Applied>) => setDraft({ ...draft, ...patch });

  function apply() {
    setTried(true);
    if (invalid) return;
    const read = Object.fromEntries(TEXT_FILTERS.map((name) => [name, readings[name].value ?? ''])) as Record<TextFilter, string>;
    const limit = Number.isFinite(draft.limit) ? Math.min(Math.max(1, Math.round(draft.limit)), MAX_LIMIT) : DEFAULT_LIMIT;
    onApply(addressOf({ ...draft, ...read, limit }));
  }

  return (
    <Form
      className="panel records-filters"
      aria-label="Filter statements"
      onSubmit={(event) => {
        event.preventDefault();
        apply();
      }}
    >
      <FilterField
        label="Agent"
        value={draft.agent}
        onChange={(agent) => set({ agent })}
        hint="An e-mail address, or the agent as JSON"
        error={errorOf('agent')}
        wide
      />
      <FilterField
        label="Verb"
        value={draft.verb}
        onChange={(verb) => set({ verb })}
        hint="Its id, or an ADL verb's name: completed, passed…"
        error={errorOf('verb')}
        wide
      />
      <FilterField
        label="Activity"
        value={draft.activity}
        onChange={(activity) => set({ activity })}
        hint="The activity's id"
        error={errorOf('activity')}
        wide
      />
      <FilterField
        label="Since"
        value={draft.since}
        onChange={(since) => set({ since })}
        hint="Stored after: 2026-01-31 or 2026-01-31T09:00Z"
        error={errorOf('since')}
      />
      <FilterField
        label="Until"
        value={draft.until}
        onChange={(until) => set({ until })}
        hint="Stored at or before"
        error={errorOf('until')}
      />
      <PageSizeField value={draft.limit} onChange={(limit) => set({ limit })} max={MAX_LIMIT} />
      <MoreFilters
        isSet={applied.registration !== '' || FLAGS.some((name) => applied[name])}
        hasError={errorOf('registration') !== undefined}
      >
        <FilterField
          label="Registration"
          value={draft.registration}
          onChange={(registration) => set({ registration })}
          hint="A UUID"
          error={errorOf('registration')}
          wide
        />
        <div className="records-checks">
          <Checkbox className="check" isSelected={draft.related_agents} onChange={(on) => set({ related_agents: on })}>
            The agent anywhere (authority, instructor, team)
          </Checkbox>
          <Checkbox className="check" isSelected={draft.related_activities} onChange={(on) => set({ related_activities: on })}>
            The activity anywhere (context activities)
          </Checkbox>
          <Checkbox className="check" isSelected={draft.ascending} onChange={(on) => set({ ascending: on })}>
            Oldest first
          </Checkbox>
        </div>
      </MoreFilters>
      <div className="actions">
        <Button type="submit">Apply</Button>
        <Button
          className="secondary"
          onPress={() => {
            setDraft(appliedOf(new URLSearchParams()));
            setTried(false);
            onApply(new URLSearchParams());
          }}
        >
          Clear the filters
        </Button>
      </div>
    </Form>
  );
}

/**
 * The live view: while on, every few seconds the statements stored after the newest one shown
 * (`since` it, oldest first, following `more` until the last page) are put at the top, and a
 * polite announcement says how many arrived. It stops when turned off, when the filters change
 * (then starts again from the new list) and when the page is left.
 */
function useLiveView(applied: Applied, query: Record<string, string>, key: string, page: StatementPage | undefined) {
  const [on, setOn] = useState(false);
  const [arrived, setArrived] = useState<{ key: string; statements: Statement[] }>({ key, statements: [] });
  const [announcement, setAnnouncement] = useState('');
  const [error, setError] = useState<unknown>();
  const mine = arrived.key === key ? arrived.statements : [];
  const newestShown = useRef<string | undefined>(undefined);
  newestShown.current = newestOf(mine) ?? (page ? (newestOf(page.statements) ?? page.consistentThrough) : undefined);
  const allowed = !applied.until && !applied.ascending;
  const ready = page !== undefined;

  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` names the filters `query` holds.
  useEffect(() => {
    if (!on || !allowed || !ready) return;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const { since: _since, until: _until, ascending: _ascending, limit: _limit, ...filters } = query;
    async function poll() {
      try {
        const since = newestShown.current ?? new Date().toISOString();
        const found: Statement[] = [];
        let next = await readPage('/xapi/statements', { ...filters, since, ascending: 'true', limit: MAX_LIMIT }, controller.signal);
        found.push(...next.statements);
        // A burst larger than a page: its next pages, a few at most per round (the rest comes next round).
        for (let round = 0; next.more && round < 4; round++) {
          next = await readPage(next.more, undefined, controller.signal);
          found.push(...next.statements);
        }
        if (found.length > 0) {
          setArrived((now) => {
            const kept = now.key === key ? now.statements : [];
            const seen = new Set(kept.map((statement) => statement.id));
            const added = found.filter((statement) => !seen.has(statement.id)).reverse();
            return { key, statements: [...added, ...kept].slice(0, LIVE_KEEP) };
          });
          setAnnouncement(`${plural(found.length, 'new statement')} arrived at ${new Date().toLocaleTimeString('en-GB')}.`);
          newestShown.current = newestOf(found);
        }
        timer = setTimeout(poll, LIVE_EVERY_MS);
      } catch (failure) {
        if (controller.signal.aborted) return;
        setError(failure);
        setOn(false);
        setAnnouncement('The live view stopped.');
      }
    }
    void poll();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [on, allowed, ready, key]);

  return {
    on: on && allowed,
    arrived: mine,
    announcement,
    error,
    turn(next: boolean) {
      setOn(next);
      setError(undefined);
      setAnnouncement(next ? `Live view on: new statements appear at the top every ${LIVE_EVERY_MS / 1000} seconds.` : 'Live view off.');
    },
  };
}

/** A verb filter: an IRI as the statements carry it, or the name of an ADL verb (`completed`). */
function readVerb(text: string): Reading {
  const typed = text.trim();
  if (/^[a-z-]+$/i.test(typed)) return { value: `${ADL_VERBS}${typed.toLowerCase()}` };
  return readIri(typed, 'a verb id');
}

function readIri(text: string, what: string): Reading {
  const typed = text.trim();
  if (typed === '') return {};
  if (/^[a-z][a-z0-9+.-]*:\S+$/i.test(typed)) return { value: typed };
  return { error: `Write ${what} as an IRI, with its scheme (https://…).` };
}

function readRegistration(text: string): Reading {
  const typed = text.trim();
  if (typed === '') return {};
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(typed)) return { value: typed.toLowerCase() };
  return { error: 'A registration is a UUID, such as 3e1f1c5a-6b7d-4c8e-9f10-1a2b3c4d5e6f.' };
}

/** A verb as a person reads it: its display, else the last part of its id. */
function verbText(verb: Statement['verb']): string {
  if (!verb) return '—';
  return firstOf(verb.display) ?? verb.id.replace(/\/+$/, '').split(/[/#]/).pop() ?? verb.id;
}

function objectText(object: StatementObject | undefined): string {
  if (!object) return '—';
  switch (object.objectType) {
    case 'Agent':
    case 'Group':
      return actorText(object);
    case 'StatementRef':
      return `statement ${object.id}`;
    case 'SubStatement':
      return `“${actorText(object.actor)} ${verbText(object.verb)} ${objectText(object.object)}”`;
    default:
      return firstOf(object.definition?.name) ?? object.id ?? '—';
  }
}

/** An activity's name with its id below it; anything else as its text. */
function ObjectCell({ object }: { object: StatementObject | undefined }) {
  const name = firstOf(object?.definition?.name);
  if (!object || !name || (object.objectType && object.objectType !== 'Activity')) return <>{objectText(object)}</>;
  return (
    <>
      {name}
      <br />
      <code className="records-id">{object.id}</code>
    </>
  );
}
