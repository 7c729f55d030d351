import { Anchor, Button, Card, Checkbox, Grid, Group, Select, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { $api, type ListQuery } from '../api/client.js';
import { formatDateTime } from '../lib/dates.js';
import { fieldErrors } from '../lib/errors.js';
import { apiQuery, filtersFrom, searchFor } from '../lib/filters.js';
import { formatCents, parseAmountToCents } from '../lib/money.js';
import { useCan } from '../session.js';
import { ConfirmModal, DataTable, Details, emptyPage, Loading, PageHeading, Pager, QueryError, QueryStates, StatusBadge } from './common.js';
import { ShareLink } from './links-common.js';

const FILTERS = ['status', 'email', 'reference', 'created_at_between'] as const;
type LinkQuery = ListQuery<'/payment-links'>;

export function PaymentLinksPage() {
  const [search, setSearch] = useSearchParams();
  const filters = filtersFrom(search, FILTERS);
  const page = Number(search.get('page') ?? '1') || 1;
  const links = $api.useQuery('get', '/payment-links', { params: { query: { ...apiQuery(filters), page, per_page: 25 } as LinkQuery } });
  const canWrite = useCan('payment_links:write');
  const [email, setEmail] = useState(filters.email ?? '');
  const [reference, setReference] = useState(filters.reference ?? '');
  return (
    <>
      <PageHeading
        title="Payment links"
        actions={
          canWrite && (
            <Button component={Link} to="/payment-links/new">
              New payment link
            </Button>
          )
        }
      />
      <form
        aria-label="Filters"
        onSubmit={(event) => {
          event.preventDefault();
          setSearch(searchFor({ ...filters, email, reference }));
        }}
      >
        <Group align="flex-end" mb="md">
          <TextInput label="Payer e-mail" type="search" value={email} onChange={(e) => setEmail(e.currentTarget.value)} />
          <TextInput label="Reference" type="search" value={reference} onChange={(e) => setReference(e.currentTarget.value)} />
          <Select
            label="Status"
            clearable
            data={['Active', 'Paid', 'Paused', 'Expired']}
            value={filters.status ?? null}
            onChange={(value) => setSearch(searchFor({ ...filters, status: value ?? '' }))}
          />
          <Button type="submit">Search</Button>
        </Group>
      </form>
      <QueryStates
        query={links}
        what="payment links"
        isEmpty={emptyPage}
        empty={{
          title: Object.keys(filters).length > 0 ? 'No payment link matches these filters' : 'No payment links yet',
          children: (
            <>
              <Text size="sm">A payment link asks one payer for one amount: create one and send its page to your payer.</Text>
              {canWrite && (
                <Button component={Link} to="/payment-links/new">
                  Create your first payment link
                </Button>
              )}
            </>
          ),
        }}
      >
        {(body) => (
          <>
            <DataTable
              label="Payment links"
              rows={body.data.data}
              rowKey={(link) => link._id}
              columns={[
                {
                  header: 'Title',
                  cell: (link) => (
                    <Anchor component={Link} to={`/payment-links/${link._id}`}>
                      {link.title}
                    </Anchor>
                  ),
                },
                { header: 'Amount', cell: (link) => formatCents(link.amount, link.currency) },
                { header: 'Status', cell: (link) => <StatusBadge status={link.status} /> },
                { header: 'Payer', cell: (link) => link.email },
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

const FIELDS = ['email', 'amount', 'title', 'description', 'reference', 'phone_no', 'currency', 'send_email'] as const;

export function NewPaymentLinkPage() {
  const navigate = useNavigate();
  const create = $api.useMutation('post', '/payment-links');
  const [values, setValues] = useState({ email: '', amount: '', title: '', description: '', reference: '', phone_no: '', send_email: false });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState<string>();
  const set = (name: keyof typeof values) => (event: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) =>
    setValues({ ...values, [name]: event.currentTarget.value });

  async function submit(event: FormEvent) {
    event.preventDefault();
    const cents = parseAmountToCents(values.amount);
    if (cents === undefined) {
      setErrors({ amount: 'Enter an amount such as 12.50.' });
      return;
    }
    try {
      const created = await create.mutateAsync({
        body: {
          email: values.email,
          currency: 'MYR',
          amount: cents,
          title: values.title,
          ...(values.description ? { description: values.description } : {}),
          ...(values.reference ? { reference: values.reference } : {}),
          ...(values.phone_no ? { phone_no: values.phone_no } : {}),
          send_email: values.send_email,
        },
      });
      notifications.show({ color: 'green', message: `Payment link “${created.data.title}” created.` });
      navigate(`/payment-links/${created.data._id}`);
    } catch (error) {
      const shown = fieldErrors(error, FIELDS);
      setErrors(shown.fields);
      setGeneral(shown.general);
    }
  }

  return (
    <>
      <PageHeading title="New payment link" />
      <form onSubmit={submit} noValidate aria-label="New payment link">
        <Stack maw={520}>
          {general && (
            <Text c="red" role="alert">
              {general}
            </Text>
          )}
          <TextInput label="Payer e-mail" type="email" required value={values.email} onChange={set('email')} error={errors.email} />
          <TextInput
            label="Amount (MYR)"
            inputMode="decimal"
            required
            value={values.amount}
            onChange={set('amount')}
            error={errors.amount}
            description="RM 5.00 to RM 30,000.00"
          />
          <TextInput label="Title" required value={values.title} onChange={set('title')} error={errors.title} />
          <Textarea label="Description" value={values.description} onChange={set('description')} error={errors.description} />
          <TextInput label="Reference" value={values.reference} onChange={set('reference')} error={errors.reference} />
          <TextInput label="Payer phone" type="tel" value={values.phone_no} onChange={set('phone_no')} error={errors.phone_no} />
          <Checkbox
            label="E-mail the link to the payer"
            checked={values.send_email}
            onChange={(e) => setValues({ ...values, send_email: e.currentTarget.checked })}
            error={errors.send_email}
          />
          <Button type="submit" loading={create.isPending} w="fit-content">
            Create payment link
          </Button>
        </Stack>
      </form>
    </>
  );
}

export function PaymentLinkDetailPage() {
  const { linkId = '' } = useParams();
  const path = { payment_link_id: linkId };
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const link = $api.useQuery('get', '/payment-links/{payment_link_id}', { params: { path } });
  const payments = $api.useQuery('get', '/payments', { params: { query: { 'filter[payment_link_id]': linkId, per_page: 10 } } });
  const canWrite = useCan('payment_links:write');
  const pause = $api.useMutation('post', '/payment-links/{payment_link_id}/pause');
  const resume = $api.useMutation('post', '/payment-links/{payment_link_id}/resume');
  const update = $api.useMutation('put', '/payment-links/{payment_link_id}');
  const remove = $api.useMutation('delete', '/payment-links/{payment_link_id}');
  const [deleting, setDeleting] = useState(false);
  if (link.isPending) return <Loading what="the payment link" />;
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
              {!l.paid && l.status === 'Active' && (
                <Button
                  variant="default"
                  loading={update.isPending}
                  onClick={() =>
                    update
                      .mutateAsync({
                        params: { path },
                        body: {
                          email: l.email,
                          currency: l.currency,
                          amount: l.amount,
                          title: l.title,
                          description: l.description,
                          phone_no: l.phone_no,
                          redirect_url: l.redirect_url,
                          reference: l.reference,
                          reference_2: l.reference_2,
                          locale: l.locale,
                          expires_at: l.expires_at,
                          send_email: true,
                        },
                      })
                      .then(() => done(`The link was e-mailed to ${l.email} again.`), failed)
                  }
                >
                  Resend e-mail
                </Button>
              )}
              {l.status === 'Active' && (
                <Button
                  variant="default"
                  loading={pause.isPending}
                  onClick={() => pause.mutateAsync({ params: { path } }).then(() => done('The link is paused.'), failed)}
                >
                  Pause
                </Button>
              )}
              {l.status === 'Paused' && (
                <Button
                  variant="default"
                  loading={resume.isPending}
                  onClick={() => resume.mutateAsync({ params: { path } }).then(() => done('The link is active again.'), failed)}
                >
                  Resume
                </Button>
              )}
              {!l.paid && (
                <Button color="red" variant="outline" onClick={() => setDeleting(true)}>
                  Delete…
                </Button>
              )}
            </>
          )
        }
      />
      <ConfirmModal
        opened={deleting}
        title="Delete this payment link?"
        confirmLabel="Delete payment link"
        busy={remove.isPending}
        onClose={() => setDeleting(false)}
        onConfirm={() =>
          remove.mutateAsync({ params: { path } }).then(async () => {
            await done('The payment link was deleted.');
            navigate('/payment-links');
          }, failed)
        }
      >
        <Text>The payer can no longer pay “{l.title}”. This cannot be undone.</Text>
      </ConfirmModal>
      <Grid>
        <Grid.Col span={{ base: 12, md: 7 }}>
          <Card withBorder>
            <Details
              label="Payment link"
              fields={[
                ['Status', <StatusBadge status={l.status} />],
                ['Amount', formatCents(l.amount, l.currency)],
                ['Payer', l.email],
                ['Reference', l.reference ?? '—'],
                ['Created', formatDateTime(l.created_at)],
                ['Expires', l.expires_at ? formatDateTime(l.expires_at) : 'Never'],
              ]}
            />
          </Card>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 5 }}>
          <ShareLink url={l.payment_url} qrSrc={`/api/payment-links/${l._id}/qr`} title={l.title} />
        </Grid.Col>
      </Grid>
      <Stack mt="lg">
        <Anchor component={Link} to={`/payments?payment_link_id=${l._id}`}>
          Payments of this link
        </Anchor>
        {payments.data && payments.data.data.data.length > 0 && (
          <Text size="sm">
            {payments.data.data.total} payment attempt(s), the last {payments.data.data.data[0]!.status}.
          </Text>
        )}
      </Stack>
    </>
  );
}
