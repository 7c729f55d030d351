// A forgotten password: the page that asks for a reset link by e-mail (`/console/forgot-password`,
// linked from sign-in), and the page the link leads to (`/console/reset-password?token=...`), where
// the member chooses a new password. Both stand outside the signed-in views. The request is answered
// alike whatever the e-mail, and so is this page. Setting the password signs the member out
// everywhere and in nowhere: they sign in next, with their code when two-factor sign-in is on. The
// console is served with `Referrer-Policy: same-origin`, so the token in the address goes to no other site.
import { Alert, Anchor, Button, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { completePasswordReset, requestPasswordReset, type PasswordReset } from '../api/auth.js';
import { passwordResetQuery } from '../queries/auth.js';
import { EmailedLinkPage, Frame } from './emailed-link.js';
import { useApiForm } from './api-form.js';

function BackToSignIn() {
  return (
    <Text>
      <Anchor component={Link} to="/sign-in">
        Back to sign-in
      </Anchor>
    </Text>
  );
}

export function ForgotPasswordPage() {
  useDocumentTitle('Forgot password · Console');
  const { form, message, refuse } = useApiForm({ email: '' });
  const [sentTo, setSentTo] = useState<string>();

  async function submit(values: typeof form.values) {
    const email = values.email.trim();
    const asked = await requestPasswordReset(email);
    if (asked.ok) setSentTo(email);
    else refuse(asked);
  }

  return (
    <Frame>
      {sentTo ? (
        <Stack>
          <Title order={1} size="h2">
            Check your e-mail
          </Title>
          <Alert color="blue" role="status">
            If {sentTo} has an account, a link to choose a new password is on its way there. It works once, for an hour.
          </Alert>
          <BackToSignIn />
        </Stack>
      ) : (
        <form onSubmit={form.onSubmit(submit)} noValidate>
          <Stack>
            <Title order={1} size="h2">
              Forgot your password?
            </Title>
            <Text c="dimmed">Enter the e-mail you sign in with, and we will send you a link to choose a new password.</Text>
            {message && (
              <Alert color="red" role="alert">
                {message}
              </Alert>
            )}
            <TextInput label="E-mail" type="email" autoComplete="username" required {...form.getInputProps('email')} />
            <Button type="submit" loading={form.submitting}>
              Send the link
            </Button>
            <BackToSignIn />
          </Stack>
        </form>
      )}
    </Frame>
  );
}

function ResetForm({ token, reset, onGone }: { token: string; reset: PasswordReset; onGone: (message: string) => void }) {
  const navigate = useNavigate();
  const { form, message, refuse } = useApiForm({ password: '', password_confirmation: '' });

  async function submit(values: typeof form.values) {
    const done = await completePasswordReset({ token, ...values });
    if (!done.ok) {
      if (done.gone) onGone(done.message);
      else refuse(done);
      return;
    }
    notifications.show({ color: 'green', message: `Your password is set and you were signed out everywhere. Sign in as ${done.data.email}.` });
    navigate('/sign-in', { replace: true });
  }

  return (
    <form onSubmit={form.onSubmit(submit)} noValidate>
      <Stack>
        <Title order={1} size="h2">
          Choose a new password
        </Title>
        <Text c="dimmed">For {reset.email}. You will be signed out everywhere, then sign in with the new password.</Text>
        {message && (
          <Alert color="red" role="alert">
            {message}
          </Alert>
        )}
        <PasswordInput
          label="New password"
          description="At least 12 characters, not a common one"
          autoComplete="new-password"
          required
          {...form.getInputProps('password')}
        />
        <PasswordInput label="New password again" autoComplete="new-password" required {...form.getInputProps('password_confirmation')} />
        <Button type="submit" loading={form.submitting}>
          Set the new password
        </Button>
      </Stack>
    </form>
  );
}

export function ResetPasswordPage() {
  return (
    <EmailedLinkPage
      title="Choose a new password · Console"
      query={passwordResetQuery}
      noToken="This link has no token. Open the whole link from the e-mail."
      next={{ to: '/forgot-password', label: 'Ask for a new link' }}
      form={(token, { reset }, onGone) => <ResetForm token={token} reset={reset} onGone={onGone} />}
    />
  );
}
