import { useState } from 'react';
import { Button, Dialog, Heading, Modal } from 'react-aria-components';
import { DataTable } from '../components/data-table';
import { EmptyState, ErrorNote, Loading } from '../components/notes';
import { api } from '../lib/api';
import { useSession } from '../lib/session';
import { useLoad } from '../lib/use-api';

interface ApiKey {
  key: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  scope: string | null;
}

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString('en-GB') : '—');

/**
 * Access: the tenant's API keys (the Basic credentials of integrations): create one (its secret
 * shown once, here only), revoke one (refused at once in every server process). An admin limited
 * to an organisation subtree manages no credentials (the API answers 403, said here in its words).
 */
export default function AccessPage() {
  const session = useSession();
  const [keys, reload] = useLoad((signal) => api<ApiKey[]>('GET', '/api/api-keys', { signal }), 'keys');
  const [issued, setIssued] = useState<{ key: string; secret: string }>();
  const [revoking, setRevoking] = useState<ApiKey>();
  const [failure, setFailure] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  async function create() {
    setBusy(true);
    setFailure(undefined);
    try {
      setIssued(await api<{ key: string; secret: string }>('POST', '/api/api-keys'));
      reload();
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(false);
    }
  }

  async function revoke(key: ApiKey) {
    setBusy(true);
    setFailure(undefined);
    try {
      await api('DELETE', `/api/api-keys/${encodeURIComponent(key.key)}`);
      setRevoking(undefined);
      reload();
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <h1>Access</h1>
      <section className="panel" aria-labelledby="keys-title">
        <div className="page-head">
          <h2 id="keys-title">API keys</h2>
          {!session.admin.scope && (
            <Button onPress={() => void create()} isDisabled={busy}>
              Create an API key
            </Button>
          )}
        </div>
        <p className="muted">An integration sends its key and secret as HTTP Basic credentials. Revoked keys are refused at once.</p>
        <ErrorNote error={failure} />
        {keys.status === 'loading' && <Loading what="the API keys" />}
        {keys.status === 'error' && <ErrorNote error={keys.error} />}
        {keys.status === 'done' &&
          (keys.value.length === 0 ? (
            <EmptyState title="No API keys yet.">
              <p>Create one for each integration, so that each can be revoked on its own.</p>
            </EmptyState>
          ) : (
            <DataTable
              label="API keys"
              columns={[
                { id: 'key', label: 'Key', cell: (row: ApiKey) => <code>{row.key}</code> },
                { id: 'created', label: 'Created', cell: (row) => when(row.createdAt) },
                { id: 'used', label: 'Last used', cell: (row) => when(row.lastUsedAt) },
                { id: 'scope', label: 'Limited to', cell: (row) => row.scope ?? 'whole organisation' },
                {
                  id: 'state',
                  label: 'State',
                  cell: (row) =>
                    row.revokedAt ? (
                      `Revoked ${when(row.revokedAt)}`
                    ) : (
                      <Button className="secondary small" onPress={() => setRevoking(row)} aria-label={`Revoke ${row.key}`}>
                        Revoke
                      </Button>
                    ),
                },
              ]}
              rows={keys.value}
              rowKey={(row) => row.key}
            />
          ))}
      </section>

      <Modal isOpen={issued !== undefined} onOpenChange={(open) => !open && setIssued(undefined)} isDismissable className="modal">
        <Dialog className="dialog">
          <Heading slot="title">Your new API key</Heading>
          <p>Copy the secret now: it is shown only this once, and stored only as a hash.</p>
          <dl className="facts">
            <div>
              <dt>Key</dt>
              <dd>
                <code data-testid="issued-key">{issued?.key}</code>
              </dd>
            </div>
            <div>
              <dt>Secret</dt>
              <dd>
                <code data-testid="issued-secret">{issued?.secret}</code>
              </dd>
            </div>
          </dl>
          <Button slot="close" autoFocus>
            Done
          </Button>
        </Dialog>
      </Modal>

      <Modal isOpen={revoking !== undefined} onOpenChange={(open) => !open && setRevoking(undefined)} isDismissable className="modal">
        <Dialog className="dialog" role="alertdialog">
          <Heading slot="title">Revoke this API key?</Heading>
          <p>
            <code>{revoking?.key}</code> stops working at once, in every server process. This cannot be undone.
          </p>
          <ErrorNote error={failure} />
          <div className="actions">
            <Button className="danger" onPress={() => revoking && void revoke(revoking)} isDisabled={busy}>
              Revoke
            </Button>
            <Button className="secondary" slot="close" autoFocus>
              Keep it
            </Button>
          </div>
        </Dialog>
      </Modal>
    </>
  );
}
