import { useEffect, useRef, useState } from 'react';
import { Button } from 'react-aria-components';
import { ConfirmDialog } from '../components/confirm-dialog';
import { DataTable } from '../components/data-table';
import { EmptyState, ErrorNote, Loading } from '../components/notes';
import { api, apiUrl } from '../lib/api';
import { useSession } from '../lib/session';
import { useLoad } from '../lib/use-api';
import { ConnectionEditor } from './connection-form';
import { type ConnectionForm, type ConnectionView, emptyForm, formOfConnection } from './connection-model';
import './connections.css';

type Editing = { initial: ConnectionForm; editing: boolean };
/** The last thing done, said above the list: a connection saved (what to give its provider), or its metadata read again. */
type Done =
  | { kind: 'saved'; connection: ConnectionView; created: boolean }
  | { kind: 'refreshed'; connection: ConnectionView; changed: string[] };

const metadataPath = (name: string) => `/api/sso/connections/${encodeURIComponent(name)}/metadata`;

/**
 * Single sign-on connections (docs/identity.md, "Single sign-on"): listed with what to give each
 * provider; created, edited (a PUT replaces the whole connection), deleted after a confirmation (the
 * admins it made with it), and a SAML provider's metadata URL read again at once. An admin limited
 * to an organisation subtree manages none: the API refuses the list, and the page offers nothing.
 */
