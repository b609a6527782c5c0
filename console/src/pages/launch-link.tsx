import { useEffect, useState } from 'react';
import { Button, Form, Input, Label, Text, TextField } from 'react-aria-components';
import { count } from '../components/data-table';
import { ErrorNote } from '../components/notes';
import { SearchPicker } from '../components/search-picker';
import { api, getPage } from '../lib/api';
import { type Actor, displayName, identifierText, ifiOf } from '../lib/agent';
import { useSession } from '../lib/session';
import { day, languageText, type RegistryEntry } from './learning-common';

/** 32 random bytes as hex, or as base64url: a credential's username and password. */
function randomText(bytes: number, form: 'hex' | 'base64url'): string {
  const values = crypto.getRandomValues(new Uint8Array(bytes));
  if (form === 'hex') return [...values].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  return btoa(String.fromCharCode(...values))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

interface IssuedLink {
  link: string;
  learner: string;
  username: string;
  expiresAt: string;
}

/**
 * A launch link for one learner (docs/provisioning.md): a learner credential of their own
 * (POST /api/auth/basic, a fresh random username and password) in the link's `auth`. The link
 * is on the organisation's own address ({tenant}.{base domain}, which the session gives), so a
 * browser opening it names the organisation by its host, wherever the console was opened. On an
 * activity's page the learner is picked (`entry` given); on a person's page the activity is
 * (`learner` given).
 */
export function LaunchLink({
  entry: fixedEntry,
  learner,
  onIssued,
}: { entry: RegistryEntry; learner?: undefined; onIssued?: () => void } | { entry?: undefined; learner: Actor; onIssued?: () => void }) {
  const session = useSession();
  const [pickedPerson, setPerson] = useState<Actor>();
  const [pickedEntry, setEntry] = useState<RegistryEntry>();
  const person = learner ?? pickedPerson;
  const entry = fixedEntry ?? pickedEntry;
  const [issued, setIssued] = useState<IssuedLink>();
  const [failure, setFailure] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [copied, setCopied] = useState('');

  async function create() {
    if (!person || !entry) return;
    setBusy(true);
    setFailure(undefined);
    setCopied('');
    try {
      const username = randomText(16, 'hex');
      const password = randomText(24, 'base64url');
      const credential = await api<{ username: string; actor: Actor; expiresAt: string }>('POST', '/api/auth/basic', {
        body: { username, password, data: { actor: ifiOf(person) } },
        headers: { 'svc-account-source': 'learnbase console' },
      });
      const auth = `Basic ${btoa(`${username}:${password}`)}`;
      // On the organisation's own address: a browser opening the link names the organisation by its host.
      const link = new URL('api/activities/launch', session.tenant.address);
      link.search = `activityId=${encodeURIComponent(entry.id)}&auth=${encodeURIComponent(auth)}`;
      setIssued({ link: link.href, learner: displayName(credential.actor), username, expiresAt: credential.expiresAt });
      onIssued?.();
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(false);
    }
  }

  async function copy(link: string) {
    try {
      await navigator.clipboard.writeText(link);
      setCopied('The link is copied.');
    } catch {
      setCopied('The browser did not let the page copy: select the link and copy it.');
    }
  }

  return (
    <Form
      className="launch"
      aria-labelledby="launch-title"
      onSubmit={(event) => {
        event.preventDefault();
        void create();
      }}
    >
      <h3 id="launch-title">{learner ? `A launch link for ${displayName(learner)}` : 'A launch link for a learner'}</h3>
      <p className="muted">
        The link opens the content as this learner: it holds a learner credential made for them, so hand it to them only.
      </p>
      {learner ? <ActivityPicker onChange={setEntry} /> : <PersonPicker onChange={setPerson} />}
      <Button type="submit" isDisabled={!person || !entry || busy}>
        {busy ? 'Making the link…' : 'Make a launch link'}
      </Button>
      <ErrorNote error={failure} />
      {issued && (
        <div className="issued" aria-live="polite">
          <TextField isReadOnly value={issued.link} className="link-field">
            <Label>Launch link for {issued.learner}</Label>
            <Input onFocus={(event) => event.currentTarget.select()} />
            <Text slot="description" className="muted">
              Works until {day(issued.expiresAt)}, when its credential ({issued.username.slice(0, 8)}…) expires; revoke it sooner among the
              person’s learner credentials.
            </Text>
          </TextField>
          <div className="actions">
            <Button className="secondary" onPress={() => void copy(issued.link)}>
              Copy the link
            </Button>
          </div>
          <p className="muted" role="status">
            {copied}
          </p>
        </div>
      )}
    </Form>
  );
}

/** The search behind the learner picker: agents whose name, e-mail address or account name holds what was typed. */
function personCriteria(typed: string) {
  const capitalised = typed.charAt(0).toUpperCase() + typed.slice(1);
  const names = [...new Set([typed, capitalised])].map((value) => ({ field: 'name', op: 'contains', value }));
  return {
    and: [
      { field: 'objectType', op: 'eq', value: 'Agent' },
      {
        or: [
          ...names,
          { field: 'mbox', op: 'contains', value: typed.toLowerCase() },
          { field: 'attributes.email', op: 'contains', value: typed.toLowerCase() },
          { field: 'account.name', op: 'eq', value: typed },
        ],
      },
    ],
  };
}

/** A search picker of the people whose name or e-mail address holds what is typed (the actor search, 10 at a time). */
function PersonPicker({ onChange }: { onChange: (person: Actor | undefined) => void }) {
  const [typed, setTyped] = useState('');
  const [found, setFound] = useState<{ actors: Actor[]; total: number }>({ actors: [], total: 0 });
  /** What the people found were searched for. */
  const [searched, setSearched] = useState('');
  const [failure, setFailure] = useState<unknown>();
  useEffect(() => {
    const words = typed.trim();
    if (words === '') {
      setFound({ actors: [], total: 0 });
      return;
    }
    const controller = new AbortController();
    const timer = setTimeout(() => {
      api<{ actors: Actor[]; total: number }>('POST', '/api/actors/search', {
        body: { criteria: personCriteria(words) },
        query: { limit: 10 },
        signal: controller.signal,
      })
        .then((answer) => {
          setFailure(undefined);
          setFound(answer);
          setSearched(words);
        })
        .catch((error: unknown) => !controller.signal.aborted && setFailure(error));
    }, 250);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [typed]);
  return (
    <SearchPicker
      label="Learner"
      typed={typed}
      onTypedChange={setTyped}
      options={found.actors}
      keyOf={(actor) => JSON.stringify(ifiOf(actor))}
      nameOf={displayName}
      renderOption={(actor) => (
        <>
          {displayName(actor)} <span className="option-detail">{identifierText(actor)}</span>
        </>
      )}
      onChange={onChange}
      menuTrigger="input"
      description={
        <>
          Type part of their name, their e-mail address or their account name, then pick them.
          {found.total > found.actors.length && ` The first ${found.actors.length} of ${count(found.total)} shown: type more.`}
        </>
      }
      emptyState={searched === typed.trim() ? 'Nobody found.' : 'Searching…'}
      error={failure}
    />
  );
}

/** How many activities the picker offers at once: typing narrows them. */
const SHOWN = 20;

/**
 * A search picker of the registry's activities: what is typed is the API's search (`q`: a text in
 * the id, a name or a description, in any language), asked once the typing pauses, 20 at a time
 * with how many match in all. Those without a launch URL are shown but cannot be picked.
 */
function ActivityPicker({ onChange }: { onChange: (entry: RegistryEntry | undefined) => void }) {
  const [typed, setTyped] = useState('');
  const [found, setFound] = useState<{ entries: RegistryEntry[]; total: number; searched: string }>();
  const [failure, setFailure] = useState<unknown>();
  useEffect(() => {
    const words = typed.trim();
    const controller = new AbortController();
    const timer = setTimeout(
      () => {
        getPage<RegistryEntry>('/api/activities', { query: { q: words || undefined, limit: SHOWN }, signal: controller.signal })
          .then((page) => {
            setFailure(undefined);
            setFound({ entries: page.items, total: page.total ?? page.items.length, searched: words });
          })
          .catch((error: unknown) => !controller.signal.aborted && setFailure(error));
      },
      words === '' ? 0 : 250,
    );
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [typed]);
  const nameOf = (entry: RegistryEntry) => languageText(entry.definition.name) ?? entry.id;
  return (
    <SearchPicker
      label="Activity"
      typed={typed}
      onTypedChange={setTyped}
      options={found?.entries ?? []}
      keyOf={(entry) => entry.id}
      nameOf={nameOf}
      isDisabled={(entry) => !entry.launchUrl}
      renderOption={(entry) => (
        <>
          {nameOf(entry)}{' '}
          <span className="option-detail">
            {entry.id}
            {!entry.launchUrl && ' · no launch URL: it cannot be launched'}
          </span>
        </>
      )}
      onChange={onChange}
      menuTrigger="focus"
      description={
        found === undefined
          ? 'Reading the registry…'
          : found.searched === '' && found.total === 0
            ? 'No activity is registered: register one, with its launch URL, on the activities page.'
            : `Type a word of its name, id or description, then pick it.${
                found.total > found.entries.length ? ` The first ${found.entries.length} of ${count(found.total)} shown: type more.` : ''
              }`
      }
      emptyState={found?.searched === typed.trim() ? 'No activity matches.' : 'Searching…'}
      error={failure}
    />
  );
}
