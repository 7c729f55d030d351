// The overview's balance (GET /api/balance): what the business is owed and not yet paid out, per
// currency, available (the next payout takes it) and pending (available on a later day).
import { Anchor, Card, Group, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { formatCents } from '../lib/money.js';
import { balanceRows } from '../lib/payouts.js';
import { Loading, QueryError } from './common.js';
import { balanceQuery } from '../queries/balance.js';

function Figure({ label, cents, currency }: { label: string; cents: number; currency: string }) {
  return (
    <div>
      <Text size="sm">{label}</Text>
      <Text fw={700} size="xl">
        {formatCents(cents, currency)}
      </Text>
    </div>
  );
}

export function BalanceCard() {
  const balance = useQuery(balanceQuery());
  return (
    <Card withBorder component="section" aria-label="Balance">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4">
          Balance
        </Title>
        <Anchor component={Link} to="/payouts" size="sm">
          Payouts
        </Anchor>
      </Group>
      {balance.isPending ? (
        <Loading what="the balance" />
      ) : balance.isError ? (
        <QueryError error={balance.error} />
      ) : (
        <Stack gap="xs">
          {balanceRows(balance.data.data.available, balance.data.data.pending).map((row) => (
            <Group key={row.currency} gap="xl">
              <Figure label="Available" cents={row.available} currency={row.currency} />
              <Figure label="Pending" cents={row.pending} currency={row.currency} />
            </Group>
          ))}
          <Text size="xs">
            Available: paid out with the next payout. Pending: available on a later day. As of {balance.data.data.today} ({balance.data.data.time_zone}).
          </Text>
        </Stack>
      )}
    </Card>
  );
}
