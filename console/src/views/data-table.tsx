// A list as a table (stacked cards on a phone), a record's fields, and a list's footer with its pages.
import { Anchor, Group, Pagination, Table, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import type { ReactNode } from 'react';
import { Link, useNavigate } from 'react-router';
import classes from './data-table.module.css';

export interface Column<Row> {
  header: string;
  cell(row: Row): ReactNode;
}

/** Below Mantine's `sm` (where the navigation folds away) a list is a stack of cards, not a table to scroll. */
const PHONE = '(max-width: 47.99em)';

/** Whether a click inside a row was on a control of its own (a link, a button), which keeps its own meaning. */
function onOwnControl(target: EventTarget | null, row: HTMLElement): boolean {
  const control = target instanceof Element ? target.closest('a, button, input, select, textarea, label') : null;
  return control !== null && row.contains(control);
}

/**
 * A list as a table with a name (tests and screen readers find it by it). With `rowLink` the whole row
 * opens its record: a click anywhere on it, and for the keyboard the link its first cell holds (one tab
 * stop a row, a real link to open in a new tab). On a phone the rows are stacked cards, each cell
 * labelled with its column, so nothing scrolls sideways; the table's roles are set explicitly because
 * a browser may drop a table's semantics once its display is changed.
 */
export function DataTable<Row>({
  label,
  columns,
  rows,
  rowKey,
  rowLink,
  minWidth = 560,
}: {
  label: string;
  columns: Column<Row>[];
  rows: readonly Row[];
  rowKey(row: Row): string;
  rowLink?(row: Row): string;
  minWidth?: number;
}) {
  const navigate = useNavigate();
  const phone = useMediaQuery(PHONE, false, { getInitialValueInEffect: false });
  const table = (
    <Table striped={!phone} aria-label={label} role="table" className={phone ? classes.stacked : undefined}>
      <Table.Thead role="rowgroup">
        <Table.Tr role="row">
          {columns.map((column) => (
            <Table.Th key={column.header} role="columnheader">
              {column.header}
            </Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody role="rowgroup">
        {rows.map((row) => {
          const href = rowLink?.(row);
          return (
            <Table.Tr
              key={rowKey(row)}
              role="row"
              className={href === undefined ? undefined : classes.opens}
              onClick={
                href === undefined
                  ? undefined
                  : (event) => {
                      if (onOwnControl(event.target, event.currentTarget) || window.getSelection()?.toString()) return;
                      void navigate(href);
                    }
              }
            >
              {columns.map((column, index) => (
                <Table.Td key={column.header} role="cell" data-label={column.header}>
                  {href !== undefined && index === 0 ? (
                    <Anchor component={Link} to={href}>
                      {column.cell(row)}
                    </Anchor>
                  ) : (
                    column.cell(row)
                  )}
                </Table.Td>
              ))}
            </Table.Tr>
          );
        })}
      </Table.Tbody>
    </Table>
  );
  if (phone) return table;
  return (
    // Scrolled sideways at a tablet's width: the keyboard reaches it too (a named region one can Tab to and scroll).
    <Table.ScrollContainer minWidth={minWidth} scrollAreaProps={{ viewportProps: { tabIndex: 0, role: 'region', 'aria-label': `${label}, scrolls sideways` } }}>
      {table}
    </Table.ScrollContainer>
  );
}

/** A record's fields as a two-column table, each row headed by its name. */
export function Details({ label, fields }: { label: string; fields: Array<[string, ReactNode] | false> }) {
  return (
    <Table variant="vertical" aria-label={label}>
      <Table.Tbody>
        {fields
          .filter((field): field is [string, ReactNode] => field !== false)
          .map(([name, value]) => (
            <Table.Tr key={name}>
              <Table.Th w={150}>{name}</Table.Th>
              <Table.Td>{value}</Table.Td>
            </Table.Tr>
          ))}
      </Table.Tbody>
    </Table>
  );
}

/** Pages of a list, each control named for screen readers. */
export function Pager({ total, page, onChange }: { total: number; page: number; onChange(page: number): void }) {
  return (
    <Pagination
      total={total}
      value={page}
      onChange={onChange}
      getControlProps={(control) => ({ 'aria-label': `${control} page` })}
      getItemProps={(item) => ({ 'aria-label': `Page ${item}` })}
    />
  );
}

/** Under a list: how many records match (a total counted only so far said as a lower bound), and its pages. */
export function ListFooter({
  list,
  noun,
  page,
  onChange,
}: {
  list: { total: number; total_is_lower_bound?: boolean; last_page: number };
  noun: string;
  page: number;
  onChange(page: number): void;
}) {
  return (
    <Group justify="space-between" mt="md">
      <Text size="sm">
        {list.total_is_lower_bound ? 'At least ' : ''}
        {list.total.toLocaleString('en-MY')} {noun}
      </Text>
      <Pager total={list.last_page} page={page} onChange={onChange} />
    </Group>
  );
}
