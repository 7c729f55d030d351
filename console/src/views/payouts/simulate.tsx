// On the sandbox, the payout schedule run for a day the merchant picks, to rehearse their bookkeeping.
import { Alert, Anchor, Button, Card, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { $api } from '../../api/client.js';
import { useBusinessTime } from '../../lib/business-time.js';
import { refusalMessage } from '../../lib/errors.js';
import { formatCents } from '../../lib/money.js';
import type { Payout } from '../../lib/payouts.js';
import { balanceQuery } from '../../queries/balance.js';
import { everyLedgerEntryKey, ledgerEntriesKey, payoutsListKey } from '../../queries/payouts.js';

/**
 * The sandbox's payout schedule run as if today were the day picked. The sandbox has no bank: this is
 * how a merchant sees what a payout, its CSV and a bank statement's match will look like.
 */
export function SimulatePayout() {
  const queryClient = useQueryClient();
  const run = $api.useMutation('post', '/test-helpers/payouts');
  const { today } = useBusinessTime();
  // The business's today once its zone is read, until the merchant picks a day.
  const [picked, setDay] = useState<string>();
  const day = picked ?? today() ?? '';
  const [made, setMade] = useState<Payout[]>();
  const [refused, setRefused] = useState<string>();
  return (
    <Card withBorder mb="md">
      <form
        aria-label="Simulate a payout"
        onSubmit={async (event) => {
          event.preventDefault();
          setRefused(undefined);
          setMade(undefined);
          try {
            const answer = await run.mutateAsync({ body: { as_of: day } });
            setMade(answer.data);
            // What a payout changes: the payouts, the ledger entries it took, and the balance they left.
            await Promise.all(
              [payoutsListKey, ledgerEntriesKey, everyLedgerEntryKey, balanceQuery().queryKey].map((queryKey) => queryClient.invalidateQueries({ queryKey })),
            );
          } catch (error) {
            setRefused(refusalMessage(error));
          }
        }}
      >
        <Stack gap="xs">
          <Title order={2} size="h4">
            Simulate a payout (sandbox)
          </Title>
          <Text size="sm">
            On the sandbox no bank moves money. Pick a day and the sandbox runs its payout schedule as if that day were today: a payment&apos;s net becomes
            available some business days after it was paid (weekends and Malaysian public holidays skipped), and each business day one payout per currency takes
            everything available by then. Nothing is paid out twice for a day, and no payout is made on a weekend or holiday. Use it to rehearse your
            bookkeeping: open the payout, download its CSV, upload a bank statement that shows it.
          </Text>
          <Group align="flex-end">
            <TextInput type="date" label="Run the schedule for" required value={day} onChange={(e) => setDay(e.currentTarget.value)} w={200} />
            <Button type="submit" loading={run.isPending} disabled={day === ''}>
              Simulate payouts
            </Button>
          </Group>
          {refused !== undefined && (
            <Alert color="red" role="alert" title="The sandbox refused this">
              {refused}
            </Alert>
          )}
          {made !== undefined && (
            <Alert
              color={made.length > 0 ? 'green' : 'gray'}
              role="status"
              title={made.length === 0 ? `No payout made for ${day}` : `${made.length} payout${made.length === 1 ? '' : 's'} made for ${day}`}
            >
              {made.length === 0 ? (
                'Nothing was available to pay out that day, it is a weekend or public holiday, or its payouts were made before.'
              ) : (
                <Stack gap={2}>
                  {made.map((payout) => (
                    <Anchor key={payout._id} component={Link} to={`/payouts/${payout._id}`}>
                      Payout of {formatCents(payout.amount, payout.currency)} arriving {payout.arrival_date}
                    </Anchor>
                  ))}
                </Stack>
              )}
            </Alert>
          )}
        </Stack>
      </form>
    </Card>
  );
}
