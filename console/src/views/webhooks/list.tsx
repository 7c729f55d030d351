// The business's webhook endpoints (GET /api/webhook-endpoints), and the form that adds one.
import { Anchor, Box, Button, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useCan } from '../../session.js';
import { emptyList, PageHeading, QueryStates, StatusBadge } from '../common.js';
import { DataTable } from '../data-table.js';
import { webhookEndpointsQuery } from '../../queries/webhook-endpoints.js';
import { NewEndpointForm, type Endpoint } from './form.js';

// A URL (or an event type) has no space to wrap at: it wraps anywhere rather than push the page sideways
// at a phone's width, whole for screen readers, for copying and on hover.
export const WRAPPED = { overflowWrap: 'anywhere' } as const;

export const eventsOf = (endpoint: Endpoint) => (endpoint.enabled_events.includes('*') ? 'All' : endpoint.enabled_events.join(', '));

export function WebhooksPage() {
  const canWrite = useCan('webhooks:write');
  const endpoints = useQuery(webhookEndpointsQuery());
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
            minWidth={320}
            columns={[
              {
                header: 'URL',
                cell: (endpoint) => (
                  <Anchor component={Link} to={`/developers/webhooks/${endpoint._id}`} style={WRAPPED}>
                    {endpoint.url}
                  </Anchor>
                ),
              },
              { header: 'Description', cell: (endpoint) => endpoint.description ?? '—' },
              { header: 'Events', cell: (endpoint) => <span style={WRAPPED}>{eventsOf(endpoint)}</span> },
              {
                header: 'State',
                // Whole, however narrow the column: a badge otherwise gives way to the URL beside it ("A…").
                cell: (endpoint) => (
                  <Box miw="max-content">
                    <StatusBadge status={endpoint.enabled ? 'active' : 'paused'} />
                  </Box>
                ),
              },
            ]}
          />
        )}
      </QueryStates>
    </>
  );
}
