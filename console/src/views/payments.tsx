import { Anchor, Button, Group, Progress, Select, Stack, Text, TextInput } from '@mantine/core';
import { DatePickerInput, type DatesRangeValue } from '@mantine/dates';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { $api, api, type ListQuery } from '../api/client.js';
import { formatDateTime } from '../lib/dates.js';
import { readWithProgress, type ExportProgress } from '../lib/csv-export.js';
import { fieldErrors } from '../lib/errors.js';
import { apiQuery, filtersFrom, searchFor, type Filters } from '../lib/filters.js';
import { formatCents } from '../lib/money.js';
import { useCan } from '../session.js';
import { DataTable, emptyPage, ListFooter, PageHeading, QueryError, QueryStates, StatusBadge } from './common.js';

const FILTERS = [
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
const TYPED_FILTERS = ['filter.email', 'filter.card_last4'];
const PER_PAGE = 50;

type PaymentQuery = ListQuery<'/payments'>;

function rangeValue(range: string | undefined): DatesRangeValue<string> {
  const [from, to] = range?.split(',') ?? [];
  return [from ?? null, to ?? null];
}

function ExportButton({ query }: { query: PaymentQuery }) {
  const [progress, setProgress] = useState<ExportProgress>();
  async function run() {
    setProgress({ bytes: 0, lines: 0 });
    try {
      const { response } = await api.GET('/payments', { params: { query }, headers: { Accept: 'text/csv' }, parseAs: 'stream' });
      if (!response.ok) {
        const body = (await response.json().catch(() => ({}))) as { message?: string };
        notifications.show({ color: 'red', message: body.message ?? `The export failed (HTTP ${response.status}).` });
        return;
      }
      const blob = await readWithProgress(response, setProgress);
      const url = URL.createObjectURL(blob);
      const anchor = document.createElement('a');
      anchor.href = url;
      anchor.download = `payments-${new Date().toISOString().slice(0, 10)}.csv`;
      anchor.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      notifications.show({ color: 'green', message: 'The export is downloaded.' });
    } finally {
      setProgress(undefined);
    }
  }
  return (
    <Group gap="xs">
      <Button variant="default" onClick={run} loading={progress !== undefined}>
        Export CSV
      </Button>
      {progress && (
        <Stack gap={2} w={160}>
          <Progress value={100} animated aria-label="Export progress" />
          <Text size="xs" aria-live="polite">
            {Math.max(progress.lines - 1, 0)} lines read
          </Text>
        </Stack>
      )}
    </Group>
  );
}

export function PaymentsPage() {
  const [search, setSearch] = useSearchParams();
  const filters = filtersFrom(search, FILTERS);
  const page = Number(search.get('page') ?? '1') || 1;
  const query = { ...apiQuery(filters), page, per_page: PER_PAGE } as PaymentQuery;
  const payments = $api.useQuery('get', '/payments', { params: { query } });
  const canExport = useCan('exports:read');
  const setFilter = (name: string, value: string | null) => setSearch(searchFor({ ...filters, [name]: value ?? '' } as Filters));
  const [email, setEmail] = useState(filters.email ?? '');
  const [cardLast4, setCardLast4] = useState(filters.card_last4 ?? '');
  const refused = payments.isError ? fieldErrors(payments.error, TYPED_FILTERS) : undefined;

  return (
    <>
      <PageHeading title="Payments" actions={canExport && <ExportButton query={{ ...apiQuery(filters) } as PaymentQuery} />} />
      <form
        onSubmit={(event) => {
          event.preventDefault();
          setSearch(searchFor({ ...filters, email, card_last4: cardLast4 }));
        }}
        aria-label="Filters"
      >
        <Group align="flex-end" mb="md" wrap="wrap">
          <TextInput
            label="Payer e-mail"
            type="search"
            value={email}
            onChange={(e) => setEmail(e.currentTarget.value)}
            error={refused?.fields['filter.email']}
          />
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
            data={['paid', 'pending', 'failed', 'partially_refunded', 'refunded']}
            value={filters.status ?? null}
            onChange={(value) => setFilter('status', value)}
          />
          <Select label="Method" clearable data={['card', 'fpx', 'grabpay']} value={filters.method ?? null} onChange={(value) => setFilter('method', value)} />
          <TextInput label="Payment link id" defaultValue={filters.payment_link_id ?? ''} onBlur={(e) => setFilter('payment_link_id', e.currentTarget.value)} />
          <DatePickerInput
            type="range"
            label="Created between"
            clearable
            allowSingleDateInRange
            value={rangeValue(filters.created_at_between)}
            onChange={([from, to]) => setFilter('created_at_between', from && to ? `${from},${to}` : '')}
            w={240}
          />
          <Button type="submit">Search</Button>
        </Group>
      </form>
      <QueryStates
        query={payments}
        what="payments"
        isEmpty={emptyPage}
        empty={{
          title: Object.keys(filters).length > 0 ? 'No payment matches these filters' : 'No payments yet',
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
              columns={[
                {
                  header: 'Created',
                  cell: (payment) => (
                    <Anchor component={Link} to={`/payments/${payment._id}`}>
                      {formatDateTime(payment.created_at)}
                    </Anchor>
                  ),
                },
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
