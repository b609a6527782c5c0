import { useState } from 'react';
import { Button, Form, Input, Label, Tab, TabList, TabPanel, Tabs, TextArea, TextField } from 'react-aria-components';
import { useSearchParams } from 'react-router';
import { type CredentialKind, CredentialSection } from '../components/credentials';
import { apiUrl } from '../lib/api';
import { useSession } from '../lib/session';
import { Connections } from '../sso/connections';

interface ApiKey {
  key: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  scope: string | null;
}
interface OAuthClient {
  clientId: string;
  name: string;
  redirectUris: string[];
  createdAt: string;
}
interface Admin {
  id: string;
  email: string;
  scope: string | null;
  createdAt: string;
  lockedUntil: string | null;
  connection: string | null;
}
interface ScimToken {
  id: string;
  createdAt: string;
  revokedAt: string | null;
}
interface HrWebhook {
  id: string;
  url: string;
  createdAt: string;
  revokedAt: string | null;
}

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString('en-GB') : '—');
const text = (value: unknown) => String(value ?? '');

const API_KEYS: CredentialKind<ApiKey> = {
  title: 'API keys',
  one: 'an API key',
  explanation: 'An integration sends its key and secret as HTTP Basic credentials. Revoked keys are refused at once.',
  path: '/api/api-keys',
  columns: [
    { id: 'key', label: 'Key', cell: (row) => <code>{row.key}</code> },
    { id: 'created', label: 'Created', cell: (row) => when(row.createdAt) },
    { id: 'used', label: 'Last used', cell: (row) => when(row.lastUsedAt) },
    { id: 'scope', label: 'Limited to', cell: (row) => row.scope ?? 'whole organisation' },
  ],
  keyOf: (row) => row.key,
  live: (row) => row.revokedAt === null,
  removePath: (row) => `/api/api-keys/${encodeURIComponent(row.key)}`,
  removeWord: 'Revoke',
  removeWarning: (row) => `${row.key} stops working at once, in every server process. This cannot be undone.`,
  secretsOf: (created) => [
    { label: 'Key', value: text(created.key) },
    { label: 'Secret', value: text(created.secret) },
  ],
};

const CLIENTS: CredentialKind<OAuthClient> = {
  title: 'OAuth clients',
  one: 'an OAuth client',
  explanation: 'An integration that acts for an admin signs them in through the sign-in page and calls the API with their tokens.',
  path: '/api/oauth-clients',
  columns: [
    { id: 'name', label: 'Name', cell: (row) => row.name },
    { id: 'id', label: 'Client id', cell: (row) => <code>{row.clientId}</code> },
    { id: 'uris', label: 'Redirect URIs', cell: (row) => row.redirectUris.join(' ') },
    { id: 'created', label: 'Created', cell: (row) => when(row.createdAt) },
  ],
  keyOf: (row) => row.clientId,
  live: () => true,
  removePath: (row) => `/api/oauth-clients/${encodeURIComponent(row.clientId)}`,
  removeWord: 'Delete',
  removeWarning: (row) => `${row.name} and every token issued to it stop working at once.`,
  secretsOf: (created) => [
    { label: 'Client id', value: text(created.clientId) },
    { label: 'Client secret', value: text(created.clientSecret) },
  ],
  form: (create, busy) => <ClientForm create={create} busy={busy} />,
};

const ADMINS: CredentialKind<Admin> = {
  title: 'Admins',
  one: 'an admin',
  explanation:
    'People who sign in to this console and the API with a password or through single sign-on, of the whole organisation or of a part of it.',
  path: '/api/admins',
  columns: [
    { id: 'email', label: 'E-mail', cell: (row) => row.email },
    { id: 'scope', label: 'Limited to', cell: (row) => row.scope ?? 'whole organisation' },
    { id: 'how', label: 'Signs in', cell: (row) => (row.connection ? `through ${row.connection}` : 'with a password') },
    { id: 'locked', label: 'Locked until', cell: (row) => when(row.lockedUntil) },
  ],
  keyOf: (row) => row.email,
  live: () => true,
  removePath: (row) => `/api/admins/${encodeURIComponent(row.id)}`,
  removeWord: 'Delete',
  removeWarning: (row) => `${row.email} is signed out everywhere at once and can no longer sign in.`,
  form: (create, busy) => <AdminForm create={create} busy={busy} />,
};

const SCIM_TOKENS: CredentialKind<ScimToken> = {
  title: 'SCIM tokens',
  one: 'a SCIM token',
  explanation: 'An identity provider (Okta, Entra ID) sends its token to /scim/v2/ to create, update and deactivate people.',
  path: '/api/scim-tokens',
  columns: [
    { id: 'id', label: 'Token id', cell: (row) => <code>{row.id}</code> },
    { id: 'created', label: 'Created', cell: (row) => when(row.createdAt) },
  ],
  keyOf: (row) => row.id,
  live: (row) => row.revokedAt === null,
  removePath: (row) => `/api/scim-tokens/${encodeURIComponent(row.id)}`,
  removeWord: 'Revoke',
  removeWarning: (row) => `The identity provider's next request with ${row.id} is refused.`,
  secretsOf: (created) => [
    { label: 'Base URL', value: new URL('scim/v2/', apiUrl('/')).toString() },
    { label: 'Token', value: text(created.token) },
  ],
};

