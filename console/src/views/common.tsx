// Pieces every view uses: the page heading that also names the tab, status badges, the loading,
// error and empty states, a secret shown once, and a confirmation before anything that cannot be undone.
import { Alert, Badge, Button, Center, Code, CopyButton, Group, Loader, Modal, Stack, Text, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useBusinessTime } from '../lib/business-time.js';
import { STATUS_WORDS, type Status } from '../lib/statuses.js';

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

// A badge keeps its width in a crowded row or header: Mantine ellipsizes a shrunk badge's words ("P…").
const UNSHRUNK = { flexShrink: 0, maxWidth: 'none', overflow: 'visible' } as const;

/** TEST or LIVE: a dot of warning colour beside body-coloured text, readable in both themes (a light yellow badge is not). */
export function ModeBadge({ live }: { live: boolean }) {
  return (
    <Badge variant="dot" color={live ? 'red' : 'yellow'} style={UNSHRUNK}>
      {live ? 'LIVE' : 'TEST'}
    </Badge>
  );
}

export function StatusBadge({ status }: { status: Status }) {
  return (
    // A coloured dot beside text of the body colour: readable in both themes whatever the status colour.
    <Badge variant="dot" color={STATUS_WORDS[status].color} style={UNSHRUNK}>
      {STATUS_WORDS[status].words}
    </Badge>
  );
}

/** An instant on the business's clock, wherever a view shows one. */
export function DateTime({ instant }: { instant: string }) {
  const { dateTime } = useBusinessTime();
  return <>{dateTime(instant)}</>;
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
