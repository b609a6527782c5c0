import { type ReactNode, useState } from 'react';
import { Button, Dialog, Heading, Modal } from 'react-aria-components';
import { api } from '../lib/api';
import { type Loaded, useLoad } from '../lib/use-api';
import { ConfirmDialog } from './confirm-dialog';
import { type ColumnOf, DataTable } from './data-table';
import { EmptyState, ErrorNote, Loading } from './notes';

/** What a credential's creation answers that is shown once: its parts, by label. */
export type Secrets = { label: string; value: string }[];

export interface CredentialKind<T> {
  /** Its section's heading and the words for one (`API keys`, `an API key`). */
  title: string;
  one: string;
  explanation: ReactNode;
  path: string;
  /** Where the list is read, when not at `path` (a person's credentials: `path?agent=…`). */
  listPath?: string;
  columns: ColumnOf<T>[];
  keyOf: (item: T) => string;
  /** Whether it can still be revoked (a revoked key is listed with its date). */
  live: (item: T) => boolean;
  /** What the State column says of one no longer live (default `Revoked`). */
  endedWord?: (item: T) => string;
  /** The API path that revokes or deletes it. */
  removePath: (item: T) => string;
  removeWord: 'Revoke' | 'Delete';
  removeWarning: (item: T) => string;
  /** The secrets a creation answers, shown once; none: nothing to show. */
  secretsOf?: (created: Record<string, unknown>) => Secrets;
  /** The form that creates one, when it needs more than a press; it calls `create` with the body. */
  form?: (create: (body: unknown) => Promise<void>, busy: boolean) => ReactNode;
}

/**
 * One kind of credential of the tenant (API keys, OAuth clients, SCIM tokens, HR webhooks, admins):
 * its list, creating one (a secret it answers shown once, in a dialog, never again), and revoking
 * or deleting one after a confirmation. Errors are the API's words, beside the action that caused them.
 */
export function CredentialSection<T>({ kind, canManage, version = 0 }: { kind: CredentialKind<T>; canManage: boolean; version?: number }) {
  const listPath = kind.listPath ?? kind.path;
  // `version`: the parent made one elsewhere (a launch link's credential), so the list is read again.
  const [items, reload] = useLoad((signal) => api<T[]>('GET', listPath, { signal }), `${listPath}|${version}`);
  const [secrets, setSecrets] = useState<Secrets>();
  const [removing, setRemoving] = useState<T>();
  const [failure, setFailure] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  async function act(action: () => Promise<void>) {
    setBusy(true);
    setFailure(undefined);
    try {
      await action();
      reload();
    } catch (error) {
      setFailure(error);
      throw error;
    } finally {
      setBusy(false);
    }
  }

  const create = (body: unknown) =>
    act(async () => {
      const created = await api<Record<string, unknown>>('POST', kind.path, body === undefined ? {} : { body });
      const shown = kind.secretsOf?.(created);
      if (shown) setSecrets(shown);
    });

  const columns: ColumnOf<T>[] = [
    ...kind.columns,
    {
      id: 'action',
      label: 'State',
      cell: (item) =>
        !kind.live(item) ? (
          (kind.endedWord?.(item) ?? 'Revoked')
        ) : canManage ? (
          <Button className="secondary small" onPress={() => setRemoving(item)} aria-label={`${kind.removeWord} ${kind.keyOf(item)}`}>
            {kind.removeWord}
          </Button>
        ) : (
          'In use'
        ),
    },
  ];

  return (
    <section className="panel" aria-labelledby={`${kind.path}-title`}>
      <div className="page-head">
        <h2 id={`${kind.path}-title`}>{kind.title}</h2>
        {canManage && !kind.form && (
          <Button onPress={() => void create(undefined).catch(() => {})} isDisabled={busy}>
            Create {kind.one}
          </Button>
        )}
      </div>
      <p className="muted">{kind.explanation}</p>
      {canManage && kind.form?.((body) => create(body).catch(() => {}), busy)}
      <ErrorNote error={failure} />
      <ListOf loaded={items} kind={kind} columns={columns} />

      <Modal isOpen={secrets !== undefined} onOpenChange={(open) => !open && setSecrets(undefined)} isDismissable className="modal">
        <Dialog className="dialog">
          <Heading slot="title">Your new {kind.one.replace(/^(an?|the) /, '')}</Heading>
          <p>Copy it now: it is shown only this once, and stored only as a hash (or sealed).</p>
          <dl className="facts">
            {secrets?.map((secret) => (
              <div key={secret.label}>
                <dt>{secret.label}</dt>
                <dd>
                  <code data-testid={`issued-${secret.label.toLowerCase().replaceAll(' ', '-')}`}>{secret.value}</code>
                </dd>
              </div>
            ))}
          </dl>
          <Button slot="close" autoFocus>
            Done
          </Button>
        </Dialog>
      </Modal>

      <ConfirmDialog
        isOpen={removing !== undefined}
        onClose={() => setRemoving(undefined)}
        title={
          <>
            {kind.removeWord} {kind.one.replace(/^an? /, 'this ')}?
          </>
        }
        error={failure}
        confirmLabel={kind.removeWord}
        onConfirm={() =>
          removing &&
          void act(async () => {
            await api('DELETE', kind.removePath(removing));
            setRemoving(undefined);
          }).catch(() => {})
        }
        busy={busy}
      >
        {removing && kind.removeWarning(removing)}
      </ConfirmDialog>
    </section>
  );
}

function ListOf<T>({ loaded, kind, columns }: { loaded: Loaded<T[]>; kind: CredentialKind<T>; columns: ColumnOf<T>[] }) {
  if (loaded.status === 'loading') return <Loading what={kind.title.toLowerCase()} />;
  if (loaded.status === 'error') return <ErrorNote error={loaded.error} />;
  if (loaded.value.length === 0) return <EmptyState title={`No ${kind.title.toLowerCase()} yet.`} />;
  return <DataTable label={kind.title} columns={columns} rows={loaded.value} rowKey={kind.keyOf} />;
}