const HR_WEBHOOKS: CredentialKind<HrWebhook> = {
  title: 'HR webhooks',
  one: 'an HR webhook',
  explanation: 'An HR system posts joiners, movers and leavers to its endpoint, signed with its secret (Standard Webhooks).',
  path: '/api/hr-webhooks',
  columns: [
    { id: 'url', label: 'Endpoint', cell: (row) => <code>{row.url}</code> },
    { id: 'created', label: 'Created', cell: (row) => when(row.createdAt) },
  ],
  keyOf: (row) => row.id,
  live: (row) => row.revokedAt === null,
  removePath: (row) => `/api/hr-webhooks/${encodeURIComponent(row.id)}`,
  removeWord: 'Revoke',
  removeWarning: () => 'Its next message is refused; those stored already are still applied.',
  secretsOf: (created) => [
    { label: 'Endpoint', value: text(created.url) },
    { label: 'Signing secret', value: text(created.secret) },
  ],
};

const SECTIONS = [
  { id: 'keys', label: 'API keys' },
  { id: 'clients', label: 'OAuth clients' },
  { id: 'admins', label: 'Admins' },
  { id: 'sso', label: 'Single sign-on' },
  { id: 'scim', label: 'SCIM' },
  { id: 'hr', label: 'HR webhooks' },
] as const;

/**
 * Access: who and what may reach the tenant: API keys, OAuth clients, admins, single sign-on
 * connections, SCIM tokens and HR webhooks. Each is created with its secret shown once and revoked
 * or deleted after a confirmation. An admin limited to an organisation subtree manages none of them:
 * the API refuses, and the page says so in its words. The section is the address (`?section=admins`).
 */
export default function AccessPage() {
  const session = useSession();
  const [search, setSearch] = useSearchParams();
  const section = SECTIONS.find((candidate) => candidate.id === search.get('section'))?.id ?? 'keys';
  const canManage = !session.admin.scope;
  return (
    <>
      <h1>Access</h1>
      <Tabs selectedKey={section} onSelectionChange={(key) => setSearch(key === 'keys' ? {} : { section: String(key) })}>
        <TabList aria-label="Access" className="tabs">
          {SECTIONS.map((candidate) => (
            <Tab key={candidate.id} id={candidate.id}>
              {candidate.label}
            </Tab>
          ))}
        </TabList>
        <TabPanel id="keys">
          <CredentialSection kind={API_KEYS} canManage={canManage} />
        </TabPanel>
        <TabPanel id="clients">
          <CredentialSection kind={CLIENTS} canManage={canManage} />
        </TabPanel>
        <TabPanel id="admins">
          <CredentialSection kind={ADMINS} canManage={canManage} />
        </TabPanel>
        <TabPanel id="sso">
          <Connections canManage={canManage} />
        </TabPanel>
        <TabPanel id="scim">
          <CredentialSection kind={SCIM_TOKENS} canManage={canManage} />
        </TabPanel>
        <TabPanel id="hr">
          <CredentialSection kind={HR_WEBHOOKS} canManage={canManage} />
        </TabPanel>
      </Tabs>
    </>
  );
}

function ClientForm({ create, busy }: { create: (body: unknown) => Promise<void>; busy: boolean }) {
  const [name, setName] = useState('');
  const [uris, setUris] = useState('');
  return (
    <Form
      className="filters"
      onSubmit={(event) => {
        event.preventDefault();
        void create({ name: name.trim() || undefined, redirectUris: uris.split(/\s+/).filter(Boolean) });
      }}
    >
      <TextField value={name} onChange={setName}>
        <Label>Name</Label>
        <Input />
      </TextField>
      <TextField value={uris} onChange={setUris} isRequired>
        <Label>Redirect URIs (one per line)</Label>
        <TextArea rows={2} spellCheck={false} />
      </TextField>
      <Button type="submit" isDisabled={busy}>
        Create an OAuth client
      </Button>
    </Form>
  );
}

function AdminForm({ create, busy }: { create: (body: unknown) => Promise<void>; busy: boolean }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [scope, setScope] = useState('');
  return (
    <Form
      className="filters"
      onSubmit={(event) => {
        event.preventDefault();
        void create({ email: email.trim(), password, ...(scope.trim() ? { scope: scope.trim() } : {}) });
      }}
    >
      <TextField value={email} onChange={setEmail} type="email" isRequired>
        <Label>E-mail</Label>
        <Input autoComplete="off" />
      </TextField>
      <TextField value={password} onChange={setPassword} type="password" isRequired minLength={12}>
        <Label>Password (12 characters or more)</Label>
        <Input autoComplete="new-password" />
      </TextField>
      <TextField value={scope} onChange={setScope}>
        <Label>Limited to the organisation entry (optional)</Label>
        <Input spellCheck={false} />
      </TextField>
      <Button type="submit" isDisabled={busy}>
        Create an admin
      </Button>
    </Form>
  );
}
