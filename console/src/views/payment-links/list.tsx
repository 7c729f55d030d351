// The business's payment links (GET /api/payment-links), filtered by status, payer and day.
import { Button, Group, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { useBusinessTime } from '../../lib/business-time.js';
import { apiQuery, filtersFrom, searchFor, type Filters } from '../../lib/filters.js';
import { formatCents } from '../../lib/money.js';
import { statusChoices } from '../../lib/statuses.js';
import { useCan } from '../../session.js';
import { FilterBar, StatusFilter } from '../filter-bar.js';
import { emptyPage, PageHeading, QueryStates, StatusBadge } from '../common.js';
import { DataTable, Pager } from '../data-table.js';
import { paymentLinksQuery, type PaymentLinksQuery } from '../../queries/payment-links.js';

const FILTERS = ['status', 'email', 'reference', 'created_at_between'] as const;

const LINK_STATUSES = ['Active', 'Paid', 'Paused', 'Expired'] as const;

export function PaymentLinksPage() {
  const [search, setSearch] = useSearchParams();
  const filters = filtersFrom(search, FILTERS);
  const page = Number(search.get('page') ?? '1') || 1;
  const links = useQuery(paymentLinksQuery({ ...apiQuery(filters), page, per_page: 25 } as PaymentLinksQuery));
  const canWrite = useCan('payment_links:write');
  const { dateTime } = useBusinessTime();
  const setFilters = (next: Filters) => setSearch(searchFor(next));
  return (
    <>
      <PageHeading
        title="Payment links"
        actions={
          canWrite && (
            <Button component={Link} to="/payment-links/new">
              New payment link
            </Button>
          )
        }
      />
      <FilterBar filters={filters} setFilters={setFilters}>
        <TextInput label="Payer e-mail" type="search" name="email" defaultValue={filters.email ?? ''} />
        <TextInput label="Reference" type="search" name="reference" defaultValue={filters.reference ?? ''} />
        <StatusFilter filters={filters} setFilters={setFilters} choices={statusChoices(LINK_STATUSES)} />
      </FilterBar>
      <QueryStates
        query={links}
        what="payment links"
        isEmpty={emptyPage}
        empty={{
          title: Object.keys(filters).length > 0 ? 'No payment link matches these filters' : 'No payment links yet',
          children: (
            <>
              <Text size="sm">A payment link asks one payer for one amount: create one and send its page to your payer.</Text>
              {canWrite && (
                <Button component={Link} to="/payment-links/new">
                  Create your first payment link
                </Button>
              )}
            </>
          ),
        }}
      >
        {(body) => (
          <>
            <DataTable
              label="Payment links"
              rows={body.data.data}
              rowKey={(link) => link._id}
              rowLink={(link) => `/payment-links/${link._id}`}
              columns={[
                { header: 'Title', cell: (link) => link.title },
                { header: 'Amount', cell: (link) => formatCents(link.amount, link.currency) },
                { header: 'Status', cell: (link) => <StatusBadge status={link.status} /> },
                { header: 'Payer', cell: (link) => link.email },
                { header: 'Created', cell: (link) => dateTime(link.created_at) },
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
