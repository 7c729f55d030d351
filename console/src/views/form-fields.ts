// The fields of the forms outside the API's resources (sign-in, account setup, password, two-factor),
// named as the API names them, so a 422's `errors` (each field's messages) lands on its field: Mantine
// shows the error under the input and ties it to it by aria-describedby. Mantine marks a PasswordInput
// in error with data-invalid alone, so each field also says aria-invalid, for screen readers (a
// TextInput sets it itself from the error, so there it changes nothing). Labels, autocomplete and the
// rest stay on each form's TextInput or PasswordInput.
import { useState, type ChangeEvent } from 'react';

/** The API's 422 `errors`: each field's messages. */
export type FieldMessages = Partial<Record<string, readonly string[]>>;

/** What a field spreads onto Mantine's TextInput or PasswordInput. */
export interface FieldProps {
  value: string;
  onChange(event: ChangeEvent<HTMLInputElement>): void;
  error: string | undefined;
  'aria-invalid': boolean;
}

export function useFormFields<Name extends string>(initial: Record<Name, string>) {
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<FieldMessages>({});

  function field(name: Name): FieldProps {
    const messages = errors[name];
    return {
      value: values[name],
      onChange: (event) => {
        const value = event.currentTarget.value;
        setValues((now) => ({ ...now, [name]: value }));
      },
      error: messages?.join(' '),
      'aria-invalid': messages !== undefined,
    };
  }

  function reset(): void {
    setValues(initial);
    setErrors({});
  }

  return { values, field, setErrors, reset };
}
