// The acquirer payments go through: the sandbox, or Stripe with its secret key and webhook signing secret.
import { Badge, Button, Card, Group, NativeSelect, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '@payment-collection/client';
import { $api } from '../../api/client.js';
import { acquirerQuery } from '../../queries/business.js';
import { useApiForm } from '../api-form.js';
import { Loading, ModeBadge, QueryError } from '../common.js';

type AcquirerSettings = components['schemas']['AcquirerSettings'];

const ACQUIRERS = [
  { value: 'sandbox', label: 'Sandbox (test payments only)' },
  { value: 'stripe', label: 'Stripe' },
];

function AcquirerCard({ settings, canWrite }: { settings: AcquirerSettings; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const put = $api.useMutation('put', '/business/acquirer');
  // Keyed by what is stored where it is shown: a saved change starts a fresh form from it.
  const { form, refuse } = useApiForm<{ acquirer: AcquirerSettings['acquirer']; stripe_secret_key: string; stripe_webhook_secret: string }>(
    { acquirer: settings.acquirer, stripe_secret_key: '', stripe_webhook_secret: '' },
    { toast: true },
  );

  async function submit({ acquirer, stripe_secret_key: secretKey, stripe_webhook_secret: webhookSecret }: typeof form.values) {
    try {
      await put.mutateAsync({
        body: { acquirer, ...(secretKey ? { stripe_secret_key: secretKey } : {}), ...(webhookSecret ? { stripe_webhook_secret: webhookSecret } : {}) },
      });
      // The secrets are never shown again: their fields empty at once (the acquirer stays as saved).
      form.setValues({ stripe_secret_key: '', stripe_webhook_secret: '' });
      form.clearErrors();
      notifications.show({ color: 'green', message: 'The acquirer is saved.' });
      await queryClient.invalidateQueries({ queryKey: acquirerQuery().queryKey });
    } catch (error) {
      refuse(error);
    }
  }

  return (
    <Card withBorder maw={640} mb="lg">
      <form onSubmit={form.onSubmit(submit)} noValidate aria-label="Acquirer">
        <Stack>
          <Group>
            <Title order={2} size="h4">
              Acquirer
            </Title>
            <Badge variant="light">{settings.acquirer === 'stripe' ? 'Stripe' : 'Sandbox'}</Badge>
            {settings.mode && <ModeBadge live={settings.mode === 'live'} />}
          </Group>
          <Text size="sm">Stripe key: {settings.stripe_key_hint ?? 'none stored'}</Text>
          <Text size="sm">Webhook signing secret: {settings.stripe_webhook_secret_set ? 'stored' : 'not set'}</Text>
          <Text size="sm">
            Register this webhook endpoint at Stripe (Developers, Webhooks):{' '}
            <Text span ff="monospace">
              {settings.stripe_webhook_url}
            </Text>
          </Text>
          {canWrite && (
            <>
              <NativeSelect label="Take payments through" data={ACQUIRERS} {...form.getInputProps('acquirer')} />
              <PasswordInput
                label="Stripe secret key"
                description={settings.stripe_key_hint ? `Empty keeps ${settings.stripe_key_hint}` : 'sk_test_…, sk_live_… or a restricted rk_…'}
                autoComplete="off"
                {...form.getInputProps('stripe_secret_key')}
              />
              <PasswordInput
                label="Webhook signing secret"
                description={settings.stripe_webhook_secret_set ? 'Empty keeps the stored one' : 'whsec_…, from the endpoint registered at Stripe'}
                autoComplete="off"
                {...form.getInputProps('stripe_webhook_secret')}
              />
              <Button type="submit" loading={put.isPending} w="fit-content">
                Save acquirer
              </Button>
            </>
          )}
        </Stack>
      </form>
    </Card>
  );
}

export function AcquirerSection({ canWrite }: { canWrite: boolean }) {
  const settings = useQuery(acquirerQuery());
  if (settings.isPending) return <Loading what="the acquirer" />;
  if (settings.isError) return <QueryError error={settings.error} />;
  const data = settings.data.data;
  return <AcquirerCard key={`${data.acquirer}:${data.stripe_key_hint ?? ''}:${String(data.stripe_webhook_secret_set)}`} settings={data} canWrite={canWrite} />;
}
