import { Anchor, TextInput } from '@mantine/core';
import { Link, useSearchParams } from 'react-router';
import type { components } from '@payment-collection/client';
import { auditSentence, auditWording, type NamedRecord } from '../lib/audit.js';
import { apiQuery, filtersFrom, searchFor, type Filters } from '../lib/filters.js';
import { DateTime, emptyPage, PageHeading, QueryStates, StatusBadge } from './common.js';
import { DataTable, ListFooter } from './data-table.js';
import { FilterBar } from './filter-bar.js';
import { useQuery } from '@tanstack/react-query';
import { auditEventsQuery, type AuditQuery } from '../queries/audit.js';
import { openLinkQuery } from '../queries/open-links.js';
import { paymentLinkQuery } from '../queries/payment-links.js';
import { savedCardQuery } from '../queries/saved-cards.js';
import { webhookEndpointQuery } from '../queries/webhook-endpoints.js';

const FILTERS = ['action', 'actor_id', 'target_id', 'created_at_between'] as const;
type AuditEvent = components['schemas']['AuditEvent'];

/** Where each named record opens in the console. */
const RECORD_PAGES: Record<NamedRecord, (id: string) => string> = {
  payment_link: (id) => `/payment-links/${id}`,
  open_payment_link: (id) => `/open-payment-links/${id}`,
  webhook_endpoint: (id) => `/developers/webhooks/${id}`,
  token: (id) => `/saved-cards/${id}`,
};

/**
 * A record's name as people know it (a link's title, an endpoint's URL, a saved card's payer), read
 * through the records' own queries: a page of the log asks once per record, and a record since deleted
 * (a 404) is left unnamed.
 */
function useRecordName(kind: NamedRecord | undefined, id: string): string | undefined {
  const opts = (on: NamedRecord) => ({ enabled: kind === on && id !== '', retry: false, staleTime: 60_000 });
  const link = useQuery({ ...paymentLinkQuery(id), ...opts('payment_link') });
  const openLink = useQuery({ ...openLinkQuery(id), ...opts('open_payment_link') });
  const endpoint = useQuery({ ...webhookEndpointQuery(id), ...opts('webhook_endpoint') });
  const token = useQuery({ ...savedCardQuery(id), ...opts('token') });
  switch (kind) {
    case 'payment_link':
      return link.data?.data.title;
    case 'open_payment_link':
      return openLink.data?.data.title;
    case 'webhook_endpoint':
      return endpoint.data?.data.url;
    case 'token':
      return token.data?.data.email;
    default:
      return undefined;
  }
}

function WhatHappened({ event }: { event: AuditEvent }) {
  const kind = auditWording(event.action).names;
  const id = event.target_ids[0] ?? '';
  const name = useRecordName(kind, id);
  const sentence = auditSentence(event, name);
  // A record deleted since is not linked: its page would say it does not exist.
  if (kind === undefined || id === '' || name === undefined) return <>{sentence}</>;
  return (
    <Anchor component={Link} to={RECORD_PAGES[kind](id)}>
      {sentence}
    </Anchor>
  );
}

export function AuditLogPage() {
  const [search, setSearch] = useSearchParams();
  const filters = filtersFrom(search, FILTERS);
  const page = Number(search.get('page') ?? '1') || 1;
  const events = useQuery(auditEventsQuery({ ...apiQuery(filters), page, per_page: 50 } as AuditQuery));
  return (
    <>
      <PageHeading title="Audit log" />
      <FilterBar filters={filters} setFilters={(next: Filters) => setSearch(searchFor(next))}>
        <TextInput label="Action" description="An operation, e.g. createRefund" name="action" defaultValue={filters.action ?? ''} />
        <TextInput label="Actor id" name="actor_id" defaultValue={filters.actor_id ?? ''} />
        <TextInput label="Record id" name="target_id" defaultValue={filters.target_id ?? ''} />
      </FilterBar>
      <QueryStates query={events} what="the audit log" isEmpty={emptyPage} empty={{ title: 'No audit events match' }}>
        {(body) => (
          <>
            <DataTable
              label="Audit events"
              rows={body.data.data}
              rowKey={(event) => event._id}
              minWidth={720}
              columns={[
                { header: 'When', cell: (event) => <DateTime instant={event.created_at} /> },
                { header: 'Who', cell: (event) => `${event.actor.label ?? event.actor.id ?? event.actor.kind} (${event.actor.kind.replaceAll('_', ' ')})` },
                { header: 'What happened', cell: (event) => <WhatHappened event={event} /> },
                { header: 'Outcome', cell: (event) => <StatusBadge status={event.outcome} /> },
              ]}
            />
            <ListFooter list={body.data} noun="audit events" page={page} onChange={(next) => setSearch(searchFor(filters, next))} />
          </>
        )}
      </QueryStates>
    </>
  );
}
