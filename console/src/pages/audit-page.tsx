import { useState } from 'react';
import { Button, ComboBox, FieldError, Form, Group, Input, Label, ListBox, ListBoxItem, Popover, Text } from 'react-aria-components';
import { Link, useSearchParams } from 'react-router';
import { EmptyState, ErrorNote, Loading } from '../components/notes';
import { api, getPage, messageOf } from '../lib/api';
import { useSession } from '../lib/session';
import { type Loaded, useLoad } from '../lib/use-api';
import {
  actorText,
  checkRange,
  FilterField,
  TimeRangeFields,
  JsonDialog,
  RecordTable,
  PageSizeField,
  pageOf,
  type Reading,
  readActorId,
  readAgent,
  readInstant,
  rangeText,
  refusedParameter,
  SkipPager,
  When,
} from './records';

const DEFAULT_LIMIT = 50;
/** The API's largest page. */
const MAX_LIMIT = 1000;
const FILTERS = ['agent', 'actorId', 'action', 'source', 'since', 'until'] as const;

/** An action of the catalogue GET /api/audit/actions answers (docs/actors.md, "Audit"). */
interface AuditAction {
  action: string;
  description: string;
}

interface AuditEntry {
  id: string;
  at: string;
  action: string;
  actorId?: string;
  actor?: Record<string, unknown>;
  source?: string;
  principal: { kind: string; id: string };
  details: Record<string, unknown>;
}

interface Draft {
  person: string;
  action: string;
  source: string;
  since: string;
  until: string;
  limit: number;
}

function draftOf(search: URLSearchParams, limit: number): Draft {
  return {
    person: search.get('agent') ?? search.get('actorId') ?? '',
    action: search.get('action') ?? '',
    source: search.get('source') ?? '',
    since: search.get('since') ?? '',
    until: search.get('until') ?? '',
    limit,
  };
}

/** The person filter: an agent's JSON is `agent`; an e-mail address or an actor id is `actorId`. */
function readPerson(text: string): Reading & { name?: 'agent' | 'actorId' } {
  if (text.trim().startsWith('{')) return { ...readAgent(text), name: 'agent' };
  return { ...readActorId(text), name: 'actorId' };
}

/** The field of the form a refused parameter belongs to. */
const FIELD_OF: Readonly<Record<string, keyof Draft>> = {
  agent: 'person',
  actorId: 'person',
  action: 'action',
  source: 'source',
  since: 'since',
  until: 'until',
};

/** A refusal of the API said beside a field of the form. */
type Refusal = { field: keyof Draft; message: string };

/**
 * The audit log (GET /api/audit): what changed people and credentials and who did it, newest
 * first, filtered by person, action (one of the catalogue GET /api/audit/actions answers), source
 * and time; the filters and the page are the API's own parameters in the address
 * (`?action=api_key.created&since=…&skip=50`). The heading says how many entries the filters keep
 * (`X-Total-Count`) and a next page is offered when the API links one. Each entry's details open
 * in a dialog. An admin limited to an organisation subtree reads the entries about its people only.
 */
