import { useEffect, useMemo, useState } from 'react';
import {
  Button,
  Calendar,
  CalendarCell,
  CalendarGrid,
  Checkbox,
  CheckboxGroup,
  DateInput,
  DatePicker,
  DateSegment,
  type DateValue,
  Dialog,
  FieldError,
  Form,
  Group,
  Heading,
  Input,
  Label,
  Popover,
  SearchField,
  Text,
  TextField,
} from 'react-aria-components';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useAttributeNames } from '../criteria/attribute-names';
import { CriteriaBuilder } from '../criteria/criteria-builder';
import { type CriteriaModel, checkModel, emptyModel, hasErrors, readCriteriaParameter, toCriteria } from '../criteria/criteria-model';
import { count } from '../components/data-table';
import { EmptyState, ErrorNote, Loading } from '../components/notes';
import { ApiError, api } from '../lib/api';
import { type Actor, displayName } from '../lib/agent';
import { useLoad } from '../lib/use-api';
import { type Assignment, activityName, languageText, loadRegistry, type Registry, type RegistryEntry } from './learning-common';

/**
 * "Create an assignment" (POST /api/assignments): its name, activities chosen from the registry,
 * a due date, and who: the criteria builder's criteria (`people.criteria`, docs/learning.md), with
 * a preview of who they match now. Each refusal is said beside the part of the form it is about.
 */

/** Where the API's `details.problems` paths (JSON pointers) are said on the form. */
type Part = 'name' | 'activities' | 'due' | 'people' | 'form';

function partOf(path: string): Part {
  if (path.startsWith('/name')) return 'name';
  if (path.startsWith('/activityIds')) return 'activities';
  if (path.startsWith('/dueAt')) return 'due';
  if (path.startsWith('/people')) return 'people';
  return 'form';
}

/** A refusal of POST /api/assignments as words per part of the form. */
function problemsOf(error: unknown): Partial<Record<Part, string>> {
  if (!(error instanceof ApiError)) return { form: error instanceof Error ? error.message : String(error) };
  if (error.code === 'assignments.unknown_activities') return { activities: error.message };
  const problems = error.details?.problems;
  if (error.code !== 'assignments.invalid' || !Array.isArray(problems)) return { form: error.message };
  const found: Partial<Record<Part, string>> = {};
  for (const problem of problems as { path: string; message: string }[]) {
    const part = partOf(problem.path);
    found[part] = found[part] ? `${found[part]} ${problem.message}` : problem.message;
  }
  return found;
}

const TIME_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** The end of the chosen day in the admin's time zone: when the activities are due. */
function endOfDay(value: DateValue): Date {
  const end = value.toDate(TIME_ZONE);
  end.setHours(23, 59, 59, 0);
  return end;
}

