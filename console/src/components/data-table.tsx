import type { ReactNode } from 'react';
import { Cell, Column, Row, Table, TableBody, TableHeader } from 'react-aria-components';

export interface ColumnOf<T> {
  id: string;
  label: string;
  cell: (row: T) => ReactNode;
  /** Numbers line up on the right. */
  numeric?: boolean;
  isRowHeader?: boolean;
}

/**
 * A table of React Aria (keyboard navigation between cells, screen-reader row and column names),
 * scrolling sideways inside its own box at narrow widths rather than the page.
 */
export function DataTable<T>({
  label,
  columns,
  rows,
  rowKey,
  empty,
}: {
  label: string;
  columns: ColumnOf<T>[];
  rows: T[];
  rowKey: (row: T, index: number) => string;
  empty?: string;
}) {
  return (
    <div className="table-box">
      <Table aria-label={label} className="data">
        <TableHeader>
          {columns.map((column, index) => (
            <Column
              key={column.id}
              id={column.id}
              isRowHeader={column.isRowHeader ?? index === 0}
              className={column.numeric ? 'num' : undefined}
            >
              {column.label}
            </Column>
          ))}
        </TableHeader>
        <TableBody renderEmptyState={() => <p className="muted">{empty ?? 'Nothing to show.'}</p>}>
          {rows.map((row, index) => (
            <Row key={rowKey(row, index)} id={rowKey(row, index)}>
              {columns.map((column) => (
                <Cell key={column.id} className={column.numeric ? 'num' : undefined}>
                  {column.cell(row)}
                </Cell>
              ))}
            </Row>
          ))}
        </TableBody>
      </Table>
    </div>
  );
}

export const percent = (rate: number | null | undefined): string =>
  rate === null || rate === undefined ? '—' : `${Math.round(rate * 1000) / 10}%`;
export const count = (n: number): string => n.toLocaleString('en');
