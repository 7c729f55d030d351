import { Alert, Button, PasswordInput, Stack, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { changePassword } from '../api/auth.js';
import { useApiForm } from './api-form.js';

export function PasswordPage() {
  useDocumentTitle('Change password · Console');
  const { form, message, refuse, done } = useApiForm({ current_password: '', password: '' });

  async function submit(values: typeof form.values) {
    const result = await changePassword(values);
    if (!result.ok) {
      refuse(result);
      return;
    }
    done();
    notifications.show({ color: 'green', message: 'Your password was changed. Your other sessions were signed out.' });
  }

  return (
    <form onSubmit={form.onSubmit(submit)} noValidate>
      <Stack maw={420}>
        <Title order={1}>Change password</Title>
        {message && (
          <Alert color="red" role="alert">
            {message}
          </Alert>
        )}
        <PasswordInput label="Current password" autoComplete="current-password" required {...form.getInputProps('current_password')} />
        <PasswordInput
          label="New password"
          description="At least 12 characters, not a common one"
          autoComplete="new-password"
          required
          {...form.getInputProps('password')}
        />
        <Button type="submit" loading={form.submitting} w="fit-content">
          Change password
        </Button>
      </Stack>
    </form>
  );
}
