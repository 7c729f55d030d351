import { Alert, Anchor, Button, Center, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { signIn } from '../api/auth.js';
import { meQuery } from '../queries/auth.js';
import { useApiForm } from './api-form.js';

/** Only a path of the console itself: `next` comes from the address bar. */
function safeNext(next: string | null): string {
  return next !== null && next.startsWith('/') && !next.startsWith('//') ? next : '/';
}

export function SignInPage() {
  useDocumentTitle('Sign in · Console');
  const navigate = useNavigate();
  const [search] = useSearchParams();
  const queryClient = useQueryClient();
  const { form, message, setMessage, refuse } = useApiForm({ email: '', password: '', totp_code: '' });
  const [twoFactor, setTwoFactor] = useState(false);

  async function submit({ email, password, totp_code }: typeof form.values) {
    setMessage(undefined);
    const result = await signIn({ email, password, ...(twoFactor ? { totp_code } : {}) });
    if (result.kind === 'signed-in') {
      queryClient.setQueryData(meQuery().queryKey, result.me);
      navigate(safeNext(search.get('next')), { replace: true });
    } else if (result.kind === 'two-factor') {
      if (twoFactor) setMessage('That code is not right. Enter the current code from your authenticator app.');
      setTwoFactor(true);
    } else {
      refuse(result);
    }
  }

  return (
    <Center mih="100vh" p="md">
      <Paper component="main" withBorder p="xl" w={380} maw="100%">
        <form onSubmit={form.onSubmit(submit)} noValidate>
          <Stack>
            <Title order={1} size="h2">
              {twoFactor ? 'Two-factor sign-in' : 'Sign in to the console'}
            </Title>
            {message && (
              <Alert color="red" role="alert">
                {message}
              </Alert>
            )}
            {!twoFactor ? (
              <>
                <TextInput label="E-mail" type="email" autoComplete="username" required {...form.getInputProps('email')} />
                <PasswordInput label="Password" autoComplete="current-password" required {...form.getInputProps('password')} />
              </>
            ) : (
              <TextInput
                label="Authentication code"
                description="The six digits your authenticator app shows, or a recovery code"
                autoComplete="one-time-code"
                inputMode="numeric"
                required
                autoFocus
                {...form.getInputProps('totp_code')}
              />
            )}
            <Button type="submit" loading={form.submitting}>
              {twoFactor ? 'Verify' : 'Sign in'}
            </Button>
            {!twoFactor && (
              <Text size="sm">
                <Anchor component={Link} to="/forgot-password">
                  Forgot password?
                </Anchor>
              </Text>
            )}
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
