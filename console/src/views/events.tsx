import { Anchor, Button, Code, Group, NativeSelect, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import type { paths } from '@payment-collection/client';
import { $api } from '../api/client.js';
import { formatDateTime } from '../lib/dates.js';
import { refusalMessage } from '../lib/errors.js';
import { apiQuery, filtersFrom, searchFor } from '../lib/filters.js';
import { EVENT_TYPES } from '../lib/team.js';
import { useCan } from '../session.js';
import { DataTable, Details, emptyPage, ListFooter, Loading, PageHeading, QueryError, QueryStates, StatusBadge } from './common.js';

const FILTERS = ['type', 'delivery_success'] as const;
type EventsQuery = NonNullable<paths['/events']['get']['parameters']['query']>;

export function EventsPage() {
  const [search, setSearch] = useSearchParams();
  const filters = filtersFrom(search, FILTERS);
  const page = Number(search.get('page') ?? '1') || 1;
  const events = $api.useQuery('get', '/events', { params: { query: { ...apiQuery(filters), page, per_page: 50 } as EventsQuery } });
  const [draft, setDraft] = useState({ type: filters.type ?? '', delivery_success: filters.delivery_success ?? '' });
  return (
    <>
      <PageHeading title="Events" />
      <form
        aria-label="Filters"
        onSubmit={(event) => {
          event.preventDefault();
          setSearch(searchFor({ ...filters, ...draft }));
        }}
      >
        <Group align="flex-end" mb="md">
          <NativeSelect
            label="Event type"
            data={[{ value: '', label: 'Any' }, ...[...EVENT_TYPES, 'ping'].map((type) => ({ value: type, label: type }))]}
            value={draft.type}
            onChange={(e) => setDraft({ ...draft, type: e.currentTarget.value })}
          />
          <NativeSelect
            label="Delivery"
            data={[
              { value: '', label: 'Any' },
              { value: 'true', label: 'Delivered' },
              { value: 'false', label: 'Not delivered' },
            ]}
            value={draft.delivery_success}
            onChange={(e) => setDraft({ ...draft, delivery_success: e.currentTarget.value })}
          />
          <Button type="submit">Search</Button>
        </Group>
      </form>
      <QueryStates
        query={events}
        what="events"
        isEmpty={emptyPage}
        empty={{
          title: 'No events match',
          children: <Text size="sm">Events are sent to the business&apos;s webhook endpoints as payments and refunds happen.</Text>,
        }}
      >
        {(body) => (
          <>
            <DataTable
              label="Events"
              rows={body.data.data}
              rowKey={(event) => event.id}
              minWidth={640}
              columns={[
                {
                  header: 'Event',
                  cell: (event) => (
                    <Anchor component={Link} to={`/developers/events/${event.id}`}>
                      {event.type}
                    </Anchor>
                  ),
                },
                { header: 'When', cell: (event) => formatDateTime(event.created_at) },
                { header: 'Delivery', cell: (event) => <StatusBadge status={event.status} /> },
                { header: 'Attempts', cell: (event) => event.attempts },
                { header: 'Last error', cell: (event) => event.last_error ?? '—' },
              ]}
            />
            <ListFooter list={body.data} noun="events" page={page} onChange={(next) => setSearch(searchFor(filters, next))} />
          </>
        )}
      </QueryStates>
    </>
  );
}

export function EventPage() {
  const { eventId = '' } = useParams();
  const canResend = useCan('events:write');
  const event = $api.useQuery('get', '/events/{event_id}', { params: { path: { event_id: eventId } } });
  const resend = $api.useMutation('post', '/events/{event_id}/resend');
  if (event.isPending) return <Loading what="the event" />;
  if (event.isError) return <QueryError error={event.error} />;
  const record = event.data.data;
  return (
    <>
      <PageHeading
        title={`Event ${record.type}`}
        actions={
          canResend && (
            <Button
              variant="default"
              loading={resend.isPending}
              onClick={async () => {
                try {
                  await resend.mutateAsync({ params: { path: { event_id: record.id } }, body: {} });
                  notifications.show({ color: 'green', message: `${record.type} will be sent again.` });
                  await event.refetch();
                } catch (error) {
                  notifications.show({ color: 'red', message: refusalMessage(error) });
                }
              }}
            >
              Resend event
            </Button>
          )
        }
      />
      <Details
        label="Event"
        fields={[
          ['Id', record.id],
          ['Delivery', <StatusBadge key="status" status={record.status} />],
          ['Created', formatDateTime(record.created_at)],
          record.next_attempt_at !== null && ['Next attempt', formatDateTime(record.next_attempt_at)],
          [
            'Data',
            <Code key="data" block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
              {JSON.stringify(record.data, null, 2)}
            </Code>,
          ],
        ]}
      />
      <Title order={2} size="h4" mt="lg" mb="xs">
        Endpoints
      </Title>
      <DataTable
        label="Endpoints"
        rows={record.endpoints}
        rowKey={(endpoint) => endpoint.webhook_endpoint_id ?? endpoint.url ?? 'deleted'}
        columns={[
          {
            header: 'Endpoint',
            cell: (endpoint) =>
              endpoint.webhook_endpoint_id ? (
                <Anchor component={Link} to={`/developers/webhooks/${endpoint.webhook_endpoint_id}`}>
                  {endpoint.url}
                </Anchor>
              ) : (
                'Deleted endpoint'
              ),
          },
          { header: 'Delivery', cell: (endpoint) => <StatusBadge status={endpoint.status} /> },
          { header: 'Attempts', cell: (endpoint) => endpoint.attempts },
          { header: 'Last error', cell: (endpoint) => endpoint.last_error ?? '—' },
        ]}
      />
      <Title order={2} size="h4" mt="lg" mb="xs">
        Deliveries
      </Title>
      {record.deliveries.length === 0 ? (
        <Text size="sm">Not tried yet.</Text>
      ) : (
        <DataTable
          label="Deliveries"
          rows={record.deliveries}
          rowKey={(delivery) => `${delivery.webhook_endpoint_id}-${delivery.attempt}-${delivery.started_at}`}
          minWidth={640}
          columns={[
            { header: 'When', cell: (delivery) => formatDateTime(delivery.started_at) },
            { header: 'Endpoint', cell: (delivery) => delivery.url ?? '—' },
            { header: 'Attempt', cell: (delivery) => delivery.attempt },
            { header: 'Took', cell: (delivery) => `${delivery.duration_ms} ms` },
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
      )}
    </>
  );
}
