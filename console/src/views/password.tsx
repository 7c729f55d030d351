import { Alert, Button, PasswordInput, Stack, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { useState, type FormEvent } from 'react';
import { changePassword } from '../api/auth.js';

export function PasswordPage() {
  useDocumentTitle('Change password · Console');
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string>();
  const [errors, setErrors] = useState<Record<string, string[]>>({});

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    try {
      const result = await changePassword({ current_password: current, password: next });
      if (result.ok) {
        setCurrent('');
        setNext('');
        setErrors({});
        setMessage(undefined);
        notifications.show({ color: 'green', message: 'Your password was changed. Your other sessions were signed out.' });
      } else {
        setErrors(result.errors);
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
        <PasswordInput
          label="Current password"
          autoComplete="current-password"
          required
          value={current}
          onChange={(e) => setCurrent(e.currentTarget.value)}
          error={errors.current_password?.join(' ')}
          aria-invalid={Boolean(errors.current_password)}
        />
        <PasswordInput
          label="New password"
          description="At least 12 characters, not a common one"
          autoComplete="new-password"
          required
          value={next}
          onChange={(e) => setNext(e.currentTarget.value)}
          error={errors.password?.join(' ')}
          aria-invalid={Boolean(errors.password)}
        />
        <Button type="submit" loading={busy} w="fit-content">
          Change password
        </Button>
      </Stack>
    </form>
  );
}
