import { Anchor, Button, Card, Checkbox, Group, NativeSelect, SimpleGrid, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import type { components } from '@payment-collection/client';
import { $api } from '../api/client.js';
import { formatDateTime } from '../lib/dates.js';
import { refusalMessage } from '../lib/errors.js';
import { EVENT_TYPES, enabledEvents, pickedEvents } from '../lib/team.js';
import { useCan } from '../session.js';
import {
  ConfirmModal,
  DataTable,
  Details,
  emptyList,
  emptyPage,
  ListFooter,
  Loading,
  PageHeading,
  QueryError,
  QueryStates,
  SecretOnce,
  showRefusal,
  StatusBadge,
} from './common.js';

type Endpoint = components['schemas']['WebhookEndpoint'];
type Outcome = components['schemas']['DeliveryAttempt']['outcome'];
const DELIVERIES_PER_PAGE = 20;
const FIELDS = ['url', 'description', 'enabled_events', 'enabled'] as const;

interface EndpointDraft {
  url: string;
  description: string;
  events: string[];
  enabled: boolean;
}

/** The endpoint as the API takes it: an empty description is none, the ticked events or every one. */
function endpointBody(draft: EndpointDraft) {
  return { url: draft.url, description: draft.description.trim() || null, enabled_events: enabledEvents(draft.events), enabled: draft.enabled };
}

function EndpointFields({ draft, setDraft, errors }: { draft: EndpointDraft; setDraft(next: EndpointDraft): void; errors: Record<string, string> }) {
  return (
    <>
      <TextInput
        label="Endpoint URL"
        description="https, on a public address"
        type="url"
        required
        value={draft.url}
        onChange={(e) => setDraft({ ...draft, url: e.currentTarget.value })}
        error={errors.url}
      />
      <TextInput
        label="Description"
        value={draft.description}
        onChange={(e) => setDraft({ ...draft, description: e.currentTarget.value })}
        error={errors.description}
      />
      <Checkbox.Group
        label="Events"
        description="None or all ticked: every event, including ones added later"
        value={draft.events}
        onChange={(events) => setDraft({ ...draft, events })}
        error={errors.enabled_events}
      >
        <SimpleGrid cols={{ base: 1, sm: 2 }} mt="xs">
          {EVENT_TYPES.map((type) => (
            <Checkbox key={type} value={type} label={type} />
          ))}
        </SimpleGrid>
      </Checkbox.Group>
      <Switch label="Enabled" checked={draft.enabled} onChange={(e) => setDraft({ ...draft, enabled: e.currentTarget.checked })} />
    </>
  );
}

function NewEndpointForm() {
  const queryClient = useQueryClient();
  const create = $api.useMutation('post', '/webhook-endpoints');
  const [draft, setDraft] = useState<EndpointDraft>({ url: '', description: '', events: [], enabled: true });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [secret, setSecret] = useState<string>();

  async function submit(event: FormEvent) {
    event.preventDefault();
    try {
      const created = await create.mutateAsync({
        body: endpointBody(draft),
      });
      setSecret(created.data.secret);
      setErrors({});
      setDraft({ url: '', description: '', events: [], enabled: true });
      notifications.show({ color: 'green', message: `Webhook endpoint ${created.data.url} added.` });
      await queryClient.invalidateQueries({ queryKey: ['get', '/webhook-endpoints'] });
    } catch (error) {
      showRefusal(error, FIELDS, setErrors);
    }
  }

  return (
    <Card withBorder maw={640} mb="lg">
      <form onSubmit={submit} noValidate aria-label="New webhook endpoint">
        <Stack>
          <Title order={2} size="h4">
            New webhook endpoint
          </Title>
          <EndpointFields draft={draft} setDraft={setDraft} errors={errors} />
          <Button type="submit" loading={create.isPending} w="fit-content">
            Add endpoint
          </Button>
          {secret && <SecretOnce what="signing secret" secret={secret} />}
        </Stack>
      </form>
    </Card>
  );
}

export function WebhooksPage() {
  const canWrite = useCan('webhooks:write');
  const endpoints = $api.useQuery('get', '/webhook-endpoints');
  return (
    <>
      <PageHeading
        title="Webhooks"
        actions={
          <Button component={Link} to="/developers/events" variant="default">
            Events log
          </Button>
        }
      />
      {canWrite && <NewEndpointForm />}
      <QueryStates
        query={endpoints}
        what="webhook endpoints"
        isEmpty={emptyList}
        empty={{ title: 'No webhook endpoints', children: <Text size="sm">Add one to be told of payments and refunds as they happen.</Text> }}
      >
        {(body) => (
          <DataTable
            label="Webhook endpoints"
            rows={body.data}
            rowKey={(endpoint) => endpoint._id}
            minWidth={640}
            columns={[
              {
                header: 'URL',
                cell: (endpoint) => (
                  <Anchor component={Link} to={`/developers/webhooks/${endpoint._id}`}>
                    {endpoint.url}
                  </Anchor>
                ),
              },
              { header: 'Description', cell: (endpoint) => endpoint.description ?? '—' },
              { header: 'Events', cell: (endpoint) => (endpoint.enabled_events.includes('*') ? 'All' : endpoint.enabled_events.join(', ')) },
              { header: 'State', cell: (endpoint) => <StatusBadge status={endpoint.enabled ? 'active' : 'paused'} /> },
            ]}
          />
        )}
      </QueryStates>
    </>
  );
}

function EditEndpointForm({ endpoint }: { endpoint: Endpoint }) {
  const queryClient = useQueryClient();
  const update = $api.useMutation('put', '/webhook-endpoints/{webhook_endpoint_id}');
  const [draft, setDraft] = useState<EndpointDraft>({
    url: endpoint.url,
    description: endpoint.description ?? '',
    events: pickedEvents(endpoint.enabled_events),
    enabled: endpoint.enabled,
  });
  const [errors, setErrors] = useState<Record<string, string>>({});

  async function submit(event: FormEvent) {
    event.preventDefault();
    try {
      await update.mutateAsync({
        params: { path: { webhook_endpoint_id: endpoint._id } },
        body: endpointBody(draft),
      });
      setErrors({});
      notifications.show({ color: 'green', message: 'The webhook endpoint is saved.' });
      await queryClient.invalidateQueries({ queryKey: ['get', '/webhook-endpoints'] });
      await queryClient.invalidateQueries({ queryKey: ['get', '/webhook-endpoints/{webhook_endpoint_id}'] });
    } catch (error) {
      showRefusal(error, FIELDS, setErrors);
    }
  }

  return (
    <Card withBorder maw={640} mb="lg">
      <form onSubmit={submit} noValidate aria-label="Edit webhook endpoint">
        <Stack>
          <EndpointFields draft={draft} setDraft={setDraft} errors={errors} />
          <Button type="submit" loading={update.isPending} w="fit-content">
            Save endpoint
          </Button>
        </Stack>
      </form>
    </Card>
  );
}

/** The endpoint's delivery attempts, newest first, a page at a time. */
function EndpointDeliveries({ endpointId }: { endpointId: string }) {
  const [page, setPage] = useState(1);
  const [outcome, setOutcome] = useState<Outcome | ''>('');
  const query = { page, per_page: DELIVERIES_PER_PAGE, ...(outcome && { 'filter[outcome]': outcome }) };
  const deliveries = $api.useQuery('get', '/webhook-endpoints/{webhook_endpoint_id}/deliveries', {
    params: { path: { webhook_endpoint_id: endpointId }, query },
  });
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
                { header: 'When', cell: (delivery) => formatDateTime(delivery.started_at) },
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
  const endpoint = $api.useQuery('get', '/webhook-endpoints/{webhook_endpoint_id}', path);
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
        title={`Webhook endpoint ${record.description ?? record.url}`}
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
          ['URL', record.url],
          ['Events', record.enabled_events.includes('*') ? 'All' : record.enabled_events.join(', ')],
          ['State', <StatusBadge key="state" status={record.enabled ? 'active' : 'paused'} />],
          record.previous_secret_expires_at !== null && ['Previous secret signs until', formatDateTime(record.previous_secret_expires_at)],
          ['Created', formatDateTime(record.created_at)],
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
            await queryClient.invalidateQueries({ queryKey: ['get', '/webhook-endpoints/{webhook_endpoint_id}'] });
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
            await queryClient.invalidateQueries({ queryKey: ['get', '/webhook-endpoints'] });
            navigate('/developers/webhooks');
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
