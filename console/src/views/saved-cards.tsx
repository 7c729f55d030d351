// Saved cards (tokenizations): the business's list (GET /api/tokenizations), and each card, charged from
// its page.
import { Anchor, Button, Card, Group, Select, Stack, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import type { paths } from '@payment-collection/client';
import { $api } from '../api/client.js';
import { formatDateTime } from '../lib/dates.js';
import { apiQuery, filtersFrom, searchFor } from '../lib/filters.js';
import { useIdempotencyKey } from '../lib/idempotency.js';
import { formatCents, parseAmountToCents } from '../lib/money.js';
import { useCan } from '../session.js';
import { ConfirmModal, DataTable, Details, emptyPage, ListFooter, Loading, PageHeading, QueryError, QueryStates, showRefusal, StatusBadge } from './common.js';

const FILTERS = ['status', 'email'] as const;
type TokenQuery = NonNullable<paths['/tokenizations']['get']['parameters']['query']>;

/** The business's saved cards and the requests for one, newest first, filtered by state and payer. */
export function SavedCardsPage() {
  const [search, setSearch] = useSearchParams();
  const filters = filtersFrom(search, FILTERS);
  const page = Number(search.get('page') ?? '1') || 1;
  const tokens = $api.useQuery('get', '/tokenizations', { params: { query: { ...apiQuery(filters), page, per_page: 25 } as TokenQuery } });
  const [email, setEmail] = useState(filters.email ?? '');
  return (
    <>
      <PageHeading title="Saved cards" />
      <form
        aria-label="Filters"
        onSubmit={(event) => {
          event.preventDefault();
          setSearch(searchFor({ ...filters, email }));
        }}
      >
        <Group align="flex-end" mb="md">
          <TextInput label="Payer e-mail" type="search" value={email} onChange={(e) => setEmail(e.currentTarget.value)} />
          <Select
            label="Status"
            clearable
            data={[
              { value: 'active', label: 'Card saved' },
              { value: 'pending', label: 'Waiting for a card' },
            ]}
            value={filters.status ?? null}
            onChange={(value) => setSearch(searchFor({ ...filters, status: value ?? '' }))}
          />
          <Button type="submit">Search</Button>
        </Group>
      </form>
      <QueryStates
        query={tokens}
        what="saved cards"
        isEmpty={emptyPage}
        empty={{
          title: Object.keys(filters).length > 0 ? 'No saved card matches these filters' : 'No saved cards yet',
          children: <Text size="sm">Your integration asks a payer to save a card with POST /api/tokenizations/create-token; each appears here.</Text>,
        }}
      >
        {(body) => (
          <>
            <DataTable
              label="Saved cards"
              rows={body.data.data}
              rowKey={(token) => token._id}
              columns={[
                {
                  header: 'Payer',
                  cell: (token) => (
                    <Anchor component={Link} to={`/saved-cards/${token._id}`}>
                      {token.email}
                    </Anchor>
                  ),
                },
                { header: 'Title', cell: (token) => token.title },
                { header: 'Card', cell: (token) => (token.card ? `${token.card.brand} ending ${token.card.last4}` : '—') },
                { header: 'Status', cell: (token) => <StatusBadge status={token.status} /> },
                { header: 'Created', cell: (token) => formatDateTime(token.created_at) },
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
  const [amount, setAmount] = useState('');
  const [description, setDescription] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const cents = parseAmountToCents(amount);

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
      await queryClient.invalidateQueries();
      navigate(`/payments/${payment._id}`);
    } catch (error) {
      showRefusal(error, ['amount', 'description'], setErrors);
    }
  }

  return (
    <Card withBorder maw={520}>
      <form
        aria-label="Charge the card"
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          if (cents === undefined) setErrors({ amount: 'Enter an amount such as 12.50.' });
          else setConfirming(true);
        }}
      >
        <Stack>
          <TextInput
            label="Amount (MYR)"
            inputMode="decimal"
            required
            value={amount}
            onChange={(e) => setAmount(e.currentTarget.value)}
            error={errors.amount}
          />
          <TextInput label="Description" value={description} onChange={(e) => setDescription(e.currentTarget.value)} error={errors.description} />
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
  const token = $api.useQuery('get', '/tokenizations/{token_id}', { params: { path: { token_id: tokenId } } });
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
            ['Created', formatDateTime(t.created_at)],
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
