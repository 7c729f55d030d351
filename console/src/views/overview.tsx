import { BarChart } from '@mantine/charts';
import { Alert, Anchor, Card, Group, SegmentedControl, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { DatePickerInput } from '@mantine/dates';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api } from '../api/client.js';
import { SCAN_LIMIT, perDay, summarize, withinDays, type GroupBy, type PaymentRow } from '../lib/collections.js';
import { addDays, dayIn, utcRangeCovering } from '../lib/dates.js';
import { formatCents, formatUnits } from '../lib/money.js';
import { useCan } from '../session.js';
import { DataTable, EmptyState, Loading, PageHeading, QueryError } from './common.js';

interface Scan {
  rows: PaymentRow[];
  /** False when the range holds more than SCAN_LIMIT payments: its sums would need a report the API lacks. */
  complete: boolean;
  total: number;
}

/** The payments of business days `from`..`to`, read a hundred at a time up to SCAN_LIMIT. */
async function scanPayments(from: string, to: string): Promise<Scan> {
  const rows: PaymentRow[] = [];
  let total = 0;
  for (let page = 1; page <= SCAN_LIMIT / 100; page += 1) {
    const { data, error } = await api.GET('/payments', {
      params: { query: { page, per_page: 100, 'filter[created_at_between]': utcRangeCovering(from, to) } },
    });
    if (error) throw error;
    total = data.data.total;
    rows.push(...data.data.data);
    if (data.data.next_page_url === null) return { rows: withinDays(rows, from, to), complete: true, total };
  }
  return { rows: withinDays(rows, from, to), complete: false, total };
}

function usePayments(from: string, to: string) {
  return useQuery({ queryKey: ['overview-payments', from, to], queryFn: () => scanPayments(from, to) });
}

function money(byCurrency: Record<string, number>): string {
  const entries = Object.entries(byCurrency);
  return entries.length === 0 ? formatCents(0, 'MYR') : entries.map(([currency, cents]) => formatCents(cents, currency)).join(' + ');
}

function PeriodCard({ title, rows }: { title: string; rows: PaymentRow[] }) {
  const summary = summarize(rows);
  return (
    <Card withBorder component="section" aria-label={title}>
      <Title order={2} size="h5">
        {title}
      </Title>
      <Text fw={700} size="xl">
        {money(summary.collected)}
      </Text>
      <Text size="sm">
        {summary.collectedCount} paid · success rate {summary.successRate === null ? '—' : `${Math.round(summary.successRate * 100)}%`}
      </Text>
      <Text size="sm">
        Refunded {money(summary.refunded)} ({summary.refundedCount})
      </Text>
    </Card>
  );
}

function TooMany({ total }: { total: number }) {
  return (
    <Alert color="yellow" title="Too many payments to sum here">
      This range holds {total.toLocaleString('en-MY')} payments. The console sums up to {SCAN_LIMIT.toLocaleString('en-MY')} from the payments list; larger
      ranges need the collections report (GET /api/reports/collections), which the API does not offer yet.
    </Alert>
  );
}

function TopOpenLinks() {
  const links = useQuery({
    queryKey: ['overview-top-open-links'],
    queryFn: async () => {
      // The newest active links and their totals: the API has no ranking of links by what they collected.
      const { data, error } = await api.GET('/open-payment-links', { params: { query: { per_page: 10, 'filter[status]': true } } });
      if (error) throw error;
      const totals = await Promise.all(
        data.data.data.map(async (link) => {
          const total = await api.GET('/open-payment-links/{open_payment_link_id}/total-collection', { params: { path: { open_payment_link_id: link._id } } });
          return { link, total: total.data?.data };
        }),
      );
      return totals.filter((entry) => entry.total !== undefined).sort((a, b) => b.total!.total_amount - a.total!.total_amount);
    },
  });
  if (links.isPending) return <Loading what="open payment links" />;
  if (links.isError) return <QueryError error={links.error} />;
  if (links.data.length === 0) return <Text size="sm">No active open payment links.</Text>;
  return (
    <DataTable
      label="Top open payment links"
      rows={links.data}
      rowKey={({ link }) => link._id}
      minWidth={360}
      columns={[
        {
          header: 'Open payment link',
          cell: ({ link }) => (
            <Anchor component={Link} to={`/open-payment-links/${link._id}`}>
              {link.title}
            </Anchor>
          ),
        },
        { header: 'Collected', cell: ({ total }) => formatUnits(total!.total_amount, total!.currency) },
        { header: 'Payments', cell: ({ total }) => total!.total_count },
      ]}
    />
  );
}

