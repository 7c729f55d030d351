// Saved cards (tokenizations). The API lists none (there is no GET /api/tokenizations): a card is opened
// by its token id, as a payment's detail links to it, and charged from there.
import { Anchor, Button, Card, Stack, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { $api } from '../api/client.js';
import { formatDateTime } from '../lib/dates.js';
import { useIdempotencyKey } from '../lib/idempotency.js';
import { formatCents, parseAmountToCents } from '../lib/money.js';
import { useCan } from '../session.js';
import { ConfirmModal, Details, Loading, PageHeading, QueryError, showRefusal, StatusBadge } from './common.js';

export function SavedCardsPage() {
  const navigate = useNavigate();
  const [id, setId] = useState('');
  return (
    <>
      <PageHeading title="Saved cards" />
      <Stack maw={520}>
        <Text size="sm">
          The API has no list of saved cards yet: open one by its token id (from your integration, or from a charge in{' '}
          <Anchor component={Link} to="/payments">
            Payments
          </Anchor>
          ).
        </Text>
        <form
          aria-label="Open a saved card"
          onSubmit={(event) => {
            event.preventDefault();
            if (id.trim()) navigate(`/saved-cards/${encodeURIComponent(id.trim())}`);
          }}
        >
          <Stack>
            <TextInput label="Token id" required value={id} onChange={(e) => setId(e.currentTarget.value)} />
            <Button type="submit" w="fit-content">
              Open
            </Button>
          </Stack>
        </form>
      </Stack>
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
