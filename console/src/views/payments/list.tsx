// The payments list (GET /api/payments): its filters, typed ones with their 422 messages under them, and its pages.
import { Anchor, Select, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { fieldErrors } from '../../lib/errors.js';
import { apiQuery, filtersFrom, hasFilters, searchFor, type Filters } from '../../lib/filters.js';
import { formatCents } from '../../lib/money.js';
import { statusChoices } from '../../lib/statuses.js';
import { useCan } from '../../session.js';
import { FilterBar } from '../filter-bar.js';
import { DateTime, emptyPage, PageHeading, QueryError, QueryStates, StatusBadge } from '../common.js';
import { DataTable, ListFooter } from '../data-table.js';
import { useQuery } from '@tanstack/react-query';
import { paymentsQuery, type PaymentsQuery } from '../../queries/payments.js';
import { ExportButton } from './export.js';
import { LinkPicker } from './link-picker.js';

const FILTERS = [
  'search',
  'status',
  'method',
  'payment_link_id',
  'open_payment_link_id',
  'tokenization_id',
  'email',
  'card_last4',
  'reference',
  'created_at_between',
] as const;

/** The typed filters whose 422 message is shown under their field rather than above the list. */
const TYPED_FILTERS = ['filter.search', 'filter.email', 'filter.card_last4'];

const PER_PAGE = 50;

const PAYMENT_STATUSES = ['paid', 'pending', 'failed', 'partially_refunded', 'refunded'] as const;

export function PaymentsPage() {
  const [search, setSearch] = useSearchParams();
  const filters = filtersFrom(search, FILTERS);
  const page = Number(search.get('page') ?? '1') || 1;
  const query = { ...apiQuery(filters), page, per_page: PER_PAGE } as PaymentsQuery;
  const payments = useQuery(paymentsQuery(query));
  const canExport = useCan('exports:read');
  const setFilter = (name: string, value: string | null) => setSearch(searchFor({ ...filters, [name]: value ?? '' } as Filters));
  const [term, setTerm] = useState(filters.search ?? '');
  const [email, setEmail] = useState(filters.email ?? '');
  const [cardLast4, setCardLast4] = useState(filters.card_last4 ?? '');
  const refused = payments.isError ? fieldErrors(payments.error, TYPED_FILTERS) : undefined;

  return (
    <>
      <PageHeading title="Payments" actions={canExport && <ExportButton query={{ ...apiQuery(filters) } as PaymentsQuery} />} />
      <FilterBar
        filters={filters}
        setFilters={(next) => setSearch(searchFor(next))}
        draft={{ search: term, email, card_last4: cardLast4 }}
        onClear={() => {
          setTerm('');
          setEmail('');
          setCardLast4('');
        }}
      >
        <TextInput
          label="Search payments"
          description="E-mail, name, reference or amount"
          type="search"
          value={term}
          onChange={(e) => setTerm(e.currentTarget.value)}
          error={refused?.fields['filter.search']}
          w={260}
        />
        <TextInput label="Payer e-mail" type="search" value={email} onChange={(e) => setEmail(e.currentTarget.value)} error={refused?.fields['filter.email']} />
        <TextInput
          label="Card last 4"
          type="search"
          inputMode="numeric"
          autoComplete="off"
          maxLength={4}
          w={120}
          value={cardLast4}
          onChange={(e) => setCardLast4(e.currentTarget.value)}
          error={refused?.fields['filter.card_last4']}
        />
        <Select
          label="Status"
          clearable
          data={statusChoices(PAYMENT_STATUSES)}
          value={filters.status ?? null}
          onChange={(value) => setFilter('status', value)}
        />
        <Select label="Method" clearable data={['card', 'fpx', 'grabpay']} value={filters.method ?? null} onChange={(value) => setFilter('method', value)} />
        <LinkPicker
          value={
            filters.payment_link_id
              ? `payment_link_id:${filters.payment_link_id}`
              : filters.open_payment_link_id
                ? `open_payment_link_id:${filters.open_payment_link_id}`
                : null
          }
          onChange={(picked) => {
            const [filter, id] = picked?.split(':') ?? [];
            setSearch(
              searchFor({
                ...filters,
                payment_link_id: filter === 'payment_link_id' ? id! : '',
                open_payment_link_id: filter === 'open_payment_link_id' ? id! : '',
              }),
            );
          }}
        />
      </FilterBar>
      <QueryStates
        query={payments}
        what="payments"
        isEmpty={emptyPage}
        empty={{
          title: hasFilters(filters) ? 'No payment matches these filters' : 'No payments yet',
          children: (
            <Text size="sm">
              Payments appear here once a payer pays one of your{' '}
              <Anchor component={Link} to="/payment-links">
                payment links
              </Anchor>
              .
            </Text>
          ),
        }}
        refused={(error) =>
          Object.keys(refused?.fields ?? {}).length === 0 ? (
            <QueryError error={error} />
          ) : (
            // The typed filters' messages are under their fields; only what concerns none of them is said here.
            refused?.general !== undefined && <QueryError error={{ message: refused.general }} />
          )
        }
      >
        {(body) => (
          <>
            <DataTable
              label="Payments"
              minWidth={640}
              rows={body.data.data}
              rowKey={(payment) => payment._id}
              rowLink={(payment) => `/payments/${payment._id}`}
              columns={[
                { header: 'Created', cell: (payment) => <DateTime instant={payment.created_at} /> },
                { header: 'Amount', cell: (payment) => formatCents(payment.amount, payment.currency) },
                { header: 'Status', cell: (payment) => <StatusBadge status={payment.status} /> },
                { header: 'Method', cell: (payment) => `${payment.method ?? '—'}${payment.card_last4 ? ` ·${payment.card_last4}` : ''}` },
                { header: 'Payer', cell: (payment) => payment.payer_email ?? '—' },
                { header: 'Reference', cell: (payment) => payment.reference ?? '—' },
              ]}
            />
            <ListFooter list={body.data} noun="payments" page={page} onChange={(next) => setSearch(searchFor(filters, next))} />
          </>
        )}
      </QueryStates>
    </>
  );
}
