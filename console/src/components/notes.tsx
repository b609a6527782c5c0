import type { ReactNode } from 'react';
import { messageOf } from '../lib/api';

/** An error said in words, announced to screen readers, beside what caused it. */
export function ErrorNote({ error, children }: { error: unknown; children?: ReactNode }) {
  if (!error) return null;
  return (
    <div className="note error" role="alert">
      <p>{messageOf(error)}</p>
      {children}
    </div>
  );
}

/** What an empty list means, and what to do next. */
export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="note empty">
      <p>
        <strong>{title}</strong>
      </p>
      {children}
    </div>
  );
}

/** A long wait, said once to assistive technology. */
export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}