export function CreateAssignment() {
  const [search] = useSearchParams();
  const navigate = useNavigate();
  const [registry] = useLoad((signal) => loadRegistry(signal), 'registry');
  // A link may bring an activity (from the activities page) and criteria (`q`, as the people page writes them).
  const reading = useMemo(() => readCriteriaParameter(search), [search]);
  const [name, setName] = useState('');
  const [activityIds, setActivityIds] = useState<string[]>(() => (search.get('activity') ? [search.get('activity')!] : []));
  const [due, setDue] = useState<DateValue | null>(null);
  const [model, setModel] = useState<CriteriaModel>(() => ('model' in reading ? reading.model : emptyModel()));
  const attributeNames = useAttributeNames(model);
  const [attempted, setAttempted] = useState(false);
  const [refused, setRefused] = useState<Partial<Record<Part, string>>>({});
  const [busy, setBusy] = useState(false);

  const criteriaProblems = checkModel(model);
  const local: Partial<Record<Part, string>> = {
    ...(name.trim() === '' ? { name: 'Give the assignment a name.' } : {}),
    ...(activityIds.length === 0 ? { activities: 'Choose at least one activity.' } : {}),
    ...(hasErrors(criteriaProblems) ? { people: 'Correct the criteria where they say so.' } : {}),
  };
  const shown = (part: Part) => (attempted ? local[part] : undefined) ?? refused[part];
  const dueEnd = due ? endOfDay(due) : undefined;

  async function create() {
    setAttempted(true);
    setRefused({});
    if (Object.keys(local).length > 0) return;
    setBusy(true);
    try {
      const created = await api<Assignment>('POST', '/api/assignments', {
        body: {
          name: name.trim(),
          activityIds,
          people: { criteria: toCriteria(model) },
          ...(dueEnd ? { dueAt: dueEnd.toISOString() } : {}),
        },
      });
      navigate(`/assignments/assignment?id=${created.id}`);
    } catch (error) {
      setRefused(problemsOf(error));
      setBusy(false);
    }
  }

  return (
    <Form
      className="create-form"
      aria-label="Create an assignment"
      validationBehavior="aria"
      onSubmit={(event) => {
        event.preventDefault();
        void create();
      }}
    >
      {'error' in reading && <ErrorNote error={new Error(`The address's criteria could not be read: ${reading.error}`)} />}
      <section className="panel" aria-labelledby="what-title">
        <h2 id="what-title">What</h2>
        <TextField value={name} onChange={setName} isInvalid={shown('name') !== undefined} isRequired className="name-field">
          <Label>Name</Label>
          <Input />
          <FieldError className="field-error">{shown('name')}</FieldError>
        </TextField>
        {registry.status === 'loading' && <Loading what="the activities" />}
        {registry.status === 'error' && <ErrorNote error={registry.error} />}
        {registry.status === 'done' && (
          <ActivityChooser registry={registry.value} value={activityIds} onChange={setActivityIds} problem={shown('activities')} />
        )}
      </section>

      <section className="panel" aria-labelledby="when-title">
        <h2 id="when-title">When</h2>
        <div className="due-row">
          <DueDate value={due} onChange={setDue} problem={shown('due')} />
          {due && (
            <Button className="secondary small" onPress={() => setDue(null)}>
              No due date
            </Button>
          )}
        </div>
        {dueEnd && dueEnd.getTime() < Date.now() && (
          <p className="warning">This day has passed: everyone who has not done the activities will be overdue at once.</p>
        )}
      </section>

      <section className="panel" aria-labelledby="who-title">
        <h2 id="who-title">Who</h2>
        <p className="muted">
          The people these criteria match, now and as they change (an import, a new job, a move): whoever comes to match joins, whoever
          stops matching leaves, keeping what they had done. No condition: everyone.
        </p>
        <CriteriaBuilder value={model} onChange={setModel} attributeNames={attributeNames} />
        {shown('people') && <ErrorNote error={new Error(shown('people'))} />}
        <Preview model={model} />
      </section>

      {refused.form && <ErrorNote error={new Error(refused.form)} />}
      <div className="actions">
        <Button type="submit" isDisabled={busy}>
          {busy ? 'Creating…' : 'Create the assignment'}
        </Button>
      </div>
    </Form>
  );
}

/** The registry in its hierarchy's order (depth-first), each entry with its depth. */
function inTreeOrder(registry: Registry): { entry: RegistryEntry; depth: number }[] {
  const ordered: { entry: RegistryEntry; depth: number }[] = [];
  const seen = new Set<string>();
  const walk = (entry: RegistryEntry, depth: number) => {
    if (seen.has(entry.id)) return;
    seen.add(entry.id);
    ordered.push({ entry, depth });
    for (const child of registry.children.get(entry.id) ?? []) walk(child, depth + 1);
  };
  for (const root of registry.roots) walk(root, 0);
  return ordered;
}

function ActivityChooser({
  registry,
  value,
  onChange,
  problem,
}: {
  registry: Registry;
  value: string[];
  onChange: (ids: string[]) => void;
  problem?: string;
}) {
  const [filter, setFilter] = useState('');
  const ordered = useMemo(() => inTreeOrder(registry), [registry]);
  const needle = filter.trim().toLowerCase();
  const shown = ordered.filter(
    ({ entry }) =>
      needle === '' ||
      entry.id.toLowerCase().includes(needle) ||
      (languageText(entry.definition.name) ?? '').toLowerCase().includes(needle) ||
      entry.tags.some((tag) => tag.toLowerCase() === needle),
  );
  if (registry.entries.length === 0) {
    return (
      <EmptyState title="The registry has no activities to assign.">
        <p>
          Register them first with <code>PUT /api/activities</code> (docs/activities.md); the <Link to="/activities">activities</Link> page
          then shows them.
        </p>
      </EmptyState>
    );
  }
  return (
    <>
      <SearchField value={filter} onChange={setFilter} className="activity-search">
        <Label>Find activities by name, id or tag</Label>
        <div className="search-box">
          <Input spellCheck={false} />
          <Button className="search-clear" aria-label="Clear the search">
            ×
          </Button>
        </div>
      </SearchField>
      <CheckboxGroup value={value} onChange={onChange} isInvalid={problem !== undefined}>
        <Label className="field-label">Activities</Label>
        <div className="activity-choices">
          {shown.length === 0 && <p className="muted">No activity matches “{filter}”.</p>}
          {shown.map(({ entry, depth }) => (
            <Checkbox key={entry.id} value={entry.id} className={`check choice depth-${Math.min(depth, 4)}`}>
              <span>
                {languageText(entry.definition.name) ?? entry.id}
                <span className="option-detail">
                  {languageText(entry.definition.name) && entry.id}
                  {entry.tags.length > 0 && ` · ${entry.tags.join(', ')}`}
                </span>
              </span>
            </Checkbox>
          ))}
        </div>
        <FieldError className="field-error">{problem}</FieldError>
      </CheckboxGroup>
      <p className="chosen-count muted" aria-live="polite">
        {value.length === 0
          ? 'No activity chosen yet.'
          : `${count(value.length)} chosen: ${value.map((id) => activityName(id, registry)).join(', ')}.`}
      </p>
    </>
  );
}

