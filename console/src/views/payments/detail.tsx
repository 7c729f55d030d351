// One payment: its amounts, fee and net, where its net is, where it came from, its refunds and webhook events.
import { Anchor, Card, Grid, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import type { components } from '@payment-collection/client';
import { formatCents } from '../../lib/money.js';
import { useCan } from '../../session.js';
import { DateTime, Loading, PageHeading, QueryError, StatusBadge } from '../common.js';
import { DataTable, Details } from '../data-table.js';
import { openLinkQuery } from '../../queries/open-links.js';
import { paymentLinkQuery } from '../../queries/payment-links.js';
import { paymentQuery, paymentRefundsQuery } from '../../queries/payments.js';
import { ledgerEntryQuery } from '../../queries/payouts.js';
import { savedCardQuery } from '../../queries/saved-cards.js';
import { RefundForm } from './refund-form.js';
import { PaymentEvents } from './events.js';

type Payment = components['schemas']['Payment'];

/** Where a payment came from, by name: its link's title (read from the link), or the saved card's payer. */
function PaymentSource({ payment }: { payment: Payment }) {
  const linkId = payment.payment_link_id ?? '';
  const openLinkId = payment.open_payment_link_id ?? '';
  const tokenId = payment.tokenization_id ?? '';
  const link = useQuery({ ...paymentLinkQuery(linkId), enabled: linkId !== '' });
  const openLink = useQuery({ ...openLinkQuery(openLinkId), enabled: openLinkId !== '' });
  const token = useQuery({ ...savedCardQuery(tokenId), enabled: tokenId !== '' });
  // Until it is read (or when it was deleted since) the record is named by its kind and id.
  if (linkId !== '')
    return (
      <Anchor component={Link} to={`/payment-links/${linkId}`}>
        {link.data ? `Payment link “${link.data.data.title}”` : `Payment link ${linkId}`}
      </Anchor>
    );
  if (openLinkId !== '')
    return (
      <Anchor component={Link} to={`/open-payment-links/${openLinkId}`}>
        {openLink.data ? `Open payment link “${openLink.data.data.title}”` : `Open payment link ${openLinkId}`}
      </Anchor>
    );
  if (tokenId !== '')
    return (
      <Anchor component={Link} to={`/saved-cards/${tokenId}`}>
        {token.data ? `Saved card of ${token.data.data.email}` : `Saved card ${tokenId}`}
      </Anchor>
    );
  return <>—</>;
}

/** Where the payment's net is: pending until a day, available, or paid out in a payout (linked). */
function LedgerEntryState({ entryId }: { entryId: string }) {
  const entry = useQuery(ledgerEntryQuery(entryId));
  if (entry.isPending) return <Text size="sm">…</Text>;
  if (entry.isError) return <Text size="sm">Its ledger entry could not be read.</Text>;
  const e = entry.data.data;
  if (e.payout_id !== null)
    return (
      <Anchor component={Link} to={`/payouts/${e.payout_id}`}>
        Paid out (available on {e.available_on})
      </Anchor>
    );
  return <>{e.status === 'pending' ? `Pending: available on ${e.available_on}` : `Available since ${e.available_on}, for the next payout`}</>;
}

export function PaymentDetailPage() {
  const { paymentId = '' } = useParams();
  const payment = useQuery(paymentQuery(paymentId));
  const refunds = useQuery(paymentRefundsQuery(paymentId));
  const canRefund = useCan('refunds:write');
  const canReadLedger = useCan('payouts:read');
  if (payment.isPending) return <Loading what="the payment" />;
  if (payment.isError) return <QueryError error={payment.error} />;
  const p = payment.data.data;
  const refundable = p.amount - p.amount_refunded;
  const refundableStatus = p.status === 'paid' || p.status === 'partially_refunded';
  return (
    <>
      <PageHeading title={`Payment ${formatCents(p.amount, p.currency)}`} />
      <Grid>
        <Grid.Col span={{ base: 12, md: 7 }}>
          <Card withBorder>
            <Details
              label="Payment"
              fields={[
                ['Status', <StatusBadge status={p.status} />],
                ['Amount', formatCents(p.amount, p.currency)],
                ['Refunded', formatCents(p.amount_refunded, p.currency)],
                p.fee !== null && ['Fee', formatCents(p.fee, p.currency)],
                p.net !== null && ['Net', formatCents(p.net, p.currency)],
                canReadLedger && p.balance_transaction_id !== null && ['Settlement', <LedgerEntryState entryId={p.balance_transaction_id} />],
                ['Created', <DateTime instant={p.created_at} />],
                p.reference !== null && ['Reference', p.reference],
                ['Payer', [p.payer_name, p.payer_email].filter((part) => part !== null && part !== '').join(' · ') || '—'],
                ['Method', `${p.method ?? '—'} ${p.card_brand ?? ''} ${p.card_last4 ? `ending ${p.card_last4}` : ''} (${p.provider})`],
                p.failure_message !== null && ['Failure', p.failure_message],
                ['From', <PaymentSource key="from" payment={p} />],
              ]}
            />
          </Card>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 5 }}>
          {canRefund && refundableStatus && refundable > 0 && <RefundForm paymentId={p._id} refundable={refundable} currency={p.currency} />}
        </Grid.Col>
      </Grid>
      <Title order={2} size="h3" mt="lg" mb="sm">
        Refunds
      </Title>
      {refunds.isPending ? (
        <Loading what="refunds" />
      ) : refunds.isError ? (
        <QueryError error={refunds.error} />
      ) : refunds.data.data.length === 0 ? (
        <Text size="sm">No refunds.</Text>
      ) : (
        <DataTable
          label="Refunds"
          rows={refunds.data.data}
          rowKey={(refund) => refund._id}
          columns={[
            { header: 'Created', cell: (refund) => <DateTime instant={refund.created_at} /> },
            { header: 'Amount', cell: (refund) => formatCents(refund.amount, refund.currency) },
            { header: 'Status', cell: (refund) => <StatusBadge status={refund.status} /> },
            { header: 'Reason', cell: (refund) => refund.reason ?? '—' },
          ]}
        />
      )}
      <Title order={2} size="h3" mt="lg" mb="sm">
        Webhook events
      </Title>
      <PaymentEvents paymentId={p._id} createdAt={p.created_at} />
    </>
  );
}
