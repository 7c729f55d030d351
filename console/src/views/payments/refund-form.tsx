// A payment's refund form, behind a confirmation.
import { Button, Card, Group, NumberInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { $api } from '../../api/client.js';
import { formatCents } from '../../lib/money.js';
import { useIdempotencyKey } from '../../lib/idempotency.js';
import { useApiForm } from '../api-form.js';
import { ConfirmModal } from '../common.js';
import { balanceQuery } from '../../queries/balance.js';
import { paymentEventsKey } from '../../queries/events.js';
import { paymentQuery, paymentRefundsQuery, paymentsListKey } from '../../queries/payments.js';

/**
 * The refund form: closed until asked for, empty, and cleared once a refund is made. An amount above
 * what is left goes to the API as it is and comes back with its message (the form never lowers it);
 * every send carries an Idempotency-Key, so a double click or a retry refunds once.
 */
export function RefundForm({ paymentId, refundable, currency }: { paymentId: string; refundable: number; currency: string }) {
  const queryClient = useQueryClient();
  const [opened, setOpened] = useState(false);
  const { form, refuse, done } = useApiForm<{ amount: number | string; reason: string }>({ amount: '', reason: '' }, { toast: true });
  const [confirming, setConfirming] = useState(false);
  const refund = $api.useMutation('post', '/payments/{payment_id}/refunds');
  const cents = Math.round(Number(form.values.amount) * 100);
  const reason = form.values.reason;
  const full = cents === refundable;
  const body = { ...(full ? {} : { amount: cents }), ...(reason.trim() ? { reason: reason.trim() } : {}) };
  const idempotency = useIdempotencyKey({ paymentId, body });

  async function send() {
    try {
      await refund.mutateAsync({ params: { path: { payment_id: paymentId }, header: { 'Idempotency-Key': idempotency.key } }, body });
      notifications.show({ color: 'green', message: `Refund of ${formatCents(cents, currency)} asked.` });
      idempotency.done();
      done();
      setOpened(false);
      // The payment and its refunds, the payments list, the balance the refund is taken from, and the
      // payment's webhook events (a refund enqueues one).
      const changed = [
        paymentQuery(paymentId).queryKey,
        paymentRefundsQuery(paymentId).queryKey,
        paymentsListKey,
        balanceQuery().queryKey,
        paymentEventsKey(paymentId),
      ];
      await Promise.all(changed.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
    } catch (error) {
      refuse(error);
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
        onSubmit={form.onSubmit(() => {
          // Past what is left there is nothing to confirm: the API says why it cannot be done.
          if (cents > refundable) void send();
          else setConfirming(true);
        })}
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
            {...form.getInputProps('amount')}
          />
          <TextInput label="Reason" {...form.getInputProps('reason')} maxLength={255} />
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
