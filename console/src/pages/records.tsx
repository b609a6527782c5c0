import { type ReactNode, useState } from 'react';
import {
  Button,
  Cell,
  Column,
  Dialog,
  Disclosure,
  DisclosurePanel,
  FieldError,
  Heading,
  Input,
  Label,
  Modal,
  NumberField,
  Row,
  Table,
  TableBody,
  TableHeader,
  Text,
  TextField,
} from 'react-aria-components';
import { Link } from 'react-router';
import { count, type ColumnOf } from '../components/data-table';
import { ApiError } from '../lib/api';
import type { Actor } from '../lib/agent';
import { displayName } from '../lib/agent';
import './records.css';

/**
 * What the statements, notifications and audit pages share: reading their filters from what an
 * admin types (an e-mail address for a person, a date for an instant), the fields that say what is
 * wrong beside them, a record's JSON in a dialog, and the pager of the API's `limit`/`skip` lists.
 */

/** What a filter's text becomes: the value the API takes, or why it cannot be read. */
export type Reading = { value?: string; error?: string };

const EMAIL = /^[^\s@{|]+@[^\s@]+$/;

/**
 * An xAPI agent for the `agent` parameters: its JSON as typed (compacted), or an e-mail address
 * (with or without `mailto:`) turned into `{"mbox":"mailto:…"}`.
 */
export function readAgent(text: string): Reading {
  const typed = text.trim();
  if (typed === '') return {};
  if (typed.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(typed);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return { value: JSON.stringify(parsed) };
    } catch {
      // said below
    }
    return { error: 'This is not JSON of an agent: write it as {"mbox": "mailto:ada@example.com"}, or type an e-mail address.' };
  }
  const address = typed.replace(/^mailto:/i, '');
  if (EMAIL.test(address)) return { value: JSON.stringify({ mbox: `mailto:${address}` }) };
  return { error: 'Type an e-mail address, or the agent as JSON ({"account": {"homePage": "…", "name": "…"}}).' };
}

/**
 * An actor id for `actorId` (`<ifi_property>|<ifi_value>`): as typed, or an e-mail address turned
 * into `mbox|mailto:…`.
 */
export function readActorId(text: string): Reading {
  const typed = text.trim();
  if (typed === '') return {};
  if (/^(mbox|mbox_sha1sum|openid|account)\|/.test(typed)) return { value: typed };
  const address = typed.replace(/^mailto:/i, '');
  if (EMAIL.test(address)) return { value: `mbox|mailto:${address}` };
  return { error: 'Type an e-mail address, or an actor id such as account|https://hr.example.com|E1001.' };
}

/**
 * An instant for `since` and `until`: a day (`2026-01-31`, midnight UTC) or a date-time with its
 * zone, answered in UTC as the API prints its own (`2026-01-31T09:00:00.000Z`).
 */
export function readInstant(text: string): Reading {
  const typed = text.trim();
  if (typed === '') return {};
  const day = /^\d{4}-\d{2}-\d{2}$/.test(typed);
  const withZone = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(typed);
  const time = Date.parse(day ? `${typed}T00:00:00Z` : typed);
  if ((!day && !withZone) || Number.isNaN(time)) {
    return { error: 'Write a day (2026-01-31) or a time with its zone (2026-01-31T09:00:00Z).' };
  }
  return { value: new Date(time).toISOString() };
}

/** Since must come before until: the error goes beside `until`. */
export function checkRange(since: Reading, until: Reading): Reading {
  if (since.value && until.value && until.value <= since.value) return { ...until, error: 'This must come after “Since”.' };
  return until;
}

/** A text filter of a form: its label, what to type, and what is wrong with it beside it. */
export function FilterField({
  label,
  value,
  onChange,
  hint,
  error,
  wide,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  hint?: string;
  error?: string;
  wide?: boolean;
}) {
  return (
    <TextField className={`records-field${wide ? ' wide' : ''}`} value={value} onChange={onChange} isInvalid={error !== undefined}>
      <Label>{label}</Label>
      <Input spellCheck={false} autoComplete="off" />
      {hint && (
        <Text slot="description" className="hint">
          {hint}
        </Text>
      )}
      <FieldError>{error}</FieldError>
    </TextField>
  );
}

