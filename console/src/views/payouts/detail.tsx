// One payout: the ledger entries it paid out and their totals, its itemized CSV, and how it reconciles.
import { Alert, Anchor, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { api } from '../../api/client.js';
import { formatCents } from '../../lib/money.js';
import { paymentOf, payoutCsvName, payoutItems, totalsOf, type LedgerEntry, type Payout } from '../../lib/payouts.js';
import { saveFile } from '../save-file.js';
import { DateTime, Loading, PageHeading, QueryError, StatusBadge } from '../common.js';
import { DataTable, Details } from '../data-table.js';
import { ENTRY_PAGES_READ, payoutEntriesQuery, payoutQuery } from '../../queries/payouts.js';

/** Where a payout stands against its entries and the bank: a mismatched one is flagged in words, not by colour alone. */
export function Reconciliation({ reconciliation }: { reconciliation: Payout['reconciliation'] }) {
  return (
    <Stack gap={2}>
      <Group gap={4} wrap="nowrap">
        {reconciliation.status === 'mismatched' && (
          <Text span fw={700} size="sm">
            ⚠ Check:
          </Text>
        )}
        <StatusBadge status={reconciliation.status} />
      </Group>
      {reconciliation.reason && <Text size="xs">{reconciliation.reason}</Text>}
    </Stack>
  );
}

function DownloadCsv({ payout }: { payout: Payout }) {
  const [busy, setBusy] = useState(false);
  async function download() {
    setBusy(true);
    try {
      const { response } = await api.GET('/payouts/{payout_id}', {
        params: { path: { payout_id: payout._id } },
        headers: { Accept: 'text/csv' },
        parseAs: 'stream',
      });
      if (!response.ok) {
        const body = (await response.json().catch(() => ({}))) as { message?: string };
        notifications.show({ color: 'red', message: body.message ?? `The download failed (HTTP ${response.status}).` });
        return;
      }
      saveFile(await response.blob(), payoutCsvName(payout));
    } finally {
      setBusy(false);
    }
  }
  return (
    <Button variant="default" onClick={download} loading={busy}>
      Download the itemized CSV
    </Button>
  );
}

function EntrySource({ entry }: { entry: LedgerEntry }) {
  const paymentId = paymentOf(entry);
  if (paymentId)
    return (
      <Anchor component={Link} to={`/payments/${paymentId}`}>
        Payment {paymentId}
      </Anchor>
    );
  return (
    <>
      {entry.source_type} {entry.source_id}
    </>
  );
}

function PayoutEntries({ payout }: { payout: Payout }) {
  const read = useQuery(payoutEntriesQuery(payout._id));
  if (read.isPending) return <Loading what="the payout's entries" />;
  if (read.isError) return <QueryError error={read.error} />;
  const items = payoutItems(payout._id, read.data.entries);
  const totals = totalsOf(items);
  const money = (cents: number) => formatCents(cents, payout.currency);
  return (
    <Stack>
      <DataTable
        label="Entries"
        minWidth={720}
        rows={items}
        rowKey={(entry) => entry._id}
        columns={[
          { header: 'Type', cell: (entry) => entry.type.replaceAll('_', ' ') },
          { header: 'Source', cell: (entry) => <EntrySource entry={entry} /> },
          { header: 'Available on', cell: (entry) => entry.available_on },
          { header: 'Gross', cell: (entry) => money(entry.amount) },
          { header: 'Fee', cell: (entry) => money(entry.fee) },
          { header: 'Net', cell: (entry) => money(entry.net) },
        ]}
      />
      {read.data.complete ? (
        <Card withBorder maw={480}>
          <Title order={3} size="h4" mb="xs">
            Totals
          </Title>
          <Details
            label="Totals"
            fields={[
              ['Gross', money(totals.gross)],
              ['Fee', money(totals.fee)],
              ['Net', money(totals.net)],
            ]}
          />
          <Text size="sm" mt="xs">
            {totals.net === payout.amount
              ? `The entries' net adds up to the payout's ${money(payout.amount)}.`
              : `⚠ The entries' net differs from the payout's ${money(payout.amount)} by ${money(totals.net - payout.amount)}.`}
          </Text>
        </Card>
      ) : (
        <Text size="sm">Only the first {ENTRY_PAGES_READ * 100} entries are shown here; the itemized CSV has them all, with their totals.</Text>
      )}
    </Stack>
  );
}

export function PayoutPage() {
  const { payoutId = '' } = useParams();
  const payout = useQuery(payoutQuery(payoutId));
  if (payout.isPending) return <Loading what="the payout" />;
  if (payout.isError) return <QueryError error={payout.error} />;
  const p = payout.data.data;
  return (
    <>
      <PageHeading title={`Payout ${formatCents(p.amount, p.currency)}`} actions={<DownloadCsv payout={p} />} />
      {p.reconciliation.status === 'mismatched' && (
        <Alert color="red" title="This payout does not reconcile" mb="md">
          {p.reconciliation.reason ?? 'Its entries or its deposit do not match it.'}
        </Alert>
      )}
      <Card withBorder mb="md" maw={720}>
        <Details
          label="Payout"
          fields={[
            ['Status', <StatusBadge status={p.status} />],
            ['Amount', `${formatCents(p.amount, p.currency)}${p.amount < 0 ? ' (taken from the bank account)' : ''}`],
            ['Arrival', p.arrival_date],
            ['Reconciliation', <Reconciliation reconciliation={p.reconciliation} />],
            p.reconciliation.checked_at !== null && ['Last checked', <DateTime instant={p.reconciliation.checked_at} />],
            ['Bank reference', p.bank_reference ?? '—'],
            ['Acquirer', `${p.provider} ${p.acquirer_reference}`],
            ['Entries', p.transaction_count],
            p.failure_message !== null && ['Failure', `${p.failure_message}${p.failure_code ? ` (${p.failure_code})` : ''}`],
            ['Created', <DateTime instant={p.created_at} />],
          ]}
        />
      </Card>
      <Title order={2} size="h3" mb="sm">
        Entries
      </Title>
      <PayoutEntries payout={p} />
    </>
  );
}
