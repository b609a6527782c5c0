import { useState } from 'react';
import { Button, Form } from 'react-aria-components';
import { Link, useSearchParams } from 'react-router';
import { useAttributeNames } from '../criteria/attribute-names';
import { CriteriaBuilder } from '../criteria/criteria-builder';
import {
  checkModel,
  type CriteriaModel,
  emptyModel,
  hasErrors,
  readCriteriaParameter,
  toCriteria,
  withCriteriaParameter,
} from '../criteria/criteria-model';
import { count, DataTable } from '../components/data-table';
import { EmptyState, ErrorNote, Loading } from '../components/notes';
import { api } from '../lib/api';
import { type Actor, displayName, identifierText, ifiOf, jobOf, organisationOf } from '../lib/agent';
import { useLoad } from '../lib/use-api';

const PAGE_SIZE = 50;

/**
 * People: the actor search (POST /api/actors/search) with its criteria built visually, a page of 50
 * at a time with the total. The criteria and the page are the address (`?q=…&skip=…`), so a reload
 * or a shared link shows the same people; a person opens on their own page.
 */
export default function PeoplePage() {
  const [search, setSearch] = useSearchParams();
  const reading = readCriteriaParameter(search);
  const applied = 'model' in reading ? reading.model : emptyModel();
  const skip = Math.max(0, Number.parseInt(search.get('skip') ?? '0', 10) || 0);
  const [draft, setDraft] = useState<CriteriaModel>(applied);
  const criteria = toCriteria(applied);
  const [people] = useLoad(
    (signal) =>
      api<{ actors: Actor[]; total: number }>('POST', '/api/actors/search', {
        body: { criteria },
        query: { limit: PAGE_SIZE, skip },
        signal,
      }),
    `${JSON.stringify(criteria)}|${skip}`,
  );
  // The people come first: the embedded database answers one request at a time.
  const attributeNames = useAttributeNames(draft, people.status !== 'loading');
  const problems = checkModel(draft);

  function apply(model: CriteriaModel, from = 0) {
    const next = withCriteriaParameter(new URLSearchParams(), model);
    if (from > 0) next.set('skip', String(from));
    setSearch(next);
  }

  return (
    <>
      <h1>People</h1>
      {'error' in reading && <ErrorNote error={new Error(`The address's search could not be read: ${reading.error}`)} />}
      <Form
        className="panel"
        aria-label="Find people"
        onSubmit={(event) => {
          event.preventDefault();
          if (!hasErrors(problems)) apply(draft);
        }}
      >
        <CriteriaBuilder value={draft} onChange={setDraft} attributeNames={attributeNames} />
        <div className="actions">
          <Button type="submit" isDisabled={hasErrors(problems)}>
            Search
          </Button>
          <Button
            className="secondary"
            onPress={() => {
              setDraft(emptyModel());
              apply(emptyModel());
            }}
          >
            Everyone
          </Button>
        </div>
      </Form>

      <section className="panel" aria-labelledby="results-title">
        {people.status === 'loading' && <Loading what="people" />}
        {people.status === 'error' && <ErrorNote error={people.error} />}
        {people.status === 'done' && (
          <>
            <h2 id="results-title" aria-live="polite">
              {count(people.value.total)} {people.value.total === 1 ? 'person' : 'people'}
              {people.value.total > PAGE_SIZE && `, ${skip + 1} to ${Math.min(skip + PAGE_SIZE, people.value.total)} shown`}
            </h2>
            {people.value.actors.length === 0 ? (
              <EmptyState title={skip > 0 ? 'No people on this page.' : 'Nobody matches.'}>
                <p>Loosen the search, or import people with PUT /api/import/users (docs/imports.md).</p>
              </EmptyState>
            ) : (
              <DataTable
                label="People found"
                columns={[
                  {
                    id: 'name',
                    label: 'Name',
                    cell: (actor: Actor) => (
                      <Link to={`/people/person?${new URLSearchParams({ agent: JSON.stringify(ifiOf(actor)) })}`}>
                        {displayName(actor)}
                      </Link>
                    ),
                  },
                  { id: 'id', label: 'Identifier', cell: (actor) => identifierText(actor) },
                  { id: 'position', label: 'Position', cell: (actor) => organisationOf(actor)?.id ?? '—' },
                  { id: 'job', label: 'Job', cell: (actor) => jobOf(actor)?.name ?? jobOf(actor)?.id ?? '—' },
                ]}
                rows={people.value.actors}
                rowKey={(actor) => JSON.stringify(ifiOf(actor))}
              />
            )}
            <nav className="pager" aria-label="Pages of people">
              <Button className="secondary" isDisabled={skip === 0} onPress={() => apply(applied, Math.max(0, skip - PAGE_SIZE))}>
                Previous
              </Button>
              <Button
                className="secondary"
                isDisabled={skip + PAGE_SIZE >= people.value.total}
                onPress={() => apply(applied, skip + PAGE_SIZE)}
              >
                Next
              </Button>
            </nav>
          </>
        )}
      </section>
    </>
  );
}
