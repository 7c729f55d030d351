// A new open payment link: its title, minimum amount and options, the API's 422 messages on their fields.
import { Button, Stack, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { $api } from '../../api/client.js';
import { linkOptionsBody } from '../../lib/link-form.js';
import { useApiForm } from '../api-form.js';
import { CountedInput, LinkOptionFields, NO_OPTIONS } from '../link-form-fields.js';
import { useBusinessTime } from '../../lib/business-time.js';
import { PageHeading } from '../common.js';
import { openLinksListKey } from '../../queries/open-links.js';

const FIELDS = ['title', 'minimum_amount', 'description', 'reference', 'max_payments', 'currency', 'expires_at', 'redirect_url', 'locale'] as const;

export function NewOpenLinkPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const create = $api.useMutation('post', '/open-payment-links');
  const { form, message, setMessage, refuse } = useApiForm(
    { title: '', minimum_amount: '', description: '', reference: '', max_payments: '', ...NO_OPTIONS },
    { shown: FIELDS, money: { minimum_amount: { currency: 'MYR', unit: 'units' } } },
  );
  const { timeZone } = useBusinessTime();

  async function submit(values: typeof form.values) {
    if (timeZone === undefined) {
      setMessage("The business's time zone is not read yet; try again in a moment.");
      return;
    }
    const chosen = linkOptionsBody(values, timeZone);
    if ('error' in chosen) {
      form.setErrors({ expires_at: chosen.error });
      return;
    }
    setMessage(undefined);
    try {
      const created = await create.mutateAsync({
        body: {
          currency: 'MYR',
          title: values.title,
          minimum_amount: values.minimum_amount,
          ...(values.description ? { description: values.description } : {}),
          ...(values.reference ? { reference: values.reference } : {}),
          ...(values.max_payments ? { max_payments: Number(values.max_payments) } : {}),
          ...chosen.body,
        },
      });
      notifications.show({ color: 'green', message: `Open payment link “${created.data.title}” created.` });
      void queryClient.invalidateQueries({ queryKey: openLinksListKey });
      navigate(`/open-payment-links/${created.data._id}`);
    } catch (error) {
      refuse(error);
    }
  }

  return (
    <>
      <PageHeading title="New open payment link" />
      <form onSubmit={form.onSubmit(submit)} noValidate aria-label="New open payment link">
        <Stack maw={520}>
          {message && (
            <Text c="red" role="alert">
              {message}
            </Text>
          )}
          <CountedInput field="title" label="Title" required input={form.getInputProps('title')} />
          <TextInput
            label="Minimum amount (MYR)"
            inputMode="decimal"
            required
            {...form.getInputProps('minimum_amount')}
            description="RM 5.00 to RM 30,000.00"
          />
          <CountedInput field="description" label="Description" multiline input={form.getInputProps('description')} />
          <CountedInput field="reference" label="Reference" input={form.getInputProps('reference')} />
          <TextInput label="Most payments" inputMode="numeric" {...form.getInputProps('max_payments')} description="Leave empty for no limit" />
          <LinkOptionFields form={form} />
          <Button type="submit" loading={form.submitting} w="fit-content">
            Create open payment link
          </Button>
        </Stack>
      </form>
    </>
  );
}
