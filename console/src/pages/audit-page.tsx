import { useState } from 'react';
import { Button, ComboBox, FieldError, Form, Group, Input, Label, ListBox, ListBoxItem, Popover, Text } from 'react-aria-components';
import { Link, useSearchParams } from 'react-router';
import { EmptyState, ErrorNote, Loading } from '../components/notes';
import { api } from '../lib/api';
import { useSession } from '../lib/session';
import { useLoad } from '../lib/use-api';
import {
  actorText,
  checkRange,
  FilterField,
  JsonDialog,
  RecordTable,
  PageSizeField,
  pageOf,
  type Reading,
  readActorId,
  readAgent,
  readInstant,
  SkipPager,
  When,
} from './records';

const DEFAULT_LIMIT = 50;
/** One more is asked for than shown (to know whether a next page exists): the API answers 1,000 at most. */
const MAX_LIMIT = 999;
const FILTERS = ['agent', 'actorId', 'action', 'source', 'since', 'until'] as const;

/** The actions docs/actors.md ("Audit") lists; the field takes any other the API may add. */
const ACTIONS: readonly { id: string; meaning: string }[] = [
  { id: 'actor.created', meaning: 'a person created' },
  { id: 'actor.updated', meaning: 'a person changed' },
  { id: 'actor.deactivated', meaning: 'a person deactivated' },
  { id: 'actor.reactivated', meaning: 'a person reactivated' },
  { id: 'credential.created', meaning: 'a learner credential created' },
  { id: 'credential.revoked', meaning: 'a learner credential revoked' },
  { id: 'launch', meaning: 'content launched' },
  { id: 'api_key.created', meaning: 'an API key created' },
  { id: 'api_key.revoked', meaning: 'an API key revoked' },
  { id: 'oauth_client.created', meaning: 'an OAuth client created' },
  { id: 'oauth_client.deleted', meaning: 'an OAuth client deleted' },
  { id: 'oauth_client.secret_rotated', meaning: 'an OAuth client’s secret replaced' },
  { id: 'admin.created', meaning: 'an admin created' },
  { id: 'admin.scope_changed', meaning: 'an admin’s scope changed' },
  { id: 'admin.deleted', meaning: 'an admin deleted' },
  { id: 'admin.tokens_revoked', meaning: 'an admin’s sign-ins ended' },
  { id: 'scim_token.created', meaning: 'a SCIM token created' },
  { id: 'scim_token.revoked', meaning: 'a SCIM token revoked' },
  { id: 'hr_webhook.created', meaning: 'an HR webhook created' },
  { id: 'hr_webhook.revoked', meaning: 'an HR webhook revoked' },
  { id: 'sso_connection.created', meaning: 'a single sign-on connection created' },
  { id: 'sso_connection.updated', meaning: 'a single sign-on connection changed' },
  { id: 'sso_connection.deleted', meaning: 'a single sign-on connection deleted' },
  { id: 'sso_connection.refreshed', meaning: 'a provider’s metadata changed' },
];

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

/**
 * The audit log (GET /api/audit): what changed people and credentials and who did it, newest
 * first, filtered by person, action, source and time; the filters and the page are the API's own
 * parameters in the address (`?action=api_key.created&since=…&skip=50`). Each entry's details open
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
  const [list] = useLoad(
    (signal) => api<AuditEntry[]>('GET', '/api/audit', { query: { ...Object.fromEntries(filters), limit: limit + 1, skip }, signal }),
    `${filterKey}|${limit}|${skip}`,
  );
  const [shown, setShown] = useState<AuditEntry>();
  const rows = list.status === 'done' ? list.value.slice(0, limit) : [];
  const filtered = filters.length > 0;

  return (
    <>
      <h1>Audit log</h1>
      <AuditFilters key={`${filterKey}|${limit}`} initial={draftOf(search, limit)} onApply={setSearch} />
      <section className="panel" aria-labelledby="audit-title">
        <h2 id="audit-title">
          {list.status === 'done' && rows.length > 0
            ? `Entries ${skip + 1} to ${skip + rows.length}, newest first`
            : 'Entries, newest first'}
        </h2>
        {list.status === 'loading' && <Loading what="the audit log" />}
        {list.status === 'error' && <ErrorNote error={list.error} />}
        {list.status === 'done' &&
          (rows.length === 0 ? (
            <EmptyState title={skip > 0 ? 'No entries on this page.' : filtered ? 'No entry matches.' : 'Nothing audited yet.'}>
              <p>
                {filtered
                  ? 'Loosen the filters, or clear them to see the whole log.'
                  : 'Entries are written as people are created or changed, credentials made or revoked and content launched.'}
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
          <SkipPager label="Pages of the audit log" search={search} skip={skip} limit={limit} hasMore={list.value.length > limit} />
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
              <dd>{ACTIONS.find((action) => action.id === shown.action)?.meaning ?? shown.action}</dd>
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

function AuditFilters({ initial, onApply }: { initial: Draft; onApply: (search: URLSearchParams) => void }) {
  const [draft, setDraft] = useState(initial);
  const [tried, setTried] = useState(false);
  const set = (patch: Partial<Draft>) => setDraft({ ...draft, ...patch });
  const person = readPerson(draft.person);
  const since = readInstant(draft.since);
  const until = checkRange(since, readInstant(draft.until));
  const invalid = [person, since, until].some((reading) => reading.error !== undefined);
  const shown = (reading: Reading) => (tried ? reading.error : undefined);

  function apply() {
    setTried(true);
    if (invalid) return;
    const next = new URLSearchParams();
    if (person.value && person.name) next.set(person.name, person.value);
    if (draft.action.trim()) next.set('action', draft.action.trim());
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
      <ComboBox
        className="records-field wide"
        allowsCustomValue
        inputValue={draft.action}
        onInputChange={(action) => set({ action })}
        defaultItems={ACTIONS}
      >
        <Label>Action</Label>
        <Group className="records-combo">
          <Input spellCheck={false} />
          <Button className="records-combo-button" aria-label="Show the actions">
            <span aria-hidden="true">▾</span>
          </Button>
        </Group>
        <Text slot="description" className="hint">
          Any action: api_key.created, actor.updated…
        </Text>
        <FieldError />
        <Popover>
          <ListBox>
            {(action: (typeof ACTIONS)[number]) => (
              <ListBoxItem id={action.id} textValue={action.id}>
                <code>{action.id}</code> <span className="records-id">{action.meaning}</span>
              </ListBoxItem>
            )}
          </ListBox>
        </Popover>
      </ComboBox>
      <FilterField
        label="Person"
        value={draft.person}
        onChange={(value) => set({ person: value })}
        hint="An e-mail address, an actor id, or the agent as JSON"
        error={shown(person)}
        wide
      />
      <FilterField label="Source" value={draft.source} onChange={(source) => set({ source })} hint="The svc-account-source header sent" />
      <FilterField
        label="Since"
        value={draft.since}
        onChange={(value) => set({ since: value })}
        hint="After: 2026-01-31 or 2026-01-31T09:00Z"
        error={shown(since)}
      />
      <FilterField label="Until" value={draft.until} onChange={(value) => set({ until: value })} hint="At or before" error={shown(until)} />
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
