// One payment link: its fields, its share link and QR code, its payments; resent, paused, resumed or deleted.
import { Anchor, Button, Card, Grid, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { $api } from '../../api/client.js';
import { useBusinessTime } from '../../lib/business-time.js';
import { formatCents } from '../../lib/money.js';
import { statusWords } from '../../lib/statuses.js';
import { useCan } from '../../session.js';
import { Loading, PageHeading, QueryError, StatusBadge } from '../common.js';
import { Details } from '../data-table.js';
import { ShareLink } from '../links-common.js';
import { LinkActions, useActionFeedback } from '../link-actions.js';
import { paymentLinkQuery, paymentLinksListKey } from '../../queries/payment-links.js';
import { paymentsQuery } from '../../queries/payments.js';

export function PaymentLinkDetailPage() {
  const { linkId = '' } = useParams();
  const path = { payment_link_id: linkId };
  const link = useQuery(paymentLinkQuery(linkId));
  const payments = useQuery(paymentsQuery({ 'filter[payment_link_id]': linkId, per_page: 10 }));
  const canWrite = useCan('payment_links:write');
  const pause = $api.useMutation('post', '/payment-links/{payment_link_id}/pause');
  const resume = $api.useMutation('post', '/payment-links/{payment_link_id}/resume');
  const update = $api.useMutation('put', '/payment-links/{payment_link_id}');
  const remove = $api.useMutation('delete', '/payment-links/{payment_link_id}');
  const { done, failed } = useActionFeedback(paymentLinkQuery(linkId).queryKey, paymentLinksListKey);
  const { dateTime } = useBusinessTime();
  if (link.isPending) return <Loading what="the payment link" />;
  if (link.isError) return <QueryError error={link.error} />;
  const l = link.data.data;

  return (
    <>
      <PageHeading
        title={l.title}
        actions={
          canWrite && (
            <LinkActions
              kind="payment link"
              record={paymentLinkQuery(linkId).queryKey}
              list={paymentLinksListKey}
              listPath="/payment-links"
              pause={{ offered: l.status === 'Active', run: () => pause.mutateAsync({ params: { path } }), busy: pause.isPending }}
              resume={{ offered: l.status === 'Paused', run: () => resume.mutateAsync({ params: { path } }), busy: resume.isPending }}
              remove={{
                offered: !l.paid,
                run: () => remove.mutateAsync({ params: { path } }),
                busy: remove.isPending,
                warning: `The payer can no longer pay “${l.title}”. This cannot be undone.`,
              }}
            >
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
            </LinkActions>
          )
        }
      />
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
                ['Created', dateTime(l.created_at)],
                ['Expires', l.expires_at ? dateTime(l.expires_at) : 'Never'],
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
            {payments.data.data.total} payment attempt(s), the last {statusWords(payments.data.data.data[0]!.status).toLowerCase()}.
          </Text>
        )}
      </Stack>
    </>
  );
}
