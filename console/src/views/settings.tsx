import { Badge, Button, Card, FileInput, Group, Image, NativeSelect, PasswordInput, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { components } from '@payment-collection/client';
import { $api } from '../api/client.js';
import { fieldErrors, refusalMessage } from '../lib/errors.js';
import { LOGO_MAX_BYTES, base64OfBytes, profileChanges, profileForm, type ProfileForm } from '../lib/team.js';
import { ME_KEY, useCan, useMe } from '../session.js';
import { ConfirmModal, Loading, ModeBadge, PageHeading, QueryError, showRefusal } from './common.js';

type Business = components['schemas']['Business'];

const FIELDS = ['display_name', 'brand_color', 'support_email', 'support_phone', 'time_zone', 'default_locale'] as const;
const LANGUAGES = [
  { value: 'en', label: 'English' },
  { value: 'ms', label: 'Bahasa Melayu' },
  { value: 'zh', label: 'Simplified Chinese' },
];

function ProfileCard({ business, canWrite }: { business: Business; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const update = $api.useMutation('patch', '/business');
  const initial = profileForm(business);
  const [form, setForm] = useState<ProfileForm>(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const field = (key: keyof ProfileForm) => ({
    value: form[key],
    error: errors[key],
    disabled: !canWrite,
    onChange: (e: { currentTarget: { value: string } }) => setForm({ ...form, [key]: e.currentTarget.value }),
  });

  async function submit(event: FormEvent) {
    event.preventDefault();
    const changes = profileChanges(initial, form);
    if (Object.keys(changes).length === 0) {
      notifications.show({ message: 'Nothing changed.' });
      return;
    }
    try {
      await update.mutateAsync({ body: changes });
      setErrors({});
      notifications.show({ color: 'green', message: 'The business profile is saved.' });
      await queryClient.invalidateQueries({ queryKey: ['get', '/business'] });
    } catch (error) {
      showRefusal(error, FIELDS, setErrors);
    }
  }

  return (
    <Card withBorder maw={640} mb="lg">
      <form onSubmit={submit} noValidate aria-label="Business profile">
        <Stack>
          <Title order={2} size="h4">
            Business profile
          </Title>
          <Text size="sm" c="dimmed">
            What payers see on the payment pages and in e-mails.
          </Text>
          <TextInput label="Display name" description={`Empty shows the business's own name, ${business.name}`} {...field('display_name')} />
          <Group align="flex-end" wrap="nowrap">
            <TextInput label="Brand colour" description="#rrggbb, at least 3:1 against white; empty for the default blue" {...field('brand_color')} />
            {/^#[0-9a-f]{6}$/i.test(form.brand_color) && (
              <div aria-hidden="true" style={{ width: 36, height: 36, borderRadius: 4, background: form.brand_color, flex: 'none' }} />
            )}
          </Group>
          <TextInput label="Support e-mail" type="email" {...field('support_email')} />
          <TextInput label="Support phone" type="tel" {...field('support_phone')} />
          <TextInput label="Time zone" description="An IANA time zone, e.g. Asia/Kuala_Lumpur" {...field('time_zone')} />
          <NativeSelect
            label="Default language"
            description="The language payers get when their browser asks for none we have"
            data={LANGUAGES}
            value={form.default_locale}
            disabled={!canWrite}
            error={errors.default_locale}
            onChange={(e) => setForm({ ...form, default_locale: e.currentTarget.value as ProfileForm['default_locale'] })}
          />
          {canWrite && (
            <Button type="submit" loading={update.isPending} w="fit-content">
              Save profile
            </Button>
          )}
        </Stack>
      </form>
    </Card>
  );
}

function LogoCard({ business, canWrite }: { business: Business; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const put = $api.useMutation('put', '/business/logo');
  const remove = $api.useMutation('delete', '/business/logo');
  const [error, setError] = useState<string>();
  const [confirming, setConfirming] = useState(false);

  async function upload(file: File | null) {
    if (!file) return;
    if (file.size > LOGO_MAX_BYTES) {
      setError(`The logo is ${Math.ceil(file.size / 1024)} KB; at most 256 KB.`);
      return;
    }
    try {
      const image = base64OfBytes(new Uint8Array(await file.arrayBuffer()));
      await put.mutateAsync({ body: { image } });
      setError(undefined);
      notifications.show({ color: 'green', message: 'The logo is saved.' });
      await queryClient.invalidateQueries({ queryKey: ['get', '/business'] });
    } catch (refused) {
      const shown = fieldErrors(refused, ['image']);
      setError(shown.fields.image ?? shown.general);
    }
  }

  return (
    <Card withBorder maw={640} mb="lg">
      <Stack>
        <Title order={2} size="h4">
          Logo
        </Title>
        {business.logo ? (
          <Image src={business.logo.url} alt={`Logo of ${business.display_name}`} h={64} w="auto" fit="contain" />
        ) : (
          <Text size="sm">No logo: payers see the name alone.</Text>
        )}
        {canWrite && (
          <Group align="flex-end">
            <FileInput
              label="Upload a logo"
              description="PNG, JPEG or WebP, at most 256 KB"
              accept="image/png,image/jpeg,image/webp"
              onChange={upload}
              error={error}
              disabled={put.isPending}
              clearable={false}
              w={280}
            />
            {business.logo && (
              <Button variant="default" onClick={() => setConfirming(true)}>
                Remove logo…
              </Button>
            )}
          </Group>
        )}
      </Stack>
      <ConfirmModal
        opened={confirming}
        title="Remove the logo?"
        confirmLabel="Remove logo"
        busy={remove.isPending}
        onClose={() => setConfirming(false)}
        onConfirm={async () => {
          await remove.mutateAsync({});
          setConfirming(false);
          notifications.show({ color: 'green', message: 'The logo is removed.' });
          await queryClient.invalidateQueries({ queryKey: ['get', '/business'] });
        }}
      >
        <Text>Payer pages and e-mails show the name alone again.</Text>
      </ConfirmModal>
    </Card>
  );
}

function TwoFactorRule() {
  const me = useMe();
  const queryClient = useQueryClient();
  const update = $api.useMutation('patch', '/team/settings');
  const required = me.memberships.find((membership) => membership.business_id === me.business.business_id)?.require_two_factor ?? false;
  const owner = me.role === 'owner';
  return (
    <Card withBorder maw={640} mb="lg">
      <Switch
        label="Require two-factor sign-in for every member"
        description={
          owner
            ? 'A member without it may only set it up before acting in this business, and their API keys hold nothing until they do'
            : 'Only an owner changes this'
        }
        checked={required}
        disabled={update.isPending || !owner}
        onChange={async (event) => {
          const next = event.currentTarget.checked;
          try {
            await update.mutateAsync({ body: { require_two_factor: next } });
            notifications.show({ color: 'green', message: next ? 'Two-factor sign-in is now required.' : 'Two-factor sign-in is no longer required.' });
          } catch (error) {
            notifications.show({ color: 'red', message: refusalMessage(error) });
          }
          await queryClient.invalidateQueries({ queryKey: ME_KEY });
        }}
      />
    </Card>
  );
}

type AcquirerSettings = components['schemas']['AcquirerSettings'];
const ACQUIRER_FIELDS = ['acquirer', 'stripe_secret_key', 'stripe_webhook_secret'] as const;
const ACQUIRERS = [
  { value: 'sandbox', label: 'Sandbox (test payments only)' },
  { value: 'stripe', label: 'Stripe' },
];

function AcquirerCard({ settings, canWrite }: { settings: AcquirerSettings; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const put = $api.useMutation('put', '/business/acquirer');
  const [acquirer, setAcquirer] = useState<AcquirerSettings['acquirer']>(settings.acquirer);
  const [secretKey, setSecretKey] = useState('');
  const [webhookSecret, setWebhookSecret] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});

  async function submit(event: FormEvent) {
    event.preventDefault();
    try {
      await put.mutateAsync({
        body: { acquirer, ...(secretKey ? { stripe_secret_key: secretKey } : {}), ...(webhookSecret ? { stripe_webhook_secret: webhookSecret } : {}) },
      });
      setErrors({});
      setSecretKey('');
      setWebhookSecret('');
      notifications.show({ color: 'green', message: 'The acquirer is saved.' });
      await queryClient.invalidateQueries({ queryKey: ['get', '/business/acquirer'] });
    } catch (error) {
      showRefusal(error, ACQUIRER_FIELDS, setErrors);
    }
  }

  return (
    <Card withBorder maw={640} mb="lg">
      <form onSubmit={submit} noValidate aria-label="Acquirer">
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
              <NativeSelect
                label="Take payments through"
                data={ACQUIRERS}
                value={acquirer}
                error={errors.acquirer}
                onChange={(e) => setAcquirer(e.currentTarget.value as AcquirerSettings['acquirer'])}
              />
              <PasswordInput
                label="Stripe secret key"
                description={settings.stripe_key_hint ? `Empty keeps ${settings.stripe_key_hint}` : 'sk_test_…, sk_live_… or a restricted rk_…'}
                autoComplete="off"
                value={secretKey}
                error={errors.stripe_secret_key}
                onChange={(e) => setSecretKey(e.currentTarget.value)}
              />
              <PasswordInput
                label="Webhook signing secret"
                description={settings.stripe_webhook_secret_set ? 'Empty keeps the stored one' : 'whsec_…, from the endpoint registered at Stripe'}
                autoComplete="off"
                value={webhookSecret}
                error={errors.stripe_webhook_secret}
                onChange={(e) => setWebhookSecret(e.currentTarget.value)}
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

function AcquirerSection({ canWrite }: { canWrite: boolean }) {
  const settings = $api.useQuery('get', '/business/acquirer');
  if (settings.isPending) return <Loading what="the acquirer" />;
  if (settings.isError) return <QueryError error={settings.error} />;
  const data = settings.data.data;
  return <AcquirerCard key={`${data.acquirer}:${data.stripe_key_hint ?? ''}:${String(data.stripe_webhook_secret_set)}`} settings={data} canWrite={canWrite} />;
}

export function SettingsPage() {
  const canWrite = useCan('settings:write');
  const business = $api.useQuery('get', '/business');
  return (
    <>
      <PageHeading title="Settings" />
      {business.isPending ? (
        <Loading what="the business profile" />
      ) : business.isError ? (
        <QueryError error={business.error} />
      ) : (
        <>
          <ProfileCard key={business.data.data.updated_at ?? 'never'} business={business.data.data} canWrite={canWrite} />
          <LogoCard business={business.data.data} canWrite={canWrite} />
          <AcquirerSection canWrite={canWrite} />
          {canWrite && <TwoFactorRule />}
        </>
      )}
    </>
  );
}