const SERIES_COLORS = ['indigo.6', 'teal.6', 'orange.6', 'grape.6', 'red.6', 'cyan.6'];

function CollectionsChart({ today }: { today: string }) {
  const [range, setRange] = useState<[string | null, string | null]>([addDays(today, -13), today]);
  const [groupBy, setGroupBy] = useState<GroupBy>('method');
  const [from, to] = range[0] && range[1] ? [range[0], range[1]] : [addDays(today, -13), today];
  const scan = usePayments(from, to);
  const series = scan.data ? perDay(scan.data.rows, from, to, groupBy) : undefined;
  return (
    <Card withBorder component="section" aria-label="Collections per day">
      <Group justify="space-between" mb="sm" wrap="wrap">
        <Title order={2} size="h4">
          Collections per day
        </Title>
        <Group wrap="wrap">
          <DatePickerInput type="range" label="Days" value={range} onChange={setRange} maxDate={today} w={240} />
          <SegmentedControl
            aria-label="Split by"
            value={groupBy}
            onChange={(value) => setGroupBy(value as GroupBy)}
            data={[
              { value: 'method', label: 'By method (RM)' },
              { value: 'status', label: 'By status (count)' },
            ]}
          />
        </Group>
      </Group>
      {scan.isPending ? (
        <Loading what="the chart" />
      ) : scan.isError ? (
        <QueryError error={scan.error} />
      ) : !scan.data.complete ? (
        <TooMany total={scan.data.total} />
      ) : (
        <div role="img" aria-label={`Collections per day from ${from} to ${to}, ${groupBy === 'method' ? 'amount by method' : 'count by status'}`}>
          <BarChart
            h={280}
            data={series!.rows}
            dataKey="day"
            type="stacked"
            withLegend
            series={series!.groups.map((group, index) => ({ name: group, color: SERIES_COLORS[index % SERIES_COLORS.length]! }))}
            valueFormatter={(value) => (groupBy === 'method' ? formatUnits(value, 'MYR') : String(value))}
          />
        </div>
      )}
    </Card>
  );
}

export function OverviewPage() {
  const today = dayIn(new Date());
  const month = usePayments(addDays(today, -29), today);
  const canOpenLinks = useCan('open_payment_links:read');
  return (
    <>
      <PageHeading title="Overview" />
      <Stack>
        {month.isPending ? (
          <Loading what="the figures" />
        ) : month.isError ? (
          <QueryError error={month.error} />
        ) : !month.data.complete ? (
          <TooMany total={month.data.total} />
        ) : month.data.rows.length === 0 ? (
          <EmptyState title="No payments in the last 30 days">
            <Text size="sm">
              Create a{' '}
              <Anchor component={Link} to="/payment-links/new">
                payment link
              </Anchor>{' '}
              and send it to a payer: what they pay shows here.
            </Text>
          </EmptyState>
        ) : (
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <PeriodCard title="Today" rows={withinDays(month.data.rows, today, today)} />
            <PeriodCard title="Last 7 days" rows={withinDays(month.data.rows, addDays(today, -6), today)} />
            <PeriodCard title="Last 30 days" rows={month.data.rows} />
          </SimpleGrid>
        )}
        <CollectionsChart today={today} />
        {canOpenLinks && (
          <Card withBorder component="section" aria-label="Top open payment links">
            <Title order={2} size="h4" mb="sm">
              Top open payment links
            </Title>
            <TopOpenLinks />
          </Card>
        )}
      </Stack>
    </>
  );
}
