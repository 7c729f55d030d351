// Saved cards (tokenizations): the business's list (GET /api/tokenizations), and each card, charged from
// its page.
import { Anchor, Button, Card, Stack, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { $api } from '../api/client.js';
import { apiQuery, filtersFrom, hasFilters, searchFor, type Filters } from '../lib/filters.js';
import { useApiForm } from './api-form.js';
import { useIdempotencyKey } from '../lib/idempotency.js';
import { formatCents, parseAmountToCents } from '../lib/money.js';
import { useCan } from '../session.js';
import { FilterBar, StatusFilter } from './filter-bar.js';
import { ConfirmModal, DateTime, emptyPage, Loading, PageHeading, QueryError, QueryStates, StatusBadge } from './common.js';
import { DataTable, Details, ListFooter } from './data-table.js';
import { balanceQuery } from '../queries/balance.js';
import { paymentsListKey } from '../queries/payments.js';
import { savedCardQuery, savedCardsQuery, type SavedCardsQuery } from '../queries/saved-cards.js';

const FILTERS = ['status', 'email', 'created_at_between'] as const;

/** The business's saved cards and the requests for one, newest first, filtered by state and payer. */
export function SavedCardsPage() {
  const [search, setSearch] = useSearchParams();
  const filters = filtersFrom(search, FILTERS);
  const page = Number(search.get('page') ?? '1') || 1;
  const tokens = useQuery(savedCardsQuery({ ...apiQuery(filters), page, per_page: 25 } as SavedCardsQuery));
  const setFilters = (next: Filters) => setSearch(searchFor(next));
  return (
    <>
      <PageHeading title="Saved cards" />
      <FilterBar filters={filters} setFilters={setFilters}>
        <TextInput label="Payer e-mail" type="search" name="email" defaultValue={filters.email ?? ''} />
        <StatusFilter
          filters={filters}
          setFilters={setFilters}
          choices={[
            { value: 'active', label: 'Card saved' },
            { value: 'pending', label: 'Waiting for a card' },
          ]}
        />
      </FilterBar>
      <QueryStates
        query={tokens}
        what="saved cards"
        isEmpty={emptyPage}
        empty={{
          title: hasFilters(filters) ? 'No saved card matches these filters' : 'No saved cards yet',
          children: <Text size="sm">Your integration asks a payer to save a card with POST /api/tokenizations/create-token; each appears here.</Text>,
        }}
      >
        {(body) => (
          <>
            <DataTable
              label="Saved cards"
              rows={body.data.data}
              rowKey={(token) => token._id}
              rowLink={(token) => `/saved-cards/${token._id}`}
              columns={[
                { header: 'Payer', cell: (token) => token.email },
                { header: 'Title', cell: (token) => token.title },
                { header: 'Card', cell: (token) => (token.card ? `${token.card.brand} ending ${token.card.last4}` : '—') },
                { header: 'Status', cell: (token) => <StatusBadge status={token.status} /> },
                { header: 'Created', cell: (token) => <DateTime instant={token.created_at} /> },
              ]}
            />
            <ListFooter list={body.data} noun="saved cards and requests" page={page} onChange={(next) => setSearch(searchFor(filters, next))} />
          </>
        )}
      </QueryStates>
    </>
  );
}

function ChargeForm({ tokenId }: { tokenId: string }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const charge = $api.useMutation('post', '/tokenizations/{token_id}/charges');
  const { form, refuse } = useApiForm({ amount: '', description: '' }, { toast: true });
  const [confirming, setConfirming] = useState(false);
  const cents = parseAmountToCents(form.values.amount);
  const description = form.values.description;

  const body = { amount: cents!, currency: 'MYR', ...(description ? { description } : {}) };
  // The same charge sent twice (a double click, a retry after a lost answer) is made once.
  const idempotency = useIdempotencyKey({ tokenId, body });

  async function confirm() {
    setConfirming(false);
    try {
      const result = await charge.mutateAsync({ params: { path: { token_id: tokenId }, header: { 'Idempotency-Key': idempotency.key } }, body });
      idempotency.done();
      const payment = (result as { data: { _id: string } }).data;
      notifications.show({ color: 'green', message: `Charged ${formatCents(cents!, 'MYR')}.` });
      // The card's payments list and the balance the charge is paid into; the payment opens fresh.
      await Promise.all([paymentsListKey, balanceQuery().queryKey].map((queryKey) => queryClient.invalidateQueries({ queryKey })));
      navigate(`/payments/${payment._id}`);
    } catch (error) {
      refuse(error);
    }
  }

  return (
    <Card withBorder maw={520}>
      <form
        aria-label="Charge the card"
        onSubmit={form.onSubmit(() => {
          if (cents === undefined) form.setErrors({ amount: 'Enter an amount such as 12.50.' });
          else setConfirming(true);
        })}
      >
        <Stack>
          <TextInput label="Amount (MYR)" inputMode="decimal" required {...form.getInputProps('amount')} />
          <TextInput label="Description" {...form.getInputProps('description')} />
          <Button type="submit" loading={charge.isPending} w="fit-content">
            Charge…
          </Button>
        </Stack>
      </form>
      <ConfirmModal
        opened={confirming}
        title="Charge this card?"
        confirmLabel={`Charge ${cents === undefined ? '' : formatCents(cents, 'MYR')}`}
        color="indigo"
        onConfirm={confirm}
        onClose={() => setConfirming(false)}
      >
        <Text>The card is charged at once, without the payer present.</Text>
      </ConfirmModal>
    </Card>
  );
}

export function SavedCardPage() {
  const { tokenId = '' } = useParams();
  const token = useQuery(savedCardQuery(tokenId));
  const canCharge = useCan('charges:write');
  if (token.isPending) return <Loading what="the saved card" />;
  if (token.isError) return <QueryError error={token.error} />;
  const t = token.data.data;
  return (
    <>
      <PageHeading title={`Saved card: ${t.title}`} />
      <Card withBorder mb="md" maw={640}>
        <Details
          label="Saved card"
          fields={[
            ['Status', <StatusBadge status={t.status} />],
            ['Payer', t.email],
            ['Card', t.card ? `${t.card.brand} ending ${t.card.last4}, expires ${t.card.exp_month}/${t.card.exp_year}` : 'No card saved yet'],
            ['Created', <DateTime instant={t.created_at} />],
          ]}
        />
        <Anchor component={Link} to={`/payments?tokenization_id=${t._id}`} mt="sm">
          Charges of this card
        </Anchor>
      </Card>
      {canCharge && t.status === 'active' && t.card && <ChargeForm tokenId={t._id} />}
    </>
  );
}
