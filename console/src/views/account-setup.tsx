// The page a one-time account link leads to (`/console/setup?token=...`): the first owner's link,
// one create-user printed, or an invitation e-mailed. Outside the signed-in views: its holder has
// no session yet. They choose their name and password (or confirm the password of the account they
// have), join the business, and are signed in with that password, or sent to the sign-in page when
// their account asks for a two-factor code. The console is served with `Referrer-Policy: same-origin`,
// so the token in this page's address goes to no other site.
import { Alert, Button, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { acceptAccountLink, signIn, type AccountLink } from '../api/auth.js';
import { accountLinkQuery, meQuery } from '../queries/auth.js';
import { EmailedLinkPage } from './emailed-link.js';
import { useApiForm } from './api-form.js';

function intro(link: AccountLink): string {
  const business = link.business_name || 'the business';
  const joining =
    link.purpose === 'invitation' ? `You are invited to join ${business} as ${link.role}.` : `Set up your account as ${link.role} of ${business}.`;
  return link.email ? `${joining} You will sign in as ${link.email}.` : joining;
}

function SetupForm({ token, link, onGone }: { token: string; link: AccountLink; onGone: (message: string) => void }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const existing = link.existing_account;
  // Only the fields the form shows: a message about another goes above them.
  const { form, message, refuse } = useApiForm(
    { email: '', name: '', password: '', password_confirmation: '' },
    { shown: existing ? ['password'] : ['name', 'password', 'password_confirmation', ...(link.email ? [] : ['email'])] },
  );

  async function submit({ email, name, password, password_confirmation }: typeof form.values) {
    const accepted = await acceptAccountLink(
      existing ? { token, password } : { token, name, password, password_confirmation, ...(link.email ? {} : { email }) },
    );
    if (!accepted.ok) {
      if (accepted.gone) onGone(accepted.message);
      else refuse(accepted);
      return;
    }
    const signedIn = await signIn({ email: accepted.data.email, password });
    if (signedIn.kind === 'signed-in') {
      queryClient.setQueryData(meQuery().queryKey, signedIn.me);
      notifications.show({ color: 'green', message: `Welcome: you are signed in as ${accepted.data.email}.` });
      navigate('/', { replace: true });
    } else {
      // Two-factor sign-in is on for this account (or signing in failed): the sign-in page asks again.
      notifications.show({ color: 'green', message: `Your account is ready. Sign in as ${accepted.data.email}.` });
      navigate('/sign-in', { replace: true });
    }
  }

  return (
    <form onSubmit={form.onSubmit(submit)} noValidate>
      <Stack>
        <Title order={1} size="h2">
          Set up your account
        </Title>
        <Text c="dimmed">{intro(link)}</Text>
        {message && (
          <Alert color="red" role="alert">
            {message}
          </Alert>
        )}
        {existing ? (
          <PasswordInput
            label="Your current password"
            description="You have an account already: confirm it to join."
            autoComplete="current-password"
            required
            {...form.getInputProps('password')}
          />
        ) : (
          <>
            {!link.email && <TextInput label="Your e-mail" type="email" autoComplete="email" required {...form.getInputProps('email')} />}
            <TextInput label="Your name" autoComplete="name" required {...form.getInputProps('name')} />
            <PasswordInput
              label="Password"
              description="At least 12 characters, not a common one"
              autoComplete="new-password"
              required
              {...form.getInputProps('password')}
            />
            <PasswordInput label="Password again" autoComplete="new-password" required {...form.getInputProps('password_confirmation')} />
          </>
        )}
        <Button type="submit" loading={form.submitting}>
          {existing ? 'Join' : 'Save and join'}
        </Button>
      </Stack>
    </form>
  );
}

export function AccountSetupPage() {
  return (
    <EmailedLinkPage
      title="Set up your account · Console"
      query={accountLinkQuery}
      noToken="This link has no token. Open the whole link you were given."
      next={{ to: '/sign-in', label: 'Sign in to the console' }}
      form={(token, { link }, onGone) => <SetupForm token={token} link={link} onGone={onGone} />}
    />
  );
}
