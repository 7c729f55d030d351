// The business's own name, and its profile as payers see it (name, colour, support contacts, time zone, language) and its logo.
import { Button, Card, FileInput, Group, Image, NativeSelect, Stack, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { components } from '@payment-collection/client';
import { $api } from '../../api/client.js';
import { fieldErrors } from '../../lib/errors.js';
import { LOGO_MAX_BYTES, base64OfBytes, profileChanges, profileForm, type ProfileForm } from '../../lib/team.js';
import { meQuery } from '../../queries/auth.js';
import { businessQuery } from '../../queries/business.js';
import { useApiForm } from '../api-form.js';
import { ConfirmModal } from '../common.js';

type Business = components['schemas']['Business'];

const FIELDS = ['name', 'display_name', 'brand_color', 'support_email', 'support_phone', 'website_url', 'time_zone', 'default_locale'] as const;

const LANGUAGES = [
  { value: 'en', label: 'English' },
  { value: 'ms', label: 'Bahasa Melayu' },
  { value: 'zh', label: 'Simplified Chinese' },
];

export function ProfileCard({ business, canWrite }: { business: Business; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const update = $api.useMutation('patch', '/business');
  // What is saved now: the form keeps what was typed, and a save is compared with the business as read again.
  const initial = profileForm(business);
  const { form, refuse } = useApiForm<ProfileForm>(initial, { shown: FIELDS, toast: true });
  const field = (key: keyof ProfileForm) => ({ ...form.getInputProps(key), disabled: !canWrite });

  async function submit(values: ProfileForm) {
    if (values.name.trim() === '') {
      form.setFieldError('name', 'Enter the business name.');
      return;
    }
    const changes = profileChanges(initial, values);
    if (Object.keys(changes).length === 0) {
      notifications.show({ message: 'Nothing changed.' });
      return;
    }
    try {
      await update.mutateAsync({ body: changes });
      form.clearErrors();
      notifications.show({ color: 'green', message: 'The business profile is saved.' });
      await queryClient.invalidateQueries({ queryKey: businessQuery().queryKey });
      // The header and the business switcher show the business's own name.
      if (changes.name) await queryClient.invalidateQueries({ queryKey: meQuery().queryKey });
    } catch (error) {
      refuse(error);
    }
  }

  return (
    <Card withBorder maw={640} mb="lg">
      <form onSubmit={form.onSubmit(submit)} noValidate aria-label="Business profile">
        <Stack>
          <Title order={2} size="h4">
            Business profile
          </Title>
          <Text size="sm" c="dimmed">
            What payers see on the payment pages and in e-mails.
          </Text>
          <TextInput
            label="Business name"
            description="Your team, its e-mails and the service's operator know the business by it; payers see it unless a display name is set"
            required
            maxLength={200}
            {...field('name')}
          />
          <TextInput label="Display name" description={`Empty shows the business's own name, ${business.name}`} {...field('display_name')} />
          <Group align="flex-end" wrap="nowrap">
            <TextInput label="Brand colour" description="#rrggbb, at least 3:1 against white; empty for the default blue" {...field('brand_color')} />
            {/^#[0-9a-f]{6}$/i.test(form.values.brand_color) && (
              <div aria-hidden="true" style={{ width: 36, height: 36, borderRadius: 4, background: form.values.brand_color, flex: 'none' }} />
            )}
          </Group>
          <TextInput label="Support e-mail" type="email" {...field('support_email')} />
          <TextInput label="Support phone" type="tel" {...field('support_phone')} />
          <TextInput
            label="Website"
            type="url"
            description="Where the thank-you page and the receipt lead payers back to, when a link has no redirect URL"
            placeholder="https://"
            {...field('website_url')}
          />
          <TextInput label="Time zone" description="An IANA time zone, e.g. Asia/Kuala_Lumpur" {...field('time_zone')} />
          <NativeSelect
            label="Default language"
            description="The language payers get when their browser asks for none we have"
            data={LANGUAGES}
            {...field('default_locale')}
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

export function LogoCard({ business, canWrite }: { business: Business; canWrite: boolean }) {
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
      await queryClient.invalidateQueries({ queryKey: businessQuery().queryKey });
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
          await queryClient.invalidateQueries({ queryKey: businessQuery().queryKey });
        }}
      >
        <Text>Payer pages and e-mails show the name alone again.</Text>
      </ConfirmModal>
    </Card>
  );
}