export function Connections({ canManage }: { canManage: boolean }) {
  const session = useSession();
  const [connections, reload] = useLoad((signal) => api<ConnectionView[]>('GET', '/api/sso/connections', { signal }), 'sso');
  const [editing, setEditing] = useState<Editing>();
  const [done, setDone] = useState<Done>();
  const [removing, setRemoving] = useState<ConnectionView>();
  const [failure, setFailure] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const doneRef = useRef<HTMLDivElement>(null);
  // A saved connection's note takes the focus, so that what to give its provider is read next.
  useEffect(() => {
    if (done?.kind === 'saved') doneRef.current?.focus();
  }, [done]);
  const names = connections.status === 'done' ? connections.value.map((connection) => connection.name) : [];

  function open(next: Editing) {
    setDone(undefined);
    setFailure(undefined);
    setEditing(next);
  }

  async function act(action: () => Promise<void>) {
    setBusy(true);
    setFailure(undefined);
    setDone(undefined);
    try {
      await action();
      reload();
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(false);
    }
  }

  const refresh = (connection: ConnectionView) =>
    act(async () => {
      const answer = await api<{ connection: ConnectionView; changed: string[] }>(
        'POST',
        `/api/sso/connections/${encodeURIComponent(connection.name)}/refresh`,
      );
      setDone({ kind: 'refreshed', ...answer });
    });

  const remove = (connection: ConnectionView) =>
    act(async () => {
      await api('DELETE', `/api/sso/connections/${encodeURIComponent(connection.name)}`);
      setRemoving(undefined);
    });

  return (
    <section className="panel" aria-labelledby="sso-title">
      <div className="page-head">
        <h2 id="sso-title">Single sign-on</h2>
        {canManage && !editing && connections.status === 'done' && (
          <Button onPress={() => open({ initial: emptyForm(), editing: false })}>Create a connection</Button>
        )}
      </div>
      <p className="muted">
        Admins and people sign in through the organisation's identity provider, over OpenID Connect or SAML 2.0 (docs/identity.md, "Single
        sign-on"). Each connection says what to register at its provider.
      </p>

      {done && (
        <div className="note" role="status" ref={doneRef} tabIndex={-1}>
          {done.kind === 'saved' ? (
            <>
              <p>
                <strong>
                  {done.created ? 'Created' : 'Saved'} the connection {done.connection.name}.
                </strong>{' '}
                Give its provider:
              </p>
              <ForTheProvider connection={done.connection} />
            </>
          ) : (
            <p>
              The metadata of {done.connection.name} was read again:{' '}
              {done.changed.length === 0 ? 'the provider describes itself as before.' : `its ${done.changed.join(' and ')} changed.`}
            </p>
          )}
        </div>
      )}
      {!removing && <ErrorNote error={failure} />}

      {editing && (
        <ConnectionEditor
          key={editing.initial.name || 'new'}
          initial={editing.initial}
          editing={editing.editing}
          tenant={session.tenant.name}
          existingNames={names}
          onCancel={() => setEditing(undefined)}
          onSaved={(connection, created) => {
            setEditing(undefined);
            setDone({ kind: 'saved', connection, created });
            reload();
          }}
        />
      )}

      {connections.status === 'loading' && <Loading what="the connections" />}
      {connections.status === 'error' && <ErrorNote error={connections.error} />}
      {connections.status === 'done' &&
        (connections.value.length === 0 ? (
          <EmptyState title="No single sign-on connection yet.">
            {canManage && <p>Create one for the organisation's identity provider: its sign-in buttons then appear on the sign-in page.</p>}
          </EmptyState>
        ) : (
          <DataTable
            label="Single sign-on connections"
            columns={[
              { id: 'name', label: 'Name', cell: (row: ConnectionView) => row.name },
              { id: 'button', label: 'Sign-in button', cell: (row) => `Sign in with ${row.displayName}` },
              { id: 'protocol', label: 'Protocol', cell: (row) => <Protocol connection={row} /> },
              {
                id: 'provider',
                label: 'For the provider',
                cell: (row) =>
                  row.protocol === 'saml' ? (
                    <a href={apiUrl(metadataPath(row.name)).toString()}>Service provider metadata</a>
                  ) : (
                    <code>{row.redirectUri}</code>
                  ),
              },
              ...(canManage
                ? [
                    {
                      id: 'actions',
                      label: 'Actions',
                      cell: (row: ConnectionView) => (
                        <div className="actions">
                          <Button
                            className="secondary small"
                            aria-label={`Edit ${row.name}`}
                            onPress={() => open({ initial: formOfConnection(row), editing: true })}
                          >
                            Edit
                          </Button>
                          {row.metadataUrl !== undefined && (
                            <Button
                              className="secondary small"
                              isDisabled={busy}
                              aria-label={`Refresh metadata of ${row.name}`}
                              onPress={() => void refresh(row)}
                            >
                              Refresh metadata
                            </Button>
                          )}
                          <Button className="secondary small" aria-label={`Delete ${row.name}`} onPress={() => setRemoving(row)}>
                            Delete
                          </Button>
                        </div>
                      ),
                    },
                  ]
                : []),
            ]}
            rows={connections.value}
            rowKey={(row) => row.name}
          />
        ))}

      <ConfirmDialog
        isOpen={removing !== undefined}
        onClose={() => {
          setRemoving(undefined);
          setFailure(undefined);
        }}
        title={<>Delete the connection {removing?.name}?</>}
        error={failure}
        confirmLabel="Delete"
        onConfirm={() => removing && void remove(removing)}
        busy={busy}
      >
        Nobody can sign in with {removing?.displayName} any more. The admins it made are deleted with it, in the same step: signed out
        everywhere at once, their tokens refused. People it made stay. This cannot be undone.
      </ConfirmDialog>
    </section>
  );
}

function Protocol({ connection }: { connection: ConnectionView }) {
  if (connection.protocol === 'oidc') return <>OpenID Connect</>;
  return (
    <>
      SAML 2.0
      {connection.metadataUrl !== undefined && <span className="muted"> (metadata from its URL)</span>}
      {connection.metadataProblem && <span className="problem">Last reading changed nothing: {connection.metadataProblem}</span>}
    </>
  );
}

/** What to register at the provider (docs/identity.md, "At the provider"). */
function ForTheProvider({ connection }: { connection: ConnectionView }) {
  if (connection.protocol === 'oidc') {
    return (
      <dl className="facts">
        <div>
          <dt>Redirect URI</dt>
          <dd>
            <code data-testid="sso-redirect-uri">{connection.redirectUri}</code>
          </dd>
        </div>
      </dl>
    );
  }
  return (
    <dl className="facts">
      <div>
        <dt>Assertion Consumer Service (Reply URL, HTTP-POST)</dt>
        <dd>
          <code data-testid="sso-acs-url">{connection.acsUrl}</code>
        </dd>
      </div>
      <div>
        <dt>Entity ID (Identifier)</dt>
        <dd>
          <code data-testid="sso-sp-entity-id">{connection.spEntityId}</code>
        </dd>
      </div>
      <div>
        <dt>Service provider metadata</dt>
        <dd>
          <a href={connection.spMetadataUrl}>{connection.spMetadataUrl}</a> (public, for a provider that reads it by URL), or{' '}
          <a href={apiUrl(metadataPath(connection.name)).toString()}>download it</a>
        </dd>
      </div>
    </dl>
  );
}
