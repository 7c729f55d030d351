// One open payment link: its fields, what it collected and from whom, its share link; paused, resumed or deleted.
import { Anchor, Card, Grid, SimpleGrid, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { $api } from '../../api/client.js';
import { formatUnits } from '../../lib/money.js';
import { useCan } from '../../session.js';
import { DateTime, Loading, PageHeading, QueryError, StatusBadge } from '../common.js';
import { DataTable, Details } from '../data-table.js';
import { ShareLink } from '../links-common.js';
import { LinkActions } from '../link-actions.js';
import { openLinkQuery, openLinksListKey, openLinkTopPayersQuery, openLinkTotalQuery } from '../../queries/open-links.js';

export function OpenLinkDetailPage() {
  const { linkId = '' } = useParams();
  const path = { open_payment_link_id: linkId };
  const link = useQuery(openLinkQuery(linkId));
  const total = useQuery(openLinkTotalQuery(linkId));
  const top = useQuery(openLinkTopPayersQuery(linkId, 5));
  const canWrite = useCan('open_payment_links:write');
  const pause = $api.useMutation('post', '/open-payment-links/{open_payment_link_id}/pause');
  const resume = $api.useMutation('post', '/open-payment-links/{open_payment_link_id}/resume');
  const remove = $api.useMutation('delete', '/open-payment-links/{open_payment_link_id}');
  if (link.isPending) return <Loading what="the open payment link" />;
  if (link.isError) return <QueryError error={link.error} />;
  const l = link.data.data;
  return (
    <>
      <PageHeading
        title={l.title}
        actions={
          canWrite && (
            <LinkActions
              kind="open payment link"
              record={openLinkQuery(linkId).queryKey}
              list={openLinksListKey}
              listPath="/open-payment-links"
              pause={{ offered: l.state === 'active', run: () => pause.mutateAsync({ params: { path } }), busy: pause.isPending }}
              resume={{ offered: l.state !== 'active', run: () => resume.mutateAsync({ params: { path } }), busy: resume.isPending }}
              remove={{
                offered: true,
                run: () => remove.mutateAsync({ params: { path } }),
                busy: remove.isPending,
                warning: `Payers can no longer pay “${l.title}”. Its payments stay. This cannot be undone.`,
              }}
            />
          )
        }
      />
      <SimpleGrid cols={{ base: 1, sm: 3 }} mb="md">
        <Card withBorder>
          <Text size="sm">Collected</Text>
          <Text fw={700} size="xl">
            {total.data ? formatUnits(total.data.data.total_amount, total.data.data.currency) : '…'}
          </Text>
        </Card>
        <Card withBorder>
          <Text size="sm">Payments</Text>
          <Text fw={700} size="xl">
            {total.data ? total.data.data.total_count : '…'}
          </Text>
        </Card>
        <Card withBorder>
          <Text size="sm">Refunded</Text>
          <Text fw={700} size="xl">
            {total.data ? formatUnits(total.data.data.total_refunded, total.data.data.currency) : '…'}
          </Text>
        </Card>
      </SimpleGrid>
      <Grid>
        <Grid.Col span={{ base: 12, md: 7 }}>
          <Card withBorder mb="md">
            <Details
              label="Open payment link"
              fields={[
                ['State', <StatusBadge status={l.state} />],
                ['Minimum', formatUnits(l.minimum_amount, l.currency)],
                ['Reference', l.reference ?? '—'],
                ['Most payments', l.max_payments ?? 'No limit'],
              ]}
            />
          </Card>
          <Title order={2} size="h4" mb="xs">
            Top collection
          </Title>
          {top.data && top.data.data.collections.length === 0 && <Text size="sm">Nobody has paid yet.</Text>}
          {top.data && top.data.data.collections.length > 0 && (
            <DataTable
              label="Top collection"
              rows={top.data.data.collections}
              rowKey={(collection) => collection._id}
              minWidth={360}
              columns={[
                {
                  header: 'Payer',
                  cell: (collection) => (
                    <Anchor component={Link} to={`/payments/${collection._id}`}>
                      {collection.payer_name ?? collection.payer_email ?? 'Anonymous'}
                    </Anchor>
                  ),
                },
                { header: 'Amount', cell: (collection) => formatUnits(collection.amount, top.data.data.currency) },
                { header: 'When', cell: (collection) => <DateTime instant={collection.created_at} /> },
              ]}
            />
          )}
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 5 }}>
          <ShareLink url={l.payment_url} qrSrc={`/api/open-payment-links/${l._id}/qr`} title={l.title} />
          <Anchor href={`/payment/open-link/poster?id=${encodeURIComponent(l._id)}`} target="_blank" rel="noopener" mt="sm" display="block">
            Printable poster (opens in a new tab)
          </Anchor>
        </Grid.Col>
      </Grid>
    </>
  );
}