function DueDate({ value, onChange, problem }: { value: DateValue | null; onChange: (value: DateValue | null) => void; problem?: string }) {
  return (
    <DatePicker value={value} onChange={onChange} granularity="day" isInvalid={problem !== undefined} className="due-picker">
      <Label className="field-label">Due date</Label>
      <Group className="date-group">
        <DateInput className="date-input">{(segment) => <DateSegment segment={segment} className="date-segment" />}</DateInput>
        <Button className="date-button">
          <span aria-hidden="true">▾</span>
        </Button>
      </Group>
      <Text slot="description" className="muted">
        Optional: due by the end of that day ({TIME_ZONE} time).
      </Text>
      <FieldError className="field-error">{problem}</FieldError>
      <Popover className="calendar-popover">
        <Dialog className="calendar-dialog" aria-label="Choose the due date">
          <Calendar>
            <header className="calendar-head">
              <Button slot="previous" aria-label="Previous month">
                ‹
              </Button>
              <Heading />
              <Button slot="next" aria-label="Next month">
                ›
              </Button>
            </header>
            <CalendarGrid>{(date) => <CalendarCell date={date} className="calendar-cell" />}</CalendarGrid>
          </Calendar>
        </Dialog>
      </Popover>
    </DatePicker>
  );
}

const PREVIEW_NAMES = 5;

/**
 * Who the criteria match now: the actor search's total and the first names, asked again a moment
 * after the criteria stop changing. The search counts every actor; the assignment takes the people
 * among them (not agents known from statements only, nor groups), so it may take fewer.
 */
function Preview({ model }: { model: CriteriaModel }) {
  const valid = !hasErrors(checkModel(model));
  const criteria = JSON.stringify(toCriteria(model));
  const [state, setState] = useState<
    { status: 'waiting' } | { status: 'done'; actors: Actor[]; total: number } | { status: 'error'; error: unknown }
  >({ status: 'waiting' });
  useEffect(() => {
    if (!valid) return;
    const controller = new AbortController();
    setState({ status: 'waiting' });
    const timer = setTimeout(() => {
      api<{ actors: Actor[]; total: number }>('POST', '/api/actors/search', {
        body: { criteria: JSON.parse(criteria) },
        query: { limit: PREVIEW_NAMES },
        signal: controller.signal,
      })
        .then((answer) => setState({ status: 'done', ...answer }))
        .catch((error: unknown) => !controller.signal.aborted && setState({ status: 'error', error }));
    }, 400);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [criteria, valid]);

  return (
    <section className="note preview" aria-labelledby="preview-title">
      <h3 id="preview-title">Who matches now</h3>
      <div aria-live="polite" data-testid="preview">
        {!valid ? (
          <p>Correct the criteria to see who they match.</p>
        ) : state.status === 'waiting' ? (
          <p className="muted">Counting…</p>
        ) : state.status === 'error' ? (
          <ErrorNote error={state.error} />
        ) : state.total === 0 ? (
          <p>Nobody matches yet: the assignment will take people in as they come to match.</p>
        ) : (
          <p>
            <strong>
              {count(state.total)} {state.total === 1 ? 'person matches' : 'people match'}
            </strong>
            : {state.actors.map((actor) => displayName(actor)).join(', ')}
            {state.total > state.actors.length && ` and ${count(state.total - state.actors.length)} more`}.
          </p>
        )}
      </div>
      <p className="muted">Agents known only from statements are counted here but not assigned.</p>
    </section>
  );
}