/** The filters used less often, folded away: open when one of them is set, or wrong. */
export function MoreFilters({ isSet, hasError = false, children }: { isSet: boolean; hasError?: boolean; children: ReactNode }) {
  const [open, setOpen] = useState(isSet);
  return (
    <Disclosure className="records-more" isExpanded={open || hasError} onExpandedChange={setOpen}>
      <Button slot="trigger" className="records-more-trigger">
        <span className="records-chevron" aria-hidden="true">
          ›
        </span>
        More filters
      </Button>
      <DisclosurePanel className="records-more-panel">{children}</DisclosurePanel>
    </Disclosure>
  );
}

/** How many records a page holds. */
/** The Since and Until fields of a list filtered by time (ISO 8601 instants or dates), each with its problem beside it. */
export function TimeRangeFields({
  since,
  until,
  onChange,
  errors,
}: {
  since: string;
  until: string;
  onChange: (patch: { since?: string; until?: string }) => void;
  errors: { since?: string; until?: string };
}) {
  return (
    <>
      <FilterField
        label="Since"
        value={since}
        onChange={(value) => onChange({ since: value })}
        hint="After: 2026-01-31 or 2026-01-31T09:00Z"
        error={errors.since}
      />
      <FilterField label="Until" value={until} onChange={(value) => onChange({ until: value })} hint="At or before" error={errors.until} />
    </>
  );
}

export function PageSizeField({ value, onChange, max }: { value: number; onChange: (value: number) => void; max: number }) {
  return (
    <NumberField
      className="records-field narrow"
      value={value}
      onChange={onChange}
      minValue={1}
      maxValue={max}
      step={1}
      formatOptions={{ maximumFractionDigits: 0, useGrouping: false }}
    >
      <Label>Per page</Label>
      <Input />
      <Text slot="description" className="hint">
        1 to {max}
      </Text>
    </NumberField>
  );
}

/** A record's JSON in a dialog: a focusable block (scrolled by keyboard), closed by Escape or Close. */
export function JsonDialog({
  title,
  value,
  onClose,
  children,
}: {
  title: string;
  value: unknown;
  onClose: () => void;
  children?: ReactNode;
}) {
  return (
    <Modal isOpen={value !== undefined} onOpenChange={(open) => !open && onClose()} isDismissable className="modal records-modal">
      <Dialog className="dialog">
        <Heading slot="title">{title}</Heading>
        {children}
        {/* Focusable so that a keyboard scrolls it (a scrolling box must be: WCAG 2.1.1), named as the region it is. */}
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region is reached by keyboard. */}
        {/* biome-ignore lint/a11y/useSemanticElements: the <pre> keeps the JSON's lines; the role names it. */}
        <pre className="records-json" tabIndex={0} role="region" aria-label={`${title} as JSON`}>
          {JSON.stringify(value, null, 2)}
        </pre>
        <div className="actions">
          <Button slot="close" className="secondary">
            Close
          </Button>
        </div>
      </Dialog>
    </Modal>
  );
}

/**
 * The console's table (components/data-table.tsx, same look) whose rows open: Enter on a focused
 * row, or a click on it, calls `onOpen` (the record's details in a dialog). Interactive cells (a
 * button that opens the same) still take their own presses.
 */
