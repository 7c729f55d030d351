// A new payment link: the payer, the amount and the link's options, the API's 422 messages on their fields.
import { Button, Checkbox, Stack, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { $api } from '../../api/client.js';
import { linkOptionsBody } from '../../lib/link-form.js';
import { useBusinessTime } from '../../lib/business-time.js';
import { parseAmountToCents } from '../../lib/money.js';
import { useApiForm } from '../api-form.js';
import { CountedInput, LinkOptionFields, NO_OPTIONS } from '../link-form-fields.js';
import { PageHeading } from '../common.js';
import { paymentLinksListKey } from '../../queries/payment-links.js';

const FIELDS = ['email', 'amount', 'title', 'description', 'reference', 'phone_no', 'currency', 'send_email', 'expires_at', 'redirect_url', 'locale'] as const;

export function NewPaymentLinkPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const create = $api.useMutation('post', '/payment-links');
  const { form, message, setMessage, refuse } = useApiForm(
    { email: '', amount: '', title: '', description: '', reference: '', phone_no: '', send_email: false, ...NO_OPTIONS },
    { shown: FIELDS, money: { amount: { currency: 'MYR', unit: 'cents' } } },
  );
  const { timeZone } = useBusinessTime();

  async function submit(values: typeof form.values) {
    const cents = parseAmountToCents(values.amount);
    if (timeZone === undefined) {
      setMessage("The business's time zone is not read yet; try again in a moment.");
      return;
    }
    const chosen = linkOptionsBody(values, timeZone);
    if (cents === undefined || 'error' in chosen) {
      form.setErrors({
        ...(cents === undefined ? { amount: 'Enter an amount such as 12.50.' } : {}),
        ...('error' in chosen ? { expires_at: chosen.error } : {}),
      });
      return;
    }
    setMessage(undefined);
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
          ...chosen.body,
          send_email: values.send_email,
        },
      });
      notifications.show({ color: 'green', message: `Payment link “${created.data.title}” created.` });
      void queryClient.invalidateQueries({ queryKey: paymentLinksListKey });
      navigate(`/payment-links/${created.data._id}`);
    } catch (error) {
      refuse(error);
    }
  }

  return (
    <>
      <PageHeading title="New payment link" />
      <form onSubmit={form.onSubmit(submit)} noValidate aria-label="New payment link">
        <Stack maw={520}>
          {message && (
            <Text c="red" role="alert">
              {message}
            </Text>
          )}
          <TextInput label="Payer e-mail" type="email" required {...form.getInputProps('email')} />
          <TextInput label="Amount (MYR)" inputMode="decimal" required {...form.getInputProps('amount')} description="RM 5.00 to RM 30,000.00" />
          <CountedInput field="title" label="Title" required input={form.getInputProps('title')} />
          <CountedInput field="description" label="Description" multiline input={form.getInputProps('description')} />
          <CountedInput field="reference" label="Reference" input={form.getInputProps('reference')} />
          <CountedInput field="phone_no" label="Payer phone" type="tel" input={form.getInputProps('phone_no')} />
          <LinkOptionFields form={form} />
          <Checkbox label="E-mail the link to the payer" {...form.getInputProps('send_email', { type: 'checkbox' })} />
          <Button type="submit" loading={form.submitting} w="fit-content">
            Create payment link
          </Button>
        </Stack>
      </form>
    </>
  );
}
