import { Alert, Button, Code, Image, List, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { confirmTotp, disableTotp, startTotp, type TotpSetup } from '../api/auth.js';
import { ME_KEY, useMe } from '../session.js';
import { PageHeading } from './common.js';
import { useFormFields } from './form-fields.js';

/** Turning two-factor sign-in off asks for the password and a current code: a session left open is not enough. */
function TurnOffForm() {
  const queryClient = useQueryClient();
  const fields = useFormFields({ password: '', totp_code: '' });
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string>();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setMessage(undefined);
    try {
      const code = fields.values.totp_code.trim();
      // Six digits are the app's code; anything else is taken for a recovery code.
      const proof = /^\d{6}$/.test(code) ? { totp_code: code } : { recovery_code: code };
      const off = await disableTotp({ password: fields.values.password, ...proof });
      if (!off.ok) {
        const { recovery_code: recovery, ...errors } = off.errors;
        fields.setErrors(recovery ? { ...errors, totp_code: recovery } : errors);
        setMessage(off.message);
        return;
      }
      fields.reset();
      notifications.show({ color: 'green', message: 'Two-factor sign-in is off. Your other sessions were signed out.' });
      // The session got a new id (and CSRF token) when two-factor went off.
      await queryClient.invalidateQueries({ queryKey: ME_KEY });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} noValidate aria-labelledby="turn-off-heading">
      <Stack>
        <Title order={2} size="h3" id="turn-off-heading">
          Turn two-factor sign-in off
        </Title>
        {message && (
          <Alert color="red" role="alert">
            {message}
          </Alert>
        )}
        <PasswordInput label="Your password" autoComplete="current-password" required {...fields.field('password')} />
        <TextInput label="Code from the app" description="Or one of your recovery codes" autoComplete="one-time-code" required {...fields.field('totp_code')} />
        <Button type="submit" color="red" variant="outline" loading={busy} w="fit-content">
          Turn off two-factor sign-in
        </Button>
      </Stack>
    </form>
  );
}

export function TwoFactorPage() {
  const me = useMe();
  const queryClient = useQueryClient();
  const [setup, setSetup] = useState<TotpSetup>();
  const fields = useFormFields({ code: '' });
  const [busy, setBusy] = useState(false);
  const [recoveryCodes, setRecoveryCodes] = useState<string[]>();

  async function begin() {
    setBusy(true);
    const started = await startTotp();
    setBusy(false);
    if (started.ok) setSetup(started.data);
    else notifications.show({ color: 'red', message: started.message });
  }

  async function confirm(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    const confirmed = await confirmTotp(fields.values.code.trim());
    setBusy(false);
    if (!confirmed.ok) {
      // A refusal that names no field (two-factor already on, a 409) is said on the field too.
      fields.setErrors({ code: confirmed.errors.code ?? [confirmed.message] });
      return;
    }
    setRecoveryCodes(confirmed.data.recovery_codes);
    setSetup(undefined);
    notifications.show({ color: 'green', message: 'Two-factor sign-in is on.' });
    // The session got a new id (and CSRF token) when two-factor went on.
    await queryClient.invalidateQueries({ queryKey: ME_KEY });
  }

  return (
    <Stack maw={520}>
      <PageHeading title="Two-factor sign-in" />
      {recoveryCodes && (
        <Alert color="yellow" title="Keep these recovery codes now: they are shown only once">
          <Text size="sm">Each signs you in once without the app.</Text>
          <List aria-label="Recovery codes">
            {recoveryCodes.map((recovery) => (
              <List.Item key={recovery}>
                <Code>{recovery}</Code>
              </List.Item>
            ))}
          </List>
        </Alert>
      )}
      {me.user.two_factor_enabled ? (
        <>
          <Text>Two-factor sign-in is on: signing in asks for the code of your authenticator app.</Text>
          <TurnOffForm />
        </>
      ) : setup ? (
        <form onSubmit={confirm} noValidate aria-label="Confirm two-factor sign-in">
          <Stack>
            <Text>Scan the code with an authenticator app, or type the key into it, then enter the code it shows.</Text>
            <Image src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(setup.qr_svg)}`} alt="QR code of the authenticator key" w={200} h={200} />
            <TextInput label="Authenticator key" readOnly value={setup.secret} />
            <TextInput label="Code from the app" autoComplete="one-time-code" inputMode="numeric" required {...fields.field('code')} />
            <Button type="submit" loading={busy} w="fit-content">
              Turn on two-factor sign-in
            </Button>
          </Stack>
        </form>
      ) : (
        <>
          <Text>Two-factor sign-in is off. With it on, signing in also asks for a code from an authenticator app.</Text>
          <Button onClick={begin} loading={busy} w="fit-content">
            Set up two-factor sign-in
          </Button>
        </>
      )}
    </Stack>
  );
}
