// Pieces every view uses: the page heading that also names the tab, status badges, the loading,
// error and empty states, and a confirmation before anything that cannot be undone.
import { Alert, Badge, Button, Center, Group, Loader, Modal, Stack, Text, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import type { ReactNode } from 'react';

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
    <Center p="xl">
      <Loader aria-label={`Loading ${what}`} />
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

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <Stack align="center" p="xl" gap="xs">
      <Text fw={600}>{title}</Text>
      {children}
    </Stack>
  );
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
