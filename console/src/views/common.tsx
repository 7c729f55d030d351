// Pieces every view uses: the page heading that also names the tab, status badges, the loading,
// error and empty states, and a confirmation before anything that cannot be undone.
import { Alert, Badge, Button, Center, Code, CopyButton, Group, Loader, Modal, Pagination, Stack, Table, Text, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { fieldErrors } from '../lib/errors.js';

export function PageHeading({ title, actions }: { title: string; actions?: ReactNode }) {
  useDocumentTitle(`${title} · Console`);
  return (
    <Group justify="space-between" mb="md" wrap="wrap">
      <Title order={1} size="h2">
        {title}
      </Title>
      {actions && <Group gap="xs">{actions}</Group>}
    </Group>
  );
}

const STATUS_COLORS: Record<string, string> = {
  paid: 'green',
  Paid: 'green',
  succeeded: 'green',
  refused: 'orange',
  delivered: 'green',
  Active: 'blue',
  active: 'blue',
  pending: 'yellow',
  partially_refunded: 'orange',
  refunded: 'gray',
  Paused: 'gray',
  paused: 'gray',
  Expired: 'gray',
  failed: 'red',
  dead: 'red',
};

/** TEST or LIVE: a dot of warning colour beside body-coloured text, readable in both themes (a light yellow badge is not). */
export function ModeBadge({ live }: { live: boolean }) {
  return (
    <Badge variant="dot" color={live ? 'red' : 'yellow'}>
      {live ? 'LIVE' : 'TEST'}
    </Badge>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return (
    // A coloured dot beside text of the body colour: readable in both themes whatever the status colour.
    <Badge variant="dot" color={STATUS_COLORS[status] ?? 'gray'}>
      {status.replaceAll('_', ' ')}
    </Badge>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <Center p="xl" role="status" aria-label={`Loading ${what}`}>
      <Loader />
    </Center>
  );
}

export function QueryError({ error }: { error: unknown }) {
  const message = typeof error === 'object' && error !== null && 'message' in error ? String((error as { message: unknown }).message) : String(error);
  return (
    <Alert color="red" role="alert" title="The service refused this">
      {message}
    </Alert>
  );
}

interface EmptyStateProps {
  title: string;
  children?: ReactNode;
}

export function EmptyState({ title, children }: EmptyStateProps) {
  return (
    <Stack align="center" p="xl" gap="xs">
      <Text fw={600}>{title}</Text>
      {children}
    </Stack>
  );
}

/** A page of a list with no record on it. */
export const emptyPage = (body: { data: { data: readonly unknown[] } }) => body.data.data.length === 0;
/** A list the API answers whole, with no record in it. */
export const emptyList = (body: { data: readonly unknown[] }) => body.data.length === 0;

/**
 * A list's query in its states: loading (a status named `Loading {what}`), refused (the service's
 * message), nothing to show (`empty`), and its data, which `children` renders.
 */
export function QueryStates<Data, Failure>({
  query,
  what,
  isEmpty,
  empty,
  refused,
  children,
}: {
  query: UseQueryResult<Data, Failure>;
  what: string;
  // Data is the query's: a predicate over any list (emptyPage) must not narrow it.
  isEmpty(data: NoInfer<Data>): boolean;
  empty: EmptyStateProps;
  /** In place of the service's message, for a view that shows some of a refusal's messages on its own fields. */
  refused?(error: NoInfer<Failure>): ReactNode;
  children(data: Data): ReactNode;
}) {
  if (query.isPending) return <Loading what={what} />;
  if (query.isError) return refused ? refused(query.error) : <QueryError error={query.error} />;
  if (isEmpty(query.data)) return <EmptyState {...empty} />;
  return children(query.data);
}

export function ConfirmModal(props: {
  opened: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busy?: boolean;
  onConfirm(): void;
  onClose(): void;
  color?: string;
}) {
  // No Modal.Header: it is a <header>, a second banner landmark beside the app's own. Escape and
  // Cancel close it.
  return (
    <Modal.Root opened={props.opened} onClose={props.onClose} centered>
      <Modal.Overlay />
      <Modal.Content>
        <Modal.Body pt="md">
          <Stack>
            <Modal.Title fw={700}>{props.title}</Modal.Title>
            {props.children}
            <Group justify="flex-end">
              <Button variant="default" onClick={props.onClose}>
                Cancel
              </Button>
              <Button color={props.color ?? 'red'} loading={props.busy ?? false} onClick={props.onConfirm}>
                {props.confirmLabel}
              </Button>
            </Group>
          </Stack>
        </Modal.Body>
      </Modal.Content>
    </Modal.Root>
  );
}

export interface Column<Row> {
  header: string;
  cell(row: Row): ReactNode;
}

/** A list as a table with a name (tests and screen readers find it by it), scrolling sideways on a phone. */
export function DataTable<Row>({
  label,
  columns,
  rows,
  rowKey,
  minWidth = 560,
}: {
  label: string;
  columns: Column<Row>[];
  rows: readonly Row[];
  rowKey(row: Row): string;
  minWidth?: number;
}) {
  return (
    // Scrolled sideways on a phone: the keyboard reaches it too (a named region one can Tab to and scroll).
    <Table.ScrollContainer minWidth={minWidth} scrollAreaProps={{ viewportProps: { tabIndex: 0, role: 'region', 'aria-label': `${label}, scrolls sideways` } }}>
      <Table striped aria-label={label}>
        <Table.Thead>
          <Table.Tr>
            {columns.map((column) => (
              <Table.Th key={column.header}>{column.header}</Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => (
            <Table.Tr key={rowKey(row)}>
              {columns.map((column) => (
                <Table.Td key={column.header}>{column.cell(row)}</Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
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

/** A secret the service shows once (an API key, a webhook signing secret), with a button to copy it. */
export function SecretOnce({ what, secret }: { what: string; secret: string }) {
  return (
    <Alert color="yellow" title={`Copy the ${what} now: it is shown only once`}>
      <Group wrap="nowrap">
        <Code style={{ wordBreak: 'break-all' }}>{secret}</Code>
        <CopyButton value={secret}>{({ copied, copy }) => <Button onClick={copy}>{copied ? 'Copied' : `Copy ${what}`}</Button>}</CopyButton>
      </Group>
    </Alert>
  );
}

/** A refused form: the API's 422 messages on the fields shown, anything else in a toast. */
export function showRefusal(error: unknown, shownFields: readonly string[], setErrors: (errors: Record<string, string>) => void): void {
  const shown = fieldErrors(error, shownFields);
  setErrors(shown.fields);
  if (shown.general) notifications.show({ color: 'red', message: shown.general });
}