export default function AuditPage() {
  const [search, setSearch] = useSearchParams();
  const session = useSession();
  const by = (principal: AuditEntry['principal']) =>
    principal.kind === 'admin' && principal.id === session.admin.id ? `you (${session.admin.email})` : principalText(principal);
  const { limit, skip } = pageOf(search, DEFAULT_LIMIT, MAX_LIMIT);
  const filters = FILTERS.flatMap((name) => (search.get(name) ? [[name, search.get(name)!] as [string, string]] : []));
  const filterKey = new URLSearchParams(filters).toString();
  const [actions] = useLoad((signal) => api<AuditAction[]>('GET', '/api/audit/actions', { signal }), 'actions');
  const [list] = useLoad(
    (signal) => getPage<AuditEntry>('/api/audit', { query: { ...Object.fromEntries(filters), limit, skip }, signal }),
    `${filterKey}|${limit}|${skip}`,
  );
  const [shown, setShown] = useState<AuditEntry>();
  const rows = list.status === 'done' ? list.value.items : [];
  const filtered = filters.length > 0;
  const refusedField = list.status === 'error' ? FIELD_OF[refusedParameter(list.error) ?? ''] : undefined;
  const refusal = refusedField && list.status === 'error' ? { field: refusedField, message: messageOf(list.error) } : undefined;
  const described = (action: string) =>
    actions.status === 'done' ? actions.value.find((known) => known.action === action)?.description : undefined;

  return (
    <>
      <h1>Audit log</h1>
      <AuditFilters
        key={`${filterKey}|${limit}`}
        initial={draftOf(search, limit)}
        actions={actions}
        refusal={refusal}
        onApply={setSearch}
      />
      <section className="panel" aria-labelledby="audit-title">
        <h2 id="audit-title">
          {list.status === 'done' && rows.length > 0
            ? `Entries ${rangeText(skip, rows.length, list.value.total)}, newest first`
            : 'Entries, newest first'}
        </h2>
        {list.status === 'loading' && <Loading what="the audit log" />}
        {list.status === 'error' &&
          (refusal ? (
            <p className="muted">Nothing is listed: the filter said above was refused. Change it and apply again.</p>
          ) : (
            <ErrorNote error={list.error} />
          ))}
        {list.status === 'done' &&
          (rows.length === 0 ? (
            <EmptyState
              title={
                skip > 0
                  ? `No entries on this page: the filters keep ${list.value.total === undefined ? 'fewer' : list.value.total.toLocaleString('en')}.`
                  : filtered
                    ? 'No entry matches.'
                    : 'Nothing audited yet.'
              }
            >
              <p>
                {skip > 0 ? (
                  <Link to={`?${withoutSkip(search)}`}>Back to the first page</Link>
                ) : filtered ? (
                  'Loosen the filters, or clear them to see the whole log.'
                ) : (
                  'Entries are written as people are created or changed, credentials made or revoked and content launched.'
                )}
              </p>
            </EmptyState>
          ) : (
            <RecordTable
              label="Audit entries"
              columns={[
                { id: 'when', label: 'When', cell: (row: AuditEntry) => <When iso={row.at} /> },
                { id: 'action', label: 'Action', cell: (row) => <code className="records-action">{row.action}</code> },
                { id: 'person', label: 'About', cell: (row) => (row.actor ? aboutText(row) : '—') },
                { id: 'by', label: 'By', cell: (row) => by(row.principal) },
                { id: 'source', label: 'Source', cell: (row) => row.source ?? '—' },
                {
                  id: 'details',
                  label: 'Details',
                  cell: (row) => (
                    <Button
                      className="secondary small"
                      onPress={() => setShown(row)}
                      aria-label={`Details of ${row.action} at ${new Date(row.at).toLocaleString('en-GB')}`}
                    >
                      Details
                    </Button>
                  ),
                },
              ]}
              rows={rows}
              rowKey={(row) => row.id}
              onOpen={setShown}
            />
          ))}
        {list.status === 'done' && (
          <SkipPager label="Pages of the audit log" search={search} skip={skip} limit={limit} hasMore={list.value.hasNext} />
        )}
      </section>
      <JsonDialog title={shown ? `${shown.action}` : 'Audit entry'} value={shown} onClose={() => setShown(undefined)}>
        {shown && (
          <dl className="facts">
            <div>
              <dt>When</dt>
              <dd>
                <When iso={shown.at} />
              </dd>
            </div>
            <div>
              <dt>What</dt>
              <dd>{described(shown.action) ?? shown.action}</dd>
            </div>
            <div>
              <dt>About</dt>
              <dd>
                {shown.actor ? (
                  <>
                    {aboutText(shown)} ({shown.actorId}){' '}
                    <Link to={`/people/person?${new URLSearchParams({ agent: JSON.stringify(shown.actor) })}`}>Open their page</Link>
                  </>
                ) : (
                  'no person'
                )}
              </dd>
            </div>
            <div>
              <dt>By</dt>
              <dd>{by(shown.principal)}</dd>
            </div>
            <div>
              <dt>Source</dt>
              <dd>{shown.source ?? 'none sent'}</dd>
            </div>
          </dl>
        )}
      </JsonDialog>
    </>
  );
}

const withoutSkip = (search: URLSearchParams) => {
  const next = new URLSearchParams(search);
  next.delete('skip');
  return next;
};

