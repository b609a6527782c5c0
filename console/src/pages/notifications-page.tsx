import { useState } from 'react';
import { Button, Checkbox, Form } from 'react-aria-components';
import { useSearchParams } from 'react-router';
import { EmptyState, ErrorNote, Loading } from '../components/notes';
import { getPage, messageOf } from '../lib/api';
import { useLoad } from '../lib/use-api';
import {
  actorText,
  checkRange,
  FilterField,
  TimeRangeFields,
  firstOf,
  JsonDialog,
  MoreFilters,
  RecordTable,
  PageSizeField,
  pageOf,
  type Reading,
  readActorId,
  readInstant,
  rangeText,
  refusedParameter,
  SkipPager,
  When,
} from './records';

const DEFAULT_LIMIT = 50;
/** The API's largest page. */
const MAX_LIMIT = 1000;
const ATTRIBUTE = 'activity:attribute:';

interface Notification {
  id: string;
  timestamp: string;
  actor: Record<string, unknown>;
  activity: { id: string; definition?: { name?: Record<string, string> } };
  channel: string;
  object: Record<string, unknown>;
}

/** The form's fields; the address holds the API's own parameters. */
interface Draft {
  actorId: string;
  activityId: string;
  /** `activityId!`: every activity but this one. */
  allBut: boolean;
  tags: string;
  attributeName: string;
  attributeValue: string;
  channel: string;
  query: string;
  since: string;
  until: string;
  limit: number;
}

function draftOf(search: URLSearchParams, limit: number): Draft {
  const attribute = [...search.keys()].find((name) => name.startsWith(ATTRIBUTE));
  return {
    actorId: search.get('actorId') ?? '',
    activityId: search.get('activityId!') ?? search.get('activityId') ?? '',
    allBut: search.has('activityId!') && !search.has('activityId'),
    tags: search.get('activity:tags') ?? '',
    attributeName: attribute ? attribute.slice(ATTRIBUTE.length) : '',
    attributeValue: attribute ? (search.get(attribute) ?? '') : '',
    channel: search.get('channel') ?? '',
    query: search.get('query') ?? '',
    since: search.get('since') ?? '',
    until: search.get('until') ?? '',
    limit,
  };
}

/** The filters of GET /api/notifications the address holds (every one the API takes, several attributes included). */
function filtersOf(search: URLSearchParams): [string, string][] {
  const names = new Set(['actorId', 'activityId', 'activityId!', 'activity:tags', 'channel', 'query', 'since', 'until']);
  return [...search].filter(([name]) => names.has(name) || name.startsWith(ATTRIBUTE));
}

/** The field of the form a refused parameter belongs to (an attribute's: its name's). */
function fieldOf(parameter: string | undefined): keyof Draft | undefined {
  if (parameter === undefined) return undefined;
  if (parameter.startsWith(ATTRIBUTE)) return 'attributeName';
  const fields: Record<string, keyof Draft> = {
    actorId: 'actorId',
    activityId: 'activityId',
    'activityId!': 'activityId',
    'activity:tags': 'tags',
    channel: 'channel',
    query: 'query',
    since: 'since',
    until: 'until',
  };
  return fields[parameter];
}

/** A refusal of the API said beside a field of the form. */
type Refusal = { field: keyof Draft; message: string };

/**
 * Notifications (GET /api/notifications): newest first, filtered by person, activity (or every
 * activity but one), the registry's tags and an attribute, channel, a regular expression on the
 * people's names and a time range (`since`, `until`); the filters and the page are the API's own
 * parameters in the address (`?channel=email&activity:tags=mandatory&skip=50`), so a reload or a
 * shared link shows the same. The heading says how many match (`X-Total-Count`); a next page is
 * offered when the API links one.
 */
