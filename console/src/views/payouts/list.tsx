// Payouts: the sums sent to the business's bank account (GET /api/payouts), filtered by status and day.
import { Button, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { apiQuery, filtersFrom, hasFilters, searchFor, type Filters } from '../../lib/filters.js';
import { formatCents } from '../../lib/money.js';
import { PAYOUT_STATUSES } from '../../lib/payouts.js';
import { statusChoices } from '../../lib/statuses.js';
import { useCan } from '../../session.js';
import { FilterBar, StatusFilter } from '../filter-bar.js';
import { emptyPage, PageHeading, QueryStates, StatusBadge } from '../common.js';
import { DataTable, ListFooter } from '../data-table.js';
import { payoutsQuery, type PayoutsQuery } from '../../queries/payouts.js';
import { SimulatePayout } from './simulate.js';
import { Reconciliation } from './detail.js';

const FILTERS = ['status', 'created_at_between'] as const;

export function PayoutsPage() {
  const [search, setSearch] = useSearchParams();
  const filters = filtersFrom(search, FILTERS);
  const page = Number(search.get('page') ?? '1') || 1;
  const payouts = useQuery(payoutsQuery({ ...apiQuery(filters), page, per_page: 25 } as PayoutsQuery));
  const canUpload = useCan('bank_statements:write');
  // Offered whatever the acquirer: a business off the sandbox is told why by the service's own 403.
  const canSimulate = useCan('payouts:write');
  const setFilters = (next: Filters) => setSearch(searchFor(next));
  return (
    <>
      <PageHeading
        title="Payouts"
        actions={
          canUpload && (
            <Button component={Link} to="/payouts/bank-statements/new" variant="default">
              Upload a bank statement
            </Button>
          )
        }
      />
      {canSimulate && <SimulatePayout />}
      <FilterBar filters={filters} setFilters={setFilters} searchButton={false}>
        <StatusFilter filters={filters} setFilters={setFilters} choices={statusChoices(PAYOUT_STATUSES)} />
      </FilterBar>
      <QueryStates
        query={payouts}
        what="payouts"
        isEmpty={emptyPage}
        empty={{
          title: hasFilters(filters) ? 'No payout matches these filters' : 'No payouts yet',
          children: (
            <Text size="sm">What your payments collect, less the acquirer&apos;s fees and refunds, is paid out to your bank account and listed here.</Text>
          ),
        }}
      >
        {(body) => (
          <>
            <DataTable
              label="Payouts"
              minWidth={720}
              rows={body.data.data}
              rowKey={(payout) => payout._id}
              rowLink={(payout) => `/payouts/${payout._id}`}
              columns={[
                { header: 'Arrival', cell: (payout) => payout.arrival_date },
                { header: 'Amount', cell: (payout) => formatCents(payout.amount, payout.currency) },
                { header: 'Status', cell: (payout) => <StatusBadge status={payout.status} /> },
                { header: 'Reconciliation', cell: (payout) => <Reconciliation reconciliation={payout.reconciliation} /> },
                { header: 'Entries', cell: (payout) => payout.transaction_count },
              ]}
            />
            <ListFooter list={body.data} noun="payouts" page={page} onChange={(next) => setSearch(searchFor(filters, next))} />
          </>
        )}
      </QueryStates>
    </>
  );
}