function AuditFilters({
  initial,
  actions,
  refusal,
  onApply,
}: {
  initial: Draft;
  actions: Loaded<AuditAction[]>;
  refusal?: Refusal;
  onApply: (search: URLSearchParams) => void;
}) {
  const [draft, setDraft] = useState(initial);
  const [tried, setTried] = useState(false);
  const set = (patch: Partial<Draft>) => setDraft({ ...draft, ...patch });
  const person = readPerson(draft.person);
  const since = readInstant(draft.since);
  const until = checkRange(since, readInstant(draft.until));
  const invalid = [person, since, until].some((reading) => reading.error !== undefined);
  // The API's refusal stays beside its field until that field is changed.
  const refused = (field: keyof Draft) => (refusal?.field === field && draft[field] === initial[field] ? refusal.message : undefined);
  const shown = (reading: Reading, field: keyof Draft) => (tried ? reading.error : undefined) ?? refused(field);
  // The catalogue, and an action of the address it lacks (an old link), so the field shows it and its refusal.
  const known = actions.status === 'done' ? actions.value : [];
  const items =
    initial.action !== '' && !known.some((item) => item.action === initial.action)
      ? [...known, { action: initial.action, description: actions.status === 'done' ? 'Not an action the log records.' : '' }]
      : known;

  function apply() {
    setTried(true);
    if (invalid) return;
    const next = new URLSearchParams();
    if (person.value && person.name) next.set(person.name, person.value);
    if (draft.action) next.set('action', draft.action);
    if (draft.source.trim()) next.set('source', draft.source.trim());
    if (since.value) next.set('since', since.value);
    if (until.value) next.set('until', until.value);
    if (Number.isFinite(draft.limit) && draft.limit !== DEFAULT_LIMIT) next.set('limit', String(draft.limit));
    onApply(next);
  }

  return (
    <Form
      className="panel records-filters"
      aria-label="Filter the audit log"
      onSubmit={(event) => {
        event.preventDefault();
        apply();
      }}
    >
      <div className="records-stack wide">
        <ComboBox
          className="records-field wide"
          defaultItems={items.map((item) => ({ id: item.action, ...item }))}
          selectedKey={draft.action === '' ? null : draft.action}
          onSelectionChange={(key) => set({ action: key === null ? '' : String(key) })}
          isInvalid={refused('action') !== undefined}
          isDisabled={actions.status === 'loading'}
        >
          <Label>Action</Label>
          <Group className="records-combo">
            <Input spellCheck={false} placeholder={actions.status === 'loading' ? 'Reading the actions…' : 'Every action'} />
            <Button className="records-combo-button" aria-label="Show the actions">
              <span aria-hidden="true">▾</span>
            </Button>
          </Group>
          <Text slot="description" className="hint">
            One the log records: type part of it or open the list. Empty: every action
          </Text>
          <FieldError>{refused('action')}</FieldError>
          <Popover className="records-popover">
            <ListBox<AuditAction & { id: string }>
              renderEmptyState={() => <p className="muted records-option">No action holds this text: open the list to see them all.</p>}
            >
              {(item) => (
                <ListBoxItem id={item.id} textValue={item.action} className="react-aria-ListBoxItem records-option">
                  <Text slot="label">
                    <code>{item.action}</code>
                  </Text>
                  <Text slot="description" className="records-option-detail">
                    {item.description}
                  </Text>
                </ListBoxItem>
              )}
            </ListBox>
          </Popover>
        </ComboBox>
        {actions.status === 'error' && <ErrorNote error={actions.error} />}
      </div>
      <FilterField
        label="Person"
        value={draft.person}
        onChange={(value) => set({ person: value })}
        hint="An e-mail address, an actor id, or the agent as JSON"
        error={shown(person, 'person')}
        wide
      />
      <FilterField
        label="Source"
        value={draft.source}
        onChange={(source) => set({ source })}
        hint="The svc-account-source header sent"
        error={refused('source')}
      />
      <TimeRangeFields
        since={draft.since}
        until={draft.until}
        onChange={set}
        errors={{ since: shown(since, 'since'), until: shown(until, 'until') }}
      />
      <PageSizeField value={draft.limit} onChange={(limit) => set({ limit })} max={MAX_LIMIT} />
      <div className="actions">
        <Button type="submit">Apply</Button>
        <Button
          className="secondary"
          onPress={() => {
            setDraft(draftOf(new URLSearchParams(), DEFAULT_LIMIT));
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
 * Whom an entry is about: the entry keeps the person's identifier only, and a person's writes
 * (`actor.*`) their name in `details.name` when it was sent.
 */
function aboutText(entry: AuditEntry): string {
  const name = entry.details.name;
  return entry.action.startsWith('actor.') && typeof name === 'string' && name !== '' ? name : actorText(entry.actor);
}

/** Who did it, as a person reads it. */
function principalText(principal: AuditEntry['principal']): string {
  switch (principal.kind) {
    case 'admin':
      return `admin ${principal.id}`;
    case 'api_key':
      return `API key ${principal.id}`;
    case 'actor':
      return `learner credential ${principal.id}`;
    case 'operator':
      return `the command line (${principal.id})`;
    case 'scim':
      return `SCIM (${principal.id})`;
    case 'hr_webhook':
      return `HR webhook ${principal.id}`;
    case 'sso':
      return `single sign-on (${principal.id})`;
    default:
      return `${principal.kind} ${principal.id}`;
  }
}
