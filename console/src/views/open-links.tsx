import { Anchor, Button, Card, Grid, Group, Select, SimpleGrid, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { $api, type ListQuery } from '../api/client.js';
import { formatDateTime } from '../lib/dates.js';
import { fieldErrors } from '../lib/errors.js';
import { apiQuery, filtersFrom, searchFor } from '../lib/filters.js';
import { formatUnits } from '../lib/money.js';
import { useCan } from '../session.js';
import { ConfirmModal, DataTable, Details, emptyPage, Loading, PageHeading, Pager, QueryError, QueryStates, StatusBadge } from './common.js';
import { ShareLink } from './links-common.js';

const FILTERS = ['status', 'reference', 'created_at_between'] as const;
type OpenLinkQuery = ListQuery<'/open-payment-links'>;

export function OpenLinksPage() {
  const [search, setSearch] = useSearchParams();
  const filters = filtersFrom(search, FILTERS);
  const page = Number(search.get('page') ?? '1') || 1;
  const links = $api.useQuery('get', '/open-payment-links', { params: { query: { ...apiQuery(filters), page, per_page: 25 } as OpenLinkQuery } });
  const canWrite = useCan('open_payment_links:write');
  const [reference, setReference] = useState(filters.reference ?? '');
  return (
    <>
      <PageHeading
        title="Open payment links"
        actions={
          canWrite && (
            <Button component={Link} to="/open-payment-links/new">
              New open payment link
            </Button>
          )
        }
      />
      <form
        aria-label="Filters"
        onSubmit={(event) => {
          event.preventDefault();
          setSearch(searchFor({ ...filters, reference }));
        }}
      >
        <Group align="flex-end" mb="md">
          <TextInput label="Reference" type="search" value={reference} onChange={(e) => setReference(e.currentTarget.value)} />
          <Select
            label="Status"
            clearable
            data={[
              { value: 'true', label: 'Active' },
              { value: 'false', label: 'Inactive' },
            ]}
            value={filters.status ?? null}
            onChange={(value) => setSearch(searchFor({ ...filters, status: value ?? '' }))}
          />
          <Button type="submit">Search</Button>
        </Group>
      </form>
      <QueryStates
        query={links}
        what="open payment links"
        isEmpty={emptyPage}
        empty={{
          title: 'No open payment links',
          children: <Text size="sm">An open payment link takes any number of payments of at least a minimum amount: donations, fees, a shop counter.</Text>,
        }}
      >
        {(body) => (
          <>
            <DataTable
              label="Open payment links"
              rows={body.data.data}
              rowKey={(link) => link._id}
              columns={[
                {
                  header: 'Title',
                  cell: (link) => (
                    <Anchor component={Link} to={`/open-payment-links/${link._id}`}>
                      {link.title}
                    </Anchor>
                  ),
                },
                { header: 'Minimum', cell: (link) => formatUnits(link.minimum_amount, link.currency) },
                { header: 'State', cell: (link) => <StatusBadge status={link.state} /> },
                { header: 'Payments', cell: (link) => link.payments_count },
                { header: 'Created', cell: (link) => formatDateTime(link.created_at) },
              ]}
            />
            <Group justify="flex-end" mt="md">
              <Pager total={body.data.last_page} page={page} onChange={(next) => setSearch(searchFor(filters, next))} />
            </Group>
          </>
        )}
      </QueryStates>
    </>
  );
}

const FIELDS = ['title', 'minimum_amount', 'description', 'reference', 'max_payments', 'currency'] as const;

export function NewOpenLinkPage() {
  const navigate = useNavigate();
  const create = $api.useMutation('post', '/open-payment-links');
  const [values, setValues] = useState({ title: '', minimum_amount: '', description: '', reference: '', max_payments: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState<string>();
  const set = (name: keyof typeof values) => (event: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) =>
    setValues({ ...values, [name]: event.currentTarget.value });

  async function submit(event: FormEvent) {
    event.preventDefault();
    try {
      const created = await create.mutateAsync({
        body: {
          currency: 'MYR',
          title: values.title,
          minimum_amount: values.minimum_amount,
          ...(values.description ? { description: values.description } : {}),
          ...(values.reference ? { reference: values.reference } : {}),
          ...(values.max_payments ? { max_payments: Number(values.max_payments) } : {}),
        },
      });
      notifications.show({ color: 'green', message: `Open payment link “${created.data.title}” created.` });
      navigate(`/open-payment-links/${created.data._id}`);
    } catch (error) {
      const shown = fieldErrors(error, FIELDS);
      setErrors(shown.fields);
      setGeneral(shown.general);
    }
  }

  return (
    <>
      <PageHeading title="New open payment link" />
      <form onSubmit={submit} noValidate aria-label="New open payment link">
        <Stack maw={520}>
          {general && (
            <Text c="red" role="alert">
              {general}
            </Text>
          )}
          <TextInput label="Title" required value={values.title} onChange={set('title')} error={errors.title} />
          <TextInput
            label="Minimum amount (MYR)"
            inputMode="decimal"
            required
            value={values.minimum_amount}
            onChange={set('minimum_amount')}
            error={errors.minimum_amount}
            description="RM 5.00 to RM 30,000.00"
          />
          <Textarea label="Description" value={values.description} onChange={set('description')} error={errors.description} />
          <TextInput label="Reference" value={values.reference} onChange={set('reference')} error={errors.reference} />
          <TextInput
            label="Most payments"
            inputMode="numeric"
            value={values.max_payments}
            onChange={set('max_payments')}
            error={errors.max_payments}
            description="Leave empty for no limit"
          />
          <Button type="submit" loading={create.isPending} w="fit-content">
            Create open payment link
          </Button>
        </Stack>
      </form>
    </>
  );
}

export function OpenLinkDetailPage() {
  const { linkId = '' } = useParams();
  const path = { open_payment_link_id: linkId };
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const link = $api.useQuery('get', '/open-payment-links/{open_payment_link_id}', { params: { path } });
  const total = $api.useQuery('get', '/open-payment-links/{open_payment_link_id}/total-collection', { params: { path } });
  const top = $api.useQuery('get', '/open-payment-links/{open_payment_link_id}/top-collection', { params: { path, query: { 'filter[limit]': 5 } } });
  const canWrite = useCan('open_payment_links:write');
  const pause = $api.useMutation('post', '/open-payment-links/{open_payment_link_id}/pause');
  const resume = $api.useMutation('post', '/open-payment-links/{open_payment_link_id}/resume');
  const remove = $api.useMutation('delete', '/open-payment-links/{open_payment_link_id}');
  const [deleting, setDeleting] = useState(false);
  if (link.isPending) return <Loading what="the open payment link" />;
  if (link.isError) return <QueryError error={link.error} />;
  const l = link.data.data;
  const done = async (message: string) => {
    notifications.show({ color: 'green', message });
    await queryClient.invalidateQueries();
  };
  const failed = (error: unknown) => notifications.show({ color: 'red', message: fieldErrors(error, []).general ?? 'The service refused this.' });
  return (
    <>
      <PageHeading
        title={l.title}
        actions={
          canWrite && (
            <>
              {l.state === 'active' && (
                <Button
                  variant="default"
                  loading={pause.isPending}
                  onClick={() => pause.mutateAsync({ params: { path } }).then(() => done('The link is paused.'), failed)}
                >
                  Pause
                </Button>
              )}
              {l.state !== 'active' && (
                <Button
                  variant="default"
                  loading={resume.isPending}
                  onClick={() => resume.mutateAsync({ params: { path } }).then(() => done('The link is active again.'), failed)}
                >
                  Resume
                </Button>
              )}
              <Button color="red" variant="outline" onClick={() => setDeleting(true)}>
                Delete…
              </Button>
            </>
          )
        }
      />
      <ConfirmModal
        opened={deleting}
        title="Delete this open payment link?"
        confirmLabel="Delete open payment link"
        busy={remove.isPending}
        onClose={() => setDeleting(false)}
        onConfirm={() =>
          remove.mutateAsync({ params: { path } }).then(async () => {
            await done('The open payment link was deleted.');
            navigate('/open-payment-links');
          }, failed)
        }
      >
        <Text>Payers can no longer pay “{l.title}”. Its payments stay. This cannot be undone.</Text>
      </ConfirmModal>
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
                { header: 'When', cell: (collection) => formatDateTime(collection.created_at) },
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
