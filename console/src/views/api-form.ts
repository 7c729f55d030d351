// The console's one form pattern: Mantine's useForm holds the fields, named as the API names them, so a
// refusal's 422 `errors` land on their fields (form.setErrors) through the one decoder of lib/errors.ts,
// and what names no field shown becomes the form's general message. Mantine shows an error under its
// input and ties it to it by aria-describedby; a PasswordInput in error says so with data-invalid alone,
// so a field in error also says aria-invalid, for screen readers (a TextInput sets it itself from the
// error, so there it changes nothing; a field without an error is left to Mantine). `form.submitting` is true while an async onSubmit handler runs.
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { fieldErrors, type MoneyField } from '../lib/errors.js';

export interface ApiFormOptions {
  /** The fields the form shows, when not all of its values are (the API's messages about others go in `message`). */
  shown?: readonly string[];
  /** The fields that hold money: their limits read as money ("at most RM 30,000.00"). */
  money?: Readonly<Record<string, MoneyField>>;
  /** Says the general message in a toast rather than keeping it for the form to show (a form in a card or a row). */
  toast?: boolean;
}

export function useApiForm<Values extends object>(initialValues: Values, options: ApiFormOptions = {}) {
  const form = useForm<Values>({
    mode: 'controlled',
    initialValues,
    enhanceGetInputProps: ({ form: { errors }, field }) => (errors[field] === undefined || errors[field] === null ? {} : { 'aria-invalid': true }),
  });
  const [message, setMessage] = useState<string>();
  const shown = options.shown ?? Object.keys(initialValues);

  return {
    form,
    /** The form's general message: a refusal that names no field shown, or a check made before sending. */
    message,
    setMessage,
    /** Puts the API's refusal on the form: each shown field's messages under it, the rest in `message`. */
    refuse(error: unknown, extra: { fields?: readonly string[] } = {}) {
      const decoded = fieldErrors(error, [...shown, ...(extra.fields ?? [])], options.money);
      form.setErrors(decoded.fields);
      if (!options.toast) setMessage(decoded.general);
      else if (decoded.general) notifications.show({ color: 'red', message: decoded.general });
      return decoded;
    },
    /** After a success: the form empty again, with no error or message. */
    done() {
      form.reset();
      setMessage(undefined);
    },
  };
}
