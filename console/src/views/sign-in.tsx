import { Alert, Button, Center, Paper, PasswordInput, Stack, TextInput, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { signIn } from '../api/auth.js';
import { ME_KEY } from '../session.js';

/** Only a path of the console itself: `next` comes from the address bar. */
function safeNext(next: string | null): string {
  return next !== null && next.startsWith('/') && !next.startsWith('//') ? next : '/';
}

export function SignInPage() {
  useDocumentTitle('Sign in · Console');
  const navigate = useNavigate();
  const [search] = useSearchParams();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [twoFactor, setTwoFactor] = useState(false);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string>();
  const [errors, setErrors] = useState<Record<string, string[]>>({});

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setMessage(undefined);
    try {
      const result = await signIn({ email, password, ...(twoFactor ? { totp_code: code } : {}) });
      if (result.kind === 'signed-in') {
        queryClient.setQueryData(ME_KEY, result.me);
        navigate(safeNext(search.get('next')), { replace: true });
      } else if (result.kind === 'two-factor') {
        if (twoFactor) setMessage('That code is not right. Enter the current code from your authenticator app.');
        setTwoFactor(true);
      } else if (result.kind === 'invalid') {
        setErrors(result.errors);
        setMessage(result.message);
      } else {
        setMessage(result.message);
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <Center mih="100vh" p="md">
      <Paper component="main" withBorder p="xl" w={380} maw="100%">
        <form onSubmit={submit} noValidate>
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
                <TextInput
                  label="E-mail"
                  type="email"
                  autoComplete="username"
                  required
                  value={email}
                  onChange={(e) => setEmail(e.currentTarget.value)}
                  error={errors.email?.join(' ')}
                />
                <PasswordInput
                  label="Password"
                  autoComplete="current-password"
                  required
                  value={password}
                  onChange={(e) => setPassword(e.currentTarget.value)}
                  error={errors.password?.join(' ')}
                  aria-invalid={Boolean(errors.password)}
                />
              </>
            ) : (
              <TextInput
                label="Authentication code"
                description="The six digits your authenticator app shows, or a recovery code"
                autoComplete="one-time-code"
                inputMode="numeric"
                required
                autoFocus
                value={code}
                onChange={(e) => setCode(e.currentTarget.value)}
                error={errors.totp_code?.join(' ')}
              />
            )}
            <Button type="submit" loading={busy}>
              {twoFactor ? 'Verify' : 'Sign in'}
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
