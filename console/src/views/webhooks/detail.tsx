// One webhook endpoint: its fields (edited in place), a new signing secret, a test ping, its delivery attempts.
import { Anchor, Button, Group, NativeSelect, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import type { components } from '@payment-collection/client';
import { $api } from '../../api/client.js';
import { refusalMessage } from '../../lib/errors.js';
import { useCan } from '../../session.js';
import { ConfirmModal, DateTime, emptyPage, Loading, PageHeading, QueryError, QueryStates, SecretOnce, StatusBadge } from '../common.js';
import { DataTable, Details, ListFooter } from '../data-table.js';
import { webhookDeliveriesQuery, webhookEndpointQuery, webhookEndpointsQuery } from '../../queries/webhook-endpoints.js';
import { EditEndpointForm } from './form.js';
import { WRAPPED, eventsOf } from './list.js';

type Outcome = components['schemas']['DeliveryAttempt']['outcome'];

const DELIVERIES_PER_PAGE = 20;

/** The endpoint's delivery attempts, newest first, a page at a time. */
function EndpointDeliveries({ endpointId }: { endpointId: string }) {
  const [page, setPage] = useState(1);
  const [outcome, setOutcome] = useState<Outcome | ''>('');
  const query = { page, per_page: DELIVERIES_PER_PAGE, ...(outcome && { 'filter[outcome]': outcome }) };
  const deliveries = useQuery(webhookDeliveriesQuery(endpointId, query));
  return (
    <section aria-labelledby="endpoint-deliveries">
      <Group justify="space-between" align="flex-end" mt="lg" mb="xs">
        <Title order={2} size="h4" id="endpoint-deliveries">
          Deliveries
        </Title>
        <Group align="flex-end">
          <NativeSelect
            label="Outcome"
            data={[
              { value: '', label: 'Any' },
              { value: 'delivered', label: 'Delivered' },
              { value: 'failed', label: 'Failed' },
            ]}
            value={outcome}
            onChange={(e) => {
              setOutcome(e.currentTarget.value as Outcome | '');
              setPage(1);
            }}
          />
          <Button variant="default" loading={deliveries.isFetching} onClick={() => void deliveries.refetch()}>
            Refresh deliveries
          </Button>
        </Group>
      </Group>
      <QueryStates
        query={deliveries}
        what="deliveries"
        isEmpty={emptyPage}
        empty={{
          title: outcome ? 'No deliveries match' : 'No deliveries yet',
          children: <Text size="sm">Each attempt to send an event here is listed, newest first.</Text>,
        }}
      >
        {(body) => (
          <>
            <DataTable
              label="Deliveries"
              rows={body.data.data}
              rowKey={(delivery) => `${delivery.event_id}-${delivery.attempt}-${delivery.started_at}`}
              minWidth={720}
              columns={[
                { header: 'When', cell: (delivery) => <DateTime instant={delivery.started_at} /> },
                {
                  header: 'Event',
                  cell: (delivery) => (
                    <Anchor component={Link} to={`/developers/events/${delivery.event_id}`}>
                      {delivery.event_type}
                    </Anchor>
                  ),
                },
                { header: 'Attempt', cell: (delivery) => delivery.attempt },
                { header: 'Outcome', cell: (delivery) => <StatusBadge status={delivery.outcome} /> },
                { header: 'HTTP status', cell: (delivery) => delivery.http_status ?? '—' },
                { header: 'Took', cell: (delivery) => `${delivery.duration_ms} ms` },
                { header: 'Error', cell: (delivery) => delivery.error ?? '—' },
              ]}
            />
            <ListFooter list={body.data} noun="deliveries" page={page} onChange={setPage} />
          </>
        )}
      </QueryStates>
    </section>
  );
}

export function WebhookEndpointPage() {
  const { endpointId = '' } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const canWrite = useCan('webhooks:write');
  const canReadEvents = useCan('events:read');
  const path = { params: { path: { webhook_endpoint_id: endpointId } } };
  const endpoint = useQuery(webhookEndpointQuery(endpointId));
  const rotate = $api.useMutation('post', '/webhook-endpoints/{webhook_endpoint_id}/rotate-secret');
  const ping = $api.useMutation('post', '/webhook-endpoints/{webhook_endpoint_id}/test');
  const remove = $api.useMutation('delete', '/webhook-endpoints/{webhook_endpoint_id}');
  const [secret, setSecret] = useState<string>();
  const [pinged, setPinged] = useState<string>();
  const [confirm, setConfirm] = useState<'rotate' | 'delete'>();

  if (endpoint.isPending) return <Loading what="the webhook endpoint" />;
  if (endpoint.isError) return <QueryError error={endpoint.error} />;
  const record = endpoint.data.data;
  return (
    <>
      <PageHeading
        // A URL is one long word: the heading names the endpoint by its description, the URL wraps below.
        title={record.description ? `Webhook endpoint ${record.description}` : 'Webhook endpoint'}
        actions={
          canWrite && (
            <>
              <Button
                variant="default"
                loading={ping.isPending}
                onClick={async () => {
                  try {
                    const sent = await ping.mutateAsync(path);
                    setPinged(sent.data.id);
                    notifications.show({ color: 'green', message: 'A test ping is on its way.' });
                  } catch (error) {
                    notifications.show({ color: 'red', message: refusalMessage(error) });
                  }
                }}
              >
                Send test ping
              </Button>
              <Button variant="default" onClick={() => setConfirm('rotate')}>
                Rotate secret…
              </Button>
              <Button variant="default" color="red" onClick={() => setConfirm('delete')}>
                Delete endpoint…
              </Button>
            </>
          )
        }
      />
      {secret && <SecretOnce what="signing secret" secret={secret} />}
      {pinged && canReadEvents && (
        <Text mb="md">
          Follow the ping&apos;s delivery:{' '}
          <Anchor component={Link} to={`/developers/events/${pinged}`}>
            event {pinged}
          </Anchor>
        </Text>
      )}
      <Details
        label="Webhook endpoint"
        fields={[
          [
            'URL',
            <span key="url" style={WRAPPED}>
              {record.url}
            </span>,
          ],
          [
            'Events',
            <span key="events" style={WRAPPED}>
              {eventsOf(record)}
            </span>,
          ],
          ['State', <StatusBadge key="state" status={record.enabled ? 'active' : 'paused'} />],
          record.previous_secret_expires_at !== null && ['Previous secret signs until', <DateTime instant={record.previous_secret_expires_at} />],
          ['Created', <DateTime instant={record.created_at} />],
        ]}
      />
      {canWrite && (
        <>
          <Title order={2} size="h4" mt="lg" mb="xs">
            Edit
          </Title>
          <EditEndpointForm key={record.updated_at} endpoint={record} />
        </>
      )}
      {canReadEvents && <EndpointDeliveries endpointId={record._id} />}
      <ConfirmModal
        opened={confirm === 'rotate'}
        title="Rotate the signing secret?"
        confirmLabel="Rotate secret"
        color="indigo"
        busy={rotate.isPending}
        onClose={() => setConfirm(undefined)}
        onConfirm={async () => {
          try {
            const rotated = await rotate.mutateAsync(path);
            setSecret(rotated.data.secret);
            notifications.show({ color: 'green', message: 'A new signing secret is made; the old one signs beside it for a while.' });
            await queryClient.invalidateQueries({ queryKey: webhookEndpointQuery(endpointId).queryKey });
          } catch (error) {
            notifications.show({ color: 'red', message: refusalMessage(error) });
          }
          setConfirm(undefined);
        }}
      >
        <Text>Deliveries carry signatures by both secrets until the old one expires, so the receiver can switch over.</Text>
      </ConfirmModal>
      <ConfirmModal
        opened={confirm === 'delete'}
        title="Delete this webhook endpoint?"
        confirmLabel="Delete endpoint"
        busy={remove.isPending}
        onClose={() => setConfirm(undefined)}
        onConfirm={async () => {
          try {
            await remove.mutateAsync(path);
            notifications.show({ color: 'green', message: 'The webhook endpoint is deleted.' });
            navigate('/developers/webhooks');
            queryClient.removeQueries({ queryKey: webhookEndpointQuery(endpointId).queryKey });
            await queryClient.invalidateQueries({ queryKey: webhookEndpointsQuery().queryKey });
          } catch (error) {
            notifications.show({ color: 'red', message: refusalMessage(error) });
            setConfirm(undefined);
          }
        }}
      >
        <Text>Deliveries still waiting for {record.url} are given up. Past deliveries stay in the events log.</Text>
      </ConfirmModal>
    </>
  );
}
