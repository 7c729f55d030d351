// The webhook events that name a payment, their deliveries, and a resend.
import { Button, Group, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { $api } from '../../api/client.js';
import { EVENT_PAGES_READ, eventWords } from '../../lib/events.js';
import { useCan } from '../../session.js';
import { DateTime, Loading, QueryError, StatusBadge } from '../common.js';
import { DataTable } from '../data-table.js';
import { eventQuery, paymentEventsQuery } from '../../queries/events.js';

export function PaymentEvents({ paymentId, createdAt }: { paymentId: string; createdAt: string }) {
  const canResend = useCan('events:write');
  const [opened, setOpened] = useState<string>();
  const events = useQuery(paymentEventsQuery(paymentId, createdAt));
  const detail = useQuery({ ...eventQuery(opened ?? ''), enabled: opened !== undefined });
  const resend = $api.useMutation('post', '/events/{event_id}/resend');
  if (events.isPending) return <Loading what="webhook events" />;
  if (events.isError) return <QueryError error={events.error} />;
  return (
    <Stack>
      {events.data.found.length === 0 && <Text size="sm">No webhook event names this payment.</Text>}
      {!events.data.complete && (
        <Text size="sm" c="dimmed">
          Only the first {EVENT_PAGES_READ * 100} events of those days were read: the events list has no payment filter yet.
        </Text>
      )}
      {events.data.found.length > 0 && (
        <DataTable
          label="Webhook events"
          rows={events.data.found}
          rowKey={(event) => event.id}
          columns={[
            {
              header: 'Event',
              cell: (event) => (
                <>
                  {eventWords(event.type)}
                  <Text size="xs" c="dimmed">
                    <DateTime instant={event.created_at} />
                  </Text>
                </>
              ),
            },
            { header: 'Delivery', cell: (event) => <StatusBadge status={event.status} /> },
            { header: 'Attempts', cell: (event) => event.attempts },
            {
              header: 'Actions',
              cell: (event) => (
                <Group gap="xs">
                  <Button size="xs" variant="default" onClick={() => setOpened(opened === event.id ? undefined : event.id)} aria-expanded={opened === event.id}>
                    Deliveries of {eventWords(event.type).toLowerCase()}
                  </Button>
                  {canResend && (
                    <Button
                      size="xs"
                      variant="default"
                      loading={resend.isPending}
                      onClick={async () => {
                        await resend.mutateAsync({ params: { path: { event_id: event.id } }, body: {} });
                        notifications.show({ color: 'green', message: `${eventWords(event.type)} will be sent again.` });
                        await events.refetch();
                      }}
                    >
                      Resend {eventWords(event.type).toLowerCase()}
                    </Button>
                  )}
                </Group>
              ),
            },
          ]}
        />
      )}
      {opened && detail.data && (
        <>
          {detail.data.data.deliveries.length === 0 && <Text size="sm">Not tried yet.</Text>}
          <DataTable
            label="Deliveries"
            rows={detail.data.data.deliveries}
            rowKey={(delivery) => `${delivery.webhook_endpoint_id}-${delivery.attempt}-${delivery.started_at}`}
            columns={[
              { header: 'When', cell: (delivery) => <DateTime instant={delivery.started_at} /> },
              { header: 'Endpoint', cell: (delivery) => delivery.url ?? '—' },
              {
                header: 'Outcome',
                cell: (delivery) => (
                  <>
                    <StatusBadge status={delivery.outcome} /> {delivery.http_status ?? ''} {delivery.error ?? ''}
                  </>
                ),
              },
            ]}
          />
        </>
      )}
    </Stack>
  );
}
