// The fields both link forms share beyond amount and title: the length-limited text fields with a
// character counter (limits from the contract, through the client package), and the link's expiry,
// redirect URL and payer language, as the API takes them.
import { NativeSelect, TextInput, Textarea } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import { useBusinessTime } from '../lib/business-time.js';
import { characterCount, type LimitedField, type LinkOptions } from '../lib/link-form.js';

interface CountedProps {
  field: LimitedField;
  label: string;
  /** The field's input props from the form (`form.getInputProps(name)`): its value, change handler and error. */
  input: ReturnType<UseFormReturnType<Record<string, string>>['getInputProps']>;
  required?: boolean;
  multiline?: boolean;
  type?: string;
}

/** A text field whose description counts its characters against the API's limit. */
export function CountedInput({ field, label, input, required, multiline, type }: CountedProps) {
  const count = characterCount(String(input.value ?? ''), field);
  const error = input.error ?? count.over;
  const props = { ...input, label, required, description: count.text, error, 'aria-invalid': error !== undefined };
  return multiline ? <Textarea autosize minRows={2} {...props} /> : <TextInput type={type} {...props} />;
}

export const NO_OPTIONS: LinkOptions = { expires_at: '', redirect_url: '', locale: '' };

const LANGUAGES = [
  { value: '', label: "The business's default" },
  { value: 'en', label: 'English' },
  { value: 'ms', label: 'Bahasa Melayu' },
  { value: 'zh', label: '简体中文 (Simplified Chinese)' },
];

/** Expiry, redirect URL and payer language, each optional: fields of a link's form. */
export function LinkOptionFields<Values extends LinkOptions>({ form }: { form: UseFormReturnType<Values> }) {
  const { timeZone } = useBusinessTime();
  return (
    <>
      <TextInput
        label="Expires"
        type="datetime-local"
        description={`Leave empty for never. In the business's time (${timeZone ?? '…'}).`}
        {...form.getInputProps('expires_at')}
      />
      <CountedInput field="redirect_url" label="Redirect URL" type="url" input={form.getInputProps('redirect_url')} />
      <NativeSelect
        label="Payer language"
        description="The language of the payer's page and e-mails, unless the payer picks another"
        data={LANGUAGES}
        {...form.getInputProps('locale')}
      />
    </>
  );
}
