// The business's open payment links (GET /api/open-payment-links), filtered by status, reference and day.
import { Button, Group, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { formatUnits } from '../../lib/money.js';
import { useCan } from '../../session.js';
import { apiQuery, filtersFrom, hasFilters, searchFor, type Filters } from '../../lib/filters.js';
import { DateTime, emptyPage, PageHeading, QueryStates, StatusBadge } from '../common.js';
import { DataTable, Pager } from '../data-table.js';
import { FilterBar, StatusFilter } from '../filter-bar.js';
import { openLinksQuery, type OpenLinksQuery } from '../../queries/open-links.js';

const FILTERS = ['status', 'reference', 'created_at_between'] as const;

export function OpenLinksPage() {
  const [search, setSearch] = useSearchParams();
  const filters = filtersFrom(search, FILTERS);
  const page = Number(search.get('page') ?? '1') || 1;
  const links = useQuery(openLinksQuery({ ...apiQuery(filters), page, per_page: 25 } as OpenLinksQuery));
  const canWrite = useCan('open_payment_links:write');
  const setFilters = (next: Filters) => setSearch(searchFor(next));
  return (
    <>
      <PageHeading
        title="Open payment links"
        actions={
          canWrite && (
            <Button component={Link} to="/open-payment-links/new">
              New open payment link
            </Button>
          )
        }
      />
      <FilterBar filters={filters} setFilters={setFilters}>
        <TextInput label="Reference" type="search" name="reference" defaultValue={filters.reference ?? ''} />
        <StatusFilter
          filters={filters}
          setFilters={setFilters}
          choices={[
            { value: 'true', label: 'Active' },
            { value: 'false', label: 'Inactive' },
          ]}
        />
      </FilterBar>
      <QueryStates
        query={links}
        what="open payment links"
        isEmpty={emptyPage}
        empty={{
          title: hasFilters(filters) ? 'No open payment link matches these filters' : 'No open payment links',
          children: <Text size="sm">An open payment link takes any number of payments of at least a minimum amount: donations, fees, a shop counter.</Text>,
        }}
      >
        {(body) => (
          <>
            <DataTable
              label="Open payment links"
              rows={body.data.data}
              rowKey={(link) => link._id}
              rowLink={(link) => `/open-payment-links/${link._id}`}
              columns={[
                { header: 'Title', cell: (link) => link.title },
                { header: 'Minimum', cell: (link) => formatUnits(link.minimum_amount, link.currency) },
                { header: 'State', cell: (link) => <StatusBadge status={link.state} /> },
                { header: 'Payments', cell: (link) => link.payments_count },
                { header: 'Created', cell: (link) => <DateTime instant={link.created_at} /> },
              ]}
            />
            <Group justify="flex-end" mt="md">
              <Pager total={body.data.last_page} page={page} onChange={(next) => setSearch(searchFor(filters, next))} />
            </Group>
          </>
        )}
      </QueryStates>
    </>
  );
}
