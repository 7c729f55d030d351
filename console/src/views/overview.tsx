import { Anchor, Card, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Suspense, lazy } from 'react';
import { Link } from 'react-router';
import { summarize, withinDays, type ReportBucket } from '../lib/collections.js';
import { BalanceCard } from './balance-card.js';
import { useCollections } from './overview-data.js';
import { useBusinessTime } from '../lib/business-time.js';
import { addDays } from '../lib/dates.js';
import { formatCents, formatUnits } from '../lib/money.js';
import { topOpenLinksQuery } from '../queries/open-links.js';
import { useCan } from '../session.js';
import { EmptyState, Loading, PageHeading, QueryError } from './common.js';
import { DataTable } from './data-table.js';

function money(byCurrency: Record<string, number>): string {
  const entries = Object.entries(byCurrency);
  return entries.length === 0 ? formatCents(0, 'MYR') : entries.map(([currency, cents]) => formatCents(cents, currency)).join(' + ');
}

function PeriodCard({ title, buckets }: { title: string; buckets: ReportBucket[] }) {
  const summary = summarize(buckets);
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
      <Text size="sm">Refunded {money(summary.refunded)}</Text>
    </Card>
  );
}

function TopOpenLinks() {
  const links = useQuery(topOpenLinksQuery());
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

// The chart (Recharts, the date picker) is the heaviest part of the console: it loads after the figures.
const CollectionsChart = lazy(async () => ({ default: (await import('./collections-chart.js')).CollectionsChart }));

export function OverviewPage() {
  // The report's own range: the last 30 days up to today in the business's time zone.
  const month = useCollections();
  const businessTime = useBusinessTime();
  const today = month.data?.to ?? businessTime.today() ?? '';
  const canOpenLinks = useCan('open_payment_links:read');
  const canReadBalance = useCan('payouts:read');
  return (
    <>
      <PageHeading title="Overview" />
      <Stack>
        {month.isPending ? (
          <Loading what="the figures" />
        ) : month.isError ? (
          <QueryError error={month.error} />
        ) : month.data.buckets.length === 0 ? (
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
            <PeriodCard title="Today" buckets={withinDays(month.data.buckets, today, today)} />
            <PeriodCard title="Last 7 days" buckets={withinDays(month.data.buckets, addDays(today, -6), today)} />
            <PeriodCard title="Last 30 days" buckets={month.data.buckets} />
          </SimpleGrid>
        )}
        {canReadBalance && <BalanceCard />}
        {/* The chart's days start from the business's today: drawn once that day is known. */}
        {today !== '' && (
          <Suspense fallback={<Loading what="the chart" />}>
            <CollectionsChart today={today} />
          </Suspense>
        )}
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
