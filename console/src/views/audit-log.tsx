import { Button, Group, TextInput } from '@mantine/core';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import type { paths } from '@payment-collection/client';
import { $api } from '../api/client.js';
import { formatDateTime } from '../lib/dates.js';
import { apiQuery, filtersFrom, searchFor } from '../lib/filters.js';
import { DataTable, emptyPage, ListFooter, PageHeading, QueryStates, StatusBadge } from './common.js';

const FILTERS = ['action', 'actor_id', 'target_id', 'created_at_between'] as const;
type AuditQuery = NonNullable<paths['/audit-events']['get']['parameters']['query']>;

export function AuditLogPage() {
  const [search, setSearch] = useSearchParams();
  const filters = filtersFrom(search, FILTERS);
  const page = Number(search.get('page') ?? '1') || 1;
  const events = $api.useQuery('get', '/audit-events', { params: { query: { ...apiQuery(filters), page, per_page: 50 } as AuditQuery } });
  const [draft, setDraft] = useState({ action: filters.action ?? '', actor_id: filters.actor_id ?? '', target_id: filters.target_id ?? '' });
  return (
    <>
      <PageHeading title="Audit log" />
      <form
        aria-label="Filters"
        onSubmit={(event) => {
          event.preventDefault();
          setSearch(searchFor({ ...filters, ...draft }));
        }}
      >
        <Group align="flex-end" mb="md">
          <TextInput
            label="Action"
            description="An operation, e.g. createRefund"
            value={draft.action}
            onChange={(e) => setDraft({ ...draft, action: e.currentTarget.value })}
          />
          <TextInput label="Actor id" value={draft.actor_id} onChange={(e) => setDraft({ ...draft, actor_id: e.currentTarget.value })} />
          <TextInput label="Record id" value={draft.target_id} onChange={(e) => setDraft({ ...draft, target_id: e.currentTarget.value })} />
          <Button type="submit">Search</Button>
        </Group>
      </form>
      <QueryStates query={events} what="the audit log" isEmpty={emptyPage} empty={{ title: 'No audit events match' }}>
        {(body) => (
          <>
            <DataTable
              label="Audit events"
              rows={body.data.data}
              rowKey={(event) => event._id}
              minWidth={720}
              columns={[
                { header: 'When', cell: (event) => formatDateTime(event.created_at) },
                { header: 'Who', cell: (event) => `${event.actor.label ?? event.actor.id ?? event.actor.kind} (${event.actor.kind})` },
                { header: 'Action', cell: (event) => event.action },
                { header: 'Records', cell: (event) => event.target_ids.join(', ') || '—' },
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
