import type { ReactNode } from 'react';
import { Button, Dialog, Heading, Modal } from 'react-aria-components';
import { ErrorNote } from './notes';

/**
 * Asks before a change that cannot be undone: an alert dialog named by its question, a paragraph
 * saying what confirming does, the API's refusal in its words, and two buttons. The focus starts
 * on the one that keeps things as they are, so a stray Enter changes nothing.
 */
export function ConfirmDialog({
  isOpen,
  onClose,
  title,
  children,
  error,
  confirmLabel,
  onConfirm,
  busy,
  keepLabel = 'Keep it',
}: {
  isOpen: boolean;
  /** Escape, a click outside or the keep button: the dialog is closed. */
  onClose: () => void;
  title: ReactNode;
  /** What confirming does, one paragraph. */
  children: ReactNode;
  error?: unknown;
  confirmLabel: ReactNode;
  onConfirm: () => void;
  busy: boolean;
  keepLabel?: string;
}) {
  return (
    <Modal isOpen={isOpen} onOpenChange={(open) => !open && onClose()} isDismissable className="modal">
      <Dialog className="dialog" role="alertdialog">
        <Heading slot="title">{title}</Heading>
        <p>{children}</p>
        <ErrorNote error={error} />
        <div className="actions">
          <Button className="danger" isDisabled={busy} onPress={onConfirm}>
            {confirmLabel}
          </Button>
          <Button className="secondary" slot="close" autoFocus>
            {keepLabel}
          </Button>
        </div>
      </Dialog>
    </Modal>
  );
}
