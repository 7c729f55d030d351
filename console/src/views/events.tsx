import { Anchor, Button, Code, NativeSelect, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { Link, useParams, useSearchParams } from 'react-router';
import { $api } from '../api/client.js';
import { refusalMessage } from '../lib/errors.js';
import { EVENT_WORDS, eventWords } from '../lib/events.js';
import { apiQuery, filtersFrom, searchFor, type Filters } from '../lib/filters.js';
import { useCan } from '../session.js';
import { FilterBar } from './filter-bar.js';
import { DateTime, emptyPage, Loading, PageHeading, QueryError, QueryStates, StatusBadge } from './common.js';
import { DataTable, Details, ListFooter } from './data-table.js';
import { useQuery } from '@tanstack/react-query';
import { eventQuery, eventsQuery, type EventsQuery } from '../queries/events.js';

const FILTERS = ['type', 'delivery_success', 'created_at_between'] as const;

export function EventsPage() {
  const [search, setSearch] = useSearchParams();
  const filters = filtersFrom(search, FILTERS);
  const page = Number(search.get('page') ?? '1') || 1;
  const events = useQuery(eventsQuery({ ...apiQuery(filters), page, per_page: 50 } as EventsQuery));
  const setFilters = (next: Filters) => setSearch(searchFor(next));
  return (
    <>
      <PageHeading title="Events" />
      <FilterBar filters={filters} setFilters={setFilters}>
        <NativeSelect
          label="Event type"
          name="type"
          data={[{ value: '', label: 'Any' }, ...Object.entries(EVENT_WORDS).map(([type, words]) => ({ value: type, label: words }))]}
          defaultValue={filters.type ?? ''}
        />
        <NativeSelect
          label="Delivery"
          name="delivery_success"
          data={[
            { value: '', label: 'Any' },
            { value: 'true', label: 'Delivered' },
            { value: 'false', label: 'Not delivered' },
          ]}
          defaultValue={filters.delivery_success ?? ''}
        />
      </FilterBar>
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
              rowLink={(event) => `/developers/events/${event.id}`}
              minWidth={640}
              columns={[
                { header: 'Event', cell: (event) => eventWords(event.type) },
                { header: 'When', cell: (event) => <DateTime instant={event.created_at} /> },
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
  const event = useQuery(eventQuery(eventId));
  const resend = $api.useMutation('post', '/events/{event_id}/resend');
  if (event.isPending) return <Loading what="the event" />;
  if (event.isError) return <QueryError error={event.error} />;
  const record = event.data.data;
  return (
    <>
      <PageHeading
        title={`Event: ${eventWords(record.type)}`}
        actions={
          canResend && (
            <Button
              variant="default"
              loading={resend.isPending}
              onClick={async () => {
                try {
                  await resend.mutateAsync({ params: { path: { event_id: record.id } }, body: {} });
                  notifications.show({ color: 'green', message: `${eventWords(record.type)} will be sent again.` });
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
          ['Type', <Code key="type">{record.type}</Code>],
          ['Delivery', <StatusBadge key="status" status={record.status} />],
          ['Created', <DateTime instant={record.created_at} />],
          record.next_attempt_at !== null && ['Next attempt', <DateTime instant={record.next_attempt_at} />],
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
            { header: 'When', cell: (delivery) => <DateTime instant={delivery.started_at} /> },
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