export function RecordTable<T>({
  label,
  columns,
  rows,
  rowKey,
  onOpen,
}: {
  label: string;
  columns: ColumnOf<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  onOpen: (row: T) => void;
}) {
  const byKey = new Map(rows.map((row) => [rowKey(row), row]));
  return (
    <div className="table-box">
      <Table
        aria-label={label}
        className="data records-table"
        onRowAction={(key) => {
          const row = byKey.get(String(key));
          if (row !== undefined) onOpen(row);
        }}
      >
        <TableHeader>
          {columns.map((column, index) => (
            <Column key={column.id} id={column.id} isRowHeader={column.isRowHeader ?? index === 0}>
              {column.label}
            </Column>
          ))}
        </TableHeader>
        <TableBody>
          {rows.map((row) => (
            <Row key={rowKey(row)} id={rowKey(row)}>
              {columns.map((column) => (
                <Cell key={column.id}>{column.cell(row)}</Cell>
              ))}
            </Row>
          ))}
        </TableBody>
      </Table>
    </div>
  );
}

/** An instant as people read it, the exact one for machines (and on hover). */
export function When({ iso }: { iso: string | undefined }) {
  if (!iso) return <>—</>;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return <>{iso}</>;
  return (
    <time dateTime={iso} title={iso}>
      {date.toLocaleString('en-GB')}
    </time>
  );
}

/** An actor or group, as a page names it. */
export function actorText(actor: unknown): string {
  if (!actor || typeof actor !== 'object') return '—';
  const agent = actor as Actor & { member?: unknown[] };
  const identified = agent.mbox || agent.mbox_sha1sum || agent.openid || agent.account;
  if (agent.objectType === 'Group' && !identified) return agent.name ?? `A group of ${agent.member?.length ?? 0}`;
  return displayName(agent);
}

/** The first entry of a language map. */
export const firstOf = (map: unknown): string | undefined =>
  map && typeof map === 'object' ? (Object.values(map as Record<string, unknown>).find((v) => typeof v === 'string') as string) : undefined;

/** Page size and position of a `limit`/`skip` list, read from the address. */
export function pageOf(search: URLSearchParams, fallback: number, max: number): { limit: number; skip: number } {
  const limit = Number.parseInt(search.get('limit') ?? '', 10);
  const skip = Number.parseInt(search.get('skip') ?? '', 10);
  return {
    limit: Number.isFinite(limit) && limit >= 1 ? Math.min(limit, max) : fallback,
    skip: Number.isFinite(skip) && skip > 0 ? skip : 0,
  };
}

/**
 * Previous and next pages of a `limit`/`skip` list, as links (each page is an address); `hasMore`
 * is whether the API's answer linked a next page (`Link: <…>; rel="next"`).
 */
export function SkipPager({
  label,
  search,
  skip,
  limit,
  hasMore,
}: {
  label: string;
  search: URLSearchParams;
  skip: number;
  limit: number;
  hasMore: boolean;
}) {
  const at = (from: number) => {
    const next = new URLSearchParams(search);
    if (from > 0) next.set('skip', String(from));
    else next.delete('skip');
    return `?${next}`;
  };
  if (skip === 0 && !hasMore) return null;
  return (
    <nav className="records-pager" aria-label={label}>
      {skip > 0 && (
        <>
          <Link className="records-link-button" to={at(0)}>
            First page
          </Link>
          <Link className="records-link-button" to={at(Math.max(0, skip - limit))} rel="prev">
            Previous
          </Link>
        </>
      )}
      {hasMore && (
        <Link className="records-link-button" to={at(skip + limit)} rel="next">
          Next
        </Link>
      )}
    </nav>
  );
}

/** Which records a page shows, of how many: "1 to 50 of 1,234" (without the total when the API gave none). */
export function rangeText(skip: number, shown: number, total: number | undefined): string {
  return `${count(skip + 1)} to ${count(skip + shown)}${total === undefined ? '' : ` of ${count(total)}`}`;
}

/**
 * The filter a refusal of the API names (`400` with `details.parameter`, as `audit.invalid_query`
 * and `notifications.invalid_query` say it), so that its words go beside that filter's field.
 */
export function refusedParameter(error: unknown): string | undefined {
  if (!(error instanceof ApiError) || error.status !== 400) return undefined;
  const parameter = error.details?.parameter;
  return typeof parameter === 'string' ? parameter : undefined;
}

export const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;
