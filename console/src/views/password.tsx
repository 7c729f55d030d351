import { Alert, Button, PasswordInput, Stack, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { useState, type FormEvent } from 'react';
import { changePassword } from '../api/auth.js';
import { useFormFields } from './form-fields.js';

export function PasswordPage() {
  useDocumentTitle('Change password · Console');
  const fields = useFormFields({ current_password: '', password: '' });
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string>();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    try {
      const result = await changePassword(fields.values);
      if (result.ok) {
        fields.reset();
        setMessage(undefined);
        notifications.show({ color: 'green', message: 'Your password was changed. Your other sessions were signed out.' });
      } else {
        fields.setErrors(result.errors);
        setMessage(result.message);
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} noValidate>
      <Stack maw={420}>
        <Title order={1}>Change password</Title>
        {message && (
          <Alert color="red" role="alert">
            {message}
          </Alert>
        )}
        <PasswordInput label="Current password" autoComplete="current-password" required {...fields.field('current_password')} />
        <PasswordInput
          label="New password"
          description="At least 12 characters, not a common one"
          autoComplete="new-password"
          required
          {...fields.field('password')}
        />
        <Button type="submit" loading={busy} w="fit-content">
          Change password
        </Button>
      </Stack>
    </form>
  );
}
