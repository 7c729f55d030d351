import { Anchor, Button, Card, Grid, Group, NumberInput, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { $api, api } from '../api/client.js';
import { formatDateTime } from '../lib/dates.js';
import { EVENT_PAGES_READ, eventRangeFor, namesPayment } from '../lib/events.js';
import { formatCents } from '../lib/money.js';
import { useIdempotencyKey } from '../lib/idempotency.js';
import { useCan } from '../session.js';
import { ConfirmModal, DataTable, Details, Loading, PageHeading, QueryError, showRefusal, StatusBadge } from './common.js';

/**
 * The refund form: closed until asked for, empty, and cleared once a refund is made. An amount above
 * what is left goes to the API as it is and comes back with its message (the form never lowers it);
 * every send carries an Idempotency-Key, so a double click or a retry refunds once.
 */
function RefundForm({ paymentId, refundable, currency }: { paymentId: string; refundable: number; currency: string }) {
  const queryClient = useQueryClient();
  const [opened, setOpened] = useState(false);
  const [amount, setAmount] = useState<number | string>('');
  const [reason, setReason] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const refund = $api.useMutation('post', '/payments/{payment_id}/refunds');
  const cents = Math.round(Number(amount) * 100);
  const full = cents === refundable;
  const body = { ...(full ? {} : { amount: cents }), ...(reason.trim() ? { reason: reason.trim() } : {}) };
  const idempotency = useIdempotencyKey({ paymentId, body });

  async function send() {
    try {
      await refund.mutateAsync({ params: { path: { payment_id: paymentId }, header: { 'Idempotency-Key': idempotency.key } }, body });
      notifications.show({ color: 'green', message: `Refund of ${formatCents(cents, currency)} asked.` });
      idempotency.done();
      setErrors({});
      setAmount('');
      setReason('');
      setOpened(false);
      await queryClient.invalidateQueries();
    } catch (error) {
      showRefusal(error, ['amount', 'reason'], setErrors);
    } finally {
      setConfirming(false);
    }
  }

  if (!opened)
    return (
      <Button color="red" variant="light" w="fit-content" onClick={() => setOpened(true)}>
        Refund this payment
      </Button>
    );
  return (
    <Card withBorder>
      <form
        aria-label="Refund"
        onSubmit={(event) => {
          event.preventDefault();
          // Past what is left there is nothing to confirm: the API says why it cannot be done.
          if (cents > refundable) void send();
          else setConfirming(true);
        }}
      >
        <Stack>
          <Title order={2} size="h4">
            Refund
          </Title>
          <NumberInput
            label={`Amount (${currency})`}
            description={`Up to ${formatCents(refundable, currency)}`}
            decimalScale={2}
            min={0.01}
            clampBehavior="none"
            value={amount}
            onChange={setAmount}
            error={errors.amount}
          />
          <TextInput label="Reason" value={reason} onChange={(e) => setReason(e.currentTarget.value)} error={errors.reason} maxLength={255} />
          <Group>
            <Button type="submit" color="red" loading={refund.isPending} disabled={!(cents > 0)}>
              Refund…
            </Button>
            <Button variant="default" onClick={() => setOpened(false)}>
              Cancel
            </Button>
          </Group>
        </Stack>
      </form>
      <ConfirmModal
        opened={confirming}
        title="Refund this payment?"
        confirmLabel={`Refund ${formatCents(cents, currency)}`}
        busy={refund.isPending}
        onConfirm={send}
        onClose={() => setConfirming(false)}
      >
        <Text>
          {formatCents(cents, currency)} goes back to the payer{full ? ' (all that is left of the payment)' : ''}. A refund cannot be undone.
        </Text>
      </ConfirmModal>
    </Card>
  );
}

function PaymentEvents({ paymentId, createdAt }: { paymentId: string; createdAt: string }) {
  const canResend = useCan('events:write');
  const [opened, setOpened] = useState<string>();
  const events = useQuery({
    queryKey: ['payment-events', paymentId],
    queryFn: async () => {
      const found = [];
      let complete = true;
      for (let page = 1; page <= EVENT_PAGES_READ; page += 1) {
        const { data, error } = await api.GET('/events', {
          params: { query: { page, per_page: 100, 'filter[created_at_between]': eventRangeFor(createdAt) } },
        });
        if (error) throw error;
        found.push(...data.data.data.filter((event) => namesPayment(event.data, paymentId)));
        if (data.data.next_page_url === null) break;
        if (page === EVENT_PAGES_READ) complete = false;
      }
      return { found, complete };
    },
  });
  const detail = $api.useQuery('get', '/events/{event_id}', { params: { path: { event_id: opened ?? '' } } }, { enabled: opened !== undefined });
  const resend = $api.useMutation('post', '/events/{event_id}/resend');
  if (events.isPending) return <Loading what="webhook events" />;
  if (events.isError) return <QueryError error={events.error} />;
  return (
    <Stack>
      {events.data.found.length === 0 && <Text size="sm">No webhook event names this payment.</Text>}
      {!events.data.complete && (
        <Text size="sm" c="dimmed">
          Only the first {EVENT_PAGES_READ * 100} events of those days were read: the events list has no payment filter yet.
        </Text>
      )}
      {events.data.found.length > 0 && (
        <Table aria-label="Webhook events">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Event</Table.Th>
              <Table.Th>Delivery</Table.Th>
              <Table.Th>Attempts</Table.Th>
              <Table.Th>Actions</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {events.data.found.map((event) => (
              <Table.Tr key={event.id}>
                <Table.Td>
                  {event.type}
                  <Text size="xs" c="dimmed">
                    {formatDateTime(event.created_at)}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <StatusBadge status={event.status} />
                </Table.Td>
                <Table.Td>{event.attempts}</Table.Td>
                <Table.Td>
                  <Group gap="xs">
                    <Button
                      size="xs"
                      variant="default"
                      onClick={() => setOpened(opened === event.id ? undefined : event.id)}
                      aria-expanded={opened === event.id}
                    >
                      Deliveries of {event.type}
                    </Button>
                    {canResend && (
                      <Button
                        size="xs"
                        variant="default"
                        loading={resend.isPending}
                        onClick={async () => {
                          await resend.mutateAsync({ params: { path: { event_id: event.id } }, body: {} });
                          notifications.show({ color: 'green', message: `${event.type} will be sent again.` });
                          await events.refetch();
                        }}
                      >
                        Resend {event.type}
                      </Button>
                    )}
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {opened && detail.data && (
        <>
          {detail.data.data.deliveries.length === 0 && <Text size="sm">Not tried yet.</Text>}
          <DataTable
            label="Deliveries"
            rows={detail.data.data.deliveries}
            rowKey={(delivery) => `${delivery.webhook_endpoint_id}-${delivery.attempt}-${delivery.started_at}`}
            columns={[
              { header: 'When', cell: (delivery) => formatDateTime(delivery.started_at) },
              { header: 'Endpoint', cell: (delivery) => delivery.url ?? '—' },
              {
                header: 'Outcome',
                cell: (delivery) => (
                  <>
                    <StatusBadge status={delivery.outcome} /> {delivery.http_status ?? ''} {delivery.error ?? ''}
                  </>
                ),
              },
            ]}
          />
        </>
      )}
    </Stack>
  );
}

export function PaymentDetailPage() {
  const { paymentId = '' } = useParams();
  const payment = $api.useQuery('get', '/payments/{payment_id}', { params: { path: { payment_id: paymentId } } });
  const refunds = $api.useQuery('get', '/payments/{payment_id}/refunds', { params: { path: { payment_id: paymentId } } });
  const canRefund = useCan('refunds:write');
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
                ['Created', formatDateTime(p.created_at)],
                ['Payer', `${p.payer_name ?? ''} ${p.payer_email ?? ''}`],
                ['Method', `${p.method ?? '—'} ${p.card_brand ?? ''} ${p.card_last4 ? `ending ${p.card_last4}` : ''} (${p.provider})`],
                p.failure_message !== null && ['Failure', p.failure_message],
                [
                  'From',
                  <>
                    {p.payment_link_id && (
                      <Anchor component={Link} to={`/payment-links/${p.payment_link_id}`}>
                        Payment link {p.payment_link_id}
                      </Anchor>
                    )}
                    {p.open_payment_link_id && (
                      <Anchor component={Link} to={`/open-payment-links/${p.open_payment_link_id}`}>
                        Open payment link {p.open_payment_link_id}
                      </Anchor>
                    )}
                    {p.tokenization_id && (
                      <Anchor component={Link} to={`/saved-cards/${p.tokenization_id}`}>
                        Saved card {p.tokenization_id}
                      </Anchor>
                    )}
                  </>,
                ],
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
            { header: 'Created', cell: (refund) => formatDateTime(refund.created_at) },
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