export default function NotificationsPage() {
  const [search, setSearch] = useSearchParams();
  const { limit, skip } = pageOf(search, DEFAULT_LIMIT, MAX_LIMIT);
  const filters = filtersOf(search);
  const key = `${new URLSearchParams(filters)}|${limit}|${skip}`;
  const [list] = useLoad(
    (signal) =>
      getPage<Notification>('/api/notifications', {
        query: { ...Object.fromEntries(filters), limit, skip },
        signal,
      }),
    key,
  );
  const [shown, setShown] = useState<Notification>();
  const filtered = filters.length > 0;
  const rows = list.status === 'done' ? list.value.items : [];
  const refusedField = list.status === 'error' ? fieldOf(refusedParameter(list.error)) : undefined;
  const refusal = refusedField && list.status === 'error' ? { field: refusedField, message: messageOf(list.error) } : undefined;

  return (
    <>
      <h1>Notifications</h1>
      <NotificationFilters
        key={`${new URLSearchParams(filters)}|${limit}`}
        initial={draftOf(search, limit)}
        refusal={refusal}
        onApply={setSearch}
      />
      <section className="panel" aria-labelledby="notifications-title">
        <h2 id="notifications-title">
          {list.status === 'done' && rows.length > 0
            ? `Notifications ${rangeText(skip, rows.length, list.value.total)}, newest first`
            : 'Notifications, newest first'}
        </h2>
        {list.status === 'loading' && <Loading what="notifications" />}
        {list.status === 'error' &&
          (refusal ? (
            <p className="muted">Nothing is listed: the filter said above was refused. Change it and apply again.</p>
          ) : (
            <ErrorNote error={list.error} />
          ))}
        {list.status === 'done' &&
          (rows.length === 0 ? (
            <EmptyState
              title={skip > 0 ? 'No notifications on this page.' : filtered ? 'No notification matches.' : 'No notifications yet.'}
            >
              <p>
                {filtered
                  ? 'Loosen the filters, or clear them to see every notification.'
                  : 'Notifications are made by integrations with POST /api/notifications (docs/notifications.md): a message to a person about an activity, on a channel such as email.'}
              </p>
            </EmptyState>
          ) : (
            <RecordTable
              label="Notifications"
              columns={[
                { id: 'when', label: 'When', cell: (row: Notification) => <When iso={row.timestamp} /> },
                { id: 'person', label: 'Person', cell: (row) => actorText(row.actor) },
                {
                  id: 'activity',
                  label: 'Activity',
                  cell: (row) => firstOf(row.activity.definition?.name) ?? row.activity.id,
                },
                { id: 'channel', label: 'Channel', cell: (row) => row.channel },
                { id: 'content', label: 'Content', cell: (row) => <span className="records-content">{contentText(row.object)}</span> },
                {
                  id: 'json',
                  label: 'Notification',
                  cell: (row) => (
                    <Button className="secondary small" onPress={() => setShown(row)} aria-label={`JSON of notification ${row.id}`}>
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
        {list.status === 'done' && (
          <SkipPager label="Pages of notifications" search={search} skip={skip} limit={limit} hasMore={list.value.hasNext} />
        )}
      </section>
      <JsonDialog title={`Notification ${shown?.id ?? ''}`} value={shown} onClose={() => setShown(undefined)}>
        {shown && (
          <p className="muted">
            To {actorText(shown.actor)} about {firstOf(shown.activity.definition?.name) ?? shown.activity.id} by {shown.channel},{' '}
            <When iso={shown.timestamp} />
          </p>
        )}
      </JsonDialog>
    </>
  );
}

function NotificationFilters({
  initial,
  refusal,
  onApply,
}: {
  initial: Draft;
  refusal?: Refusal;
  onApply: (search: URLSearchParams) => void;
}) {
  const [draft, setDraft] = useState(initial);
  const [tried, setTried] = useState(false);
  const set = (patch: Partial<Draft>) => setDraft({ ...draft, ...patch });
  const actor = readActorId(draft.actorId);
  const since = readInstant(draft.since);
  const until = checkRange(since, readInstant(draft.until));
  const attribute: Reading =
    draft.attributeValue.trim() !== '' && draft.attributeName.trim() === ''
      ? { error: 'Name the attribute whose value this is.' }
      : { value: draft.attributeName.trim() };
  const tags: Reading =
    draft.tags.trim() !== '' && draft.tags.split(',').every((tag) => tag.trim() === '')
      ? { error: 'Write one tag or more, separated by commas.' }
      : { value: draft.tags.trim() };
  const invalid = [actor, since, until, attribute, tags].some((reading) => reading.error !== undefined);
  // The API's refusal stays beside its field until that field is changed.
  const refused = (field: keyof Draft) => (refusal?.field === field && draft[field] === initial[field] ? refusal.message : undefined);
  const shown = (reading: Reading, field: keyof Draft) => (tried ? reading.error : undefined) ?? refused(field);

  function apply() {
    setTried(true);
    if (invalid) return;
    const next = new URLSearchParams();
    if (actor.value) next.set('actorId', actor.value);
    if (draft.activityId.trim()) next.set(draft.allBut ? 'activityId!' : 'activityId', draft.activityId.trim());
    if (tags.value) next.set('activity:tags', tags.value);
    if (attribute.value) next.set(`${ATTRIBUTE}${attribute.value}`, draft.attributeValue);
    if (draft.channel.trim()) next.set('channel', draft.channel.trim());
    if (draft.query) next.set('query', draft.query);
    if (since.value) next.set('since', since.value);
    if (until.value) next.set('until', until.value);
    if (Number.isFinite(draft.limit) && draft.limit !== DEFAULT_LIMIT) next.set('limit', String(draft.limit));
    onApply(next);
  }

  return (
    <Form
      className="panel records-filters"
      aria-label="Filter notifications"
      onSubmit={(event) => {
        event.preventDefault();
        apply();
      }}
    >
      <FilterField
        label="Person"
        value={draft.actorId}
        onChange={(actorId) => set({ actorId })}
        hint="An e-mail address, or an actor id (account|https://hr.example.com|E1001)"
        error={shown(actor, 'actorId')}
        wide
      />
      <div className="records-stack">
        <FilterField
          label="Activity"
          value={draft.activityId}
          onChange={(activityId) => set({ activityId })}
          hint="The activity's id"
          error={refused('activityId')}
          wide
        />
        <Checkbox className="check" isSelected={draft.allBut} onChange={(allBut) => set({ allBut })}>
          Every activity but this one
        </Checkbox>
      </div>
      <FilterField
        label="Channel"
        value={draft.channel}
        onChange={(channel) => set({ channel })}
        hint="email, sms, push…"
        error={refused('channel')}
      />
      <TimeRangeFields
        since={draft.since}
        until={draft.until}
        onChange={set}
        errors={{ since: shown(since, 'since'), until: shown(until, 'until') }}
      />
      <PageSizeField value={draft.limit} onChange={(limit) => set({ limit })} max={MAX_LIMIT} />
      <MoreFilters
        isSet={initial.query !== '' || initial.tags !== '' || initial.attributeName !== ''}
        hasError={[shown(tags, 'tags'), shown(attribute, 'attributeName'), refused('query'), refused('attributeValue')].some(
          (error) => error !== undefined,
        )}
      >
        <FilterField
          label="Name or identifier matches"
          value={draft.query}
          onChange={(query) => set({ query })}
          hint="A regular expression: ^Ada, (?i)@example\.com$"
          error={refused('query')}
          wide
        />
        <FilterField
          label="Activity tags"
          value={draft.tags}
          onChange={(value) => set({ tags: value })}
          hint="All of them, separated by commas"
          error={shown(tags, 'tags')}
        />
        <FilterField
          label="Activity attribute"
          value={draft.attributeName}
          onChange={(attributeName) => set({ attributeName })}
          hint="Its name in the registry"
          error={shown(attribute, 'attributeName')}
        />
        <FilterField
          label="Attribute value"
          value={draft.attributeValue}
          onChange={(attributeValue) => set({ attributeValue })}
          hint="Exactly this value"
        />
      </MoreFilters>
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

/** A notification's content in a line: its subject or title when it has one, else its JSON, cut short. */
function contentText(object: Record<string, unknown>): string {
  for (const name of ['subject', 'title', 'message', 'text', 'body']) {
    if (typeof object[name] === 'string') return object[name] as string;
  }
  const json = JSON.stringify(object);
  return json.length > 120 ? `${json.slice(0, 119)}…` : json;
}
