import { Alert, Button, Code, CopyButton, Group, Image, List, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { confirmTotp, disableTotp, regenerateRecoveryCodes, startTotp, type TotpSetup, type ValidationErrors } from '../api/auth.js';
import { meQuery } from '../queries/auth.js';
import { useMe } from '../session.js';
import { PageHeading } from './common.js';
import { fieldErrors } from '../lib/errors.js';
import { useApiForm } from './api-form.js';

/** The password and a code as the API takes them: six digits are the app's code, anything else a recovery code. */
function proofOf(values: { password: string; totp_code: string }) {
  const code = values.totp_code.trim();
  return { password: values.password, ...(/^\d{6}$/.test(code) ? { totp_code: code } : { recovery_code: code }) };
}

/** A refusal's errors with a recovery code's messages on the code's field, where it was typed. */
function onCodeField(refused: { message: string; errors: ValidationErrors }) {
  const { recovery_code: recovery, ...errors } = refused.errors;
  return { message: refused.message, errors: recovery ? { ...errors, totp_code: recovery } : errors };
}

/** Turning two-factor sign-in off asks for the password and a current code: a session left open is not enough. */
function TurnOffForm() {
  const queryClient = useQueryClient();
  const { form, message, setMessage, refuse, done } = useApiForm({ password: '', totp_code: '' });

  async function submit(values: typeof form.values) {
    setMessage(undefined);
    const off = await disableTotp(proofOf(values));
    if (!off.ok) {
      refuse(onCodeField(off));
      return;
    }
    done();
    notifications.show({ color: 'green', message: 'Two-factor sign-in is off. Your other sessions were signed out.' });
    // The session got a new id (and CSRF token) when two-factor went off.
    await queryClient.invalidateQueries({ queryKey: meQuery().queryKey });
  }

  return (
    <form onSubmit={form.onSubmit(submit)} noValidate aria-labelledby="turn-off-heading">
      <Stack>
        <Title order={2} size="h3" id="turn-off-heading">
          Turn two-factor sign-in off
        </Title>
        {message && (
          <Alert color="red" role="alert">
            {message}
          </Alert>
        )}
        <PasswordInput label="Your password" autoComplete="current-password" required {...form.getInputProps('password')} />
        <TextInput
          label="Code from the app"
          description="Or one of your recovery codes"
          autoComplete="one-time-code"
          required
          {...form.getInputProps('totp_code')}
        />
        <Button type="submit" color="red" variant="outline" loading={form.submitting} w="fit-content">
          Turn off two-factor sign-in
        </Button>
      </Stack>
    </form>
  );
}

/** New recovery codes, for the same proof as turning it off; the old codes stop working. */
function NewRecoveryCodesForm({ made }: { made(codes: string[]): void }) {
  const queryClient = useQueryClient();
  const { form, message, setMessage, refuse, done } = useApiForm({ password: '', totp_code: '' });

  async function submit(values: typeof form.values) {
    setMessage(undefined);
    const fresh = await regenerateRecoveryCodes(proofOf(values));
    if (!fresh.ok) {
      refuse(onCodeField(fresh));
      return;
    }
    done();
    made(fresh.data.recovery_codes);
    notifications.show({ color: 'green', message: 'New recovery codes are made: the old ones no longer work.' });
    await queryClient.invalidateQueries({ queryKey: meQuery().queryKey });
  }

  return (
    <form onSubmit={form.onSubmit(submit)} noValidate aria-labelledby="new-codes-heading">
      <Stack>
        <Title order={2} size="h3" id="new-codes-heading">
          New recovery codes
        </Title>
        <Text size="sm">Ten new codes replace the ones you have, used or not.</Text>
        {message && (
          <Alert color="red" role="alert">
            {message}
          </Alert>
        )}
        <PasswordInput label="Your password" autoComplete="current-password" required {...form.getInputProps('password')} />
        <TextInput
          label="Code from the app"
          description="Or one of your recovery codes"
          autoComplete="one-time-code"
          required
          {...form.getInputProps('totp_code')}
        />
        <Button type="submit" variant="default" loading={form.submitting} w="fit-content">
          Make new recovery codes
        </Button>
      </Stack>
    </form>
  );
}

export function TwoFactorPage() {
  const me = useMe();
  const queryClient = useQueryClient();
  const [setup, setSetup] = useState<TotpSetup>();
  const { form } = useApiForm({ code: '' });
  const [busy, setBusy] = useState(false);
  const [recoveryCodes, setRecoveryCodes] = useState<string[]>();

  async function begin() {
    setBusy(true);
    const started = await startTotp();
    setBusy(false);
    if (started.ok) setSetup(started.data);
    else notifications.show({ color: 'red', message: started.message });
  }

  async function confirm({ code }: typeof form.values) {
    const confirmed = await confirmTotp(code.trim());
    if (!confirmed.ok) {
      // A refusal that names no field (two-factor already on, a 409) is said on the field too.
      form.setErrors({ code: fieldErrors(confirmed, ['code']).fields.code ?? confirmed.message });
      return;
    }
    form.reset();
    setRecoveryCodes(confirmed.data.recovery_codes);
    setSetup(undefined);
    notifications.show({ color: 'green', message: 'Two-factor sign-in is on.' });
    // The session got a new id (and CSRF token) when two-factor went on.
    await queryClient.invalidateQueries({ queryKey: meQuery().queryKey });
  }

  return (
    <Stack maw={520}>
      <PageHeading title="Two-factor sign-in" />
      {me.two_factor_setup_required && (
        <Alert title={`${me.business.name} requires two-factor sign-in`} role="status">
          <Text size="sm">Set it up here to use the console: until then, every other page of this business stays closed to you.</Text>
        </Alert>
      )}
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
          <CopyButton value={recoveryCodes.join('\n')}>
            {({ copied, copy }) => (
              <Button variant="default" size="xs" mt="xs" onClick={copy}>
                {copied ? 'Recovery codes copied' : 'Copy the recovery codes'}
              </Button>
            )}
          </CopyButton>
        </Alert>
      )}
      {me.user.two_factor_enabled ? (
        <>
          <Text>Two-factor sign-in is on: signing in asks for the code of your authenticator app.</Text>
          <Text size="sm">{me.user.recovery_codes_left} of 10 recovery codes left.</Text>
          <NewRecoveryCodesForm made={setRecoveryCodes} />
          <TurnOffForm />
        </>
      ) : setup ? (
        <form onSubmit={form.onSubmit(confirm)} noValidate aria-label="Confirm two-factor sign-in">
          <Stack>
            <Text>Scan the code with an authenticator app, or type the key into it, then enter the code it shows.</Text>
            <Image src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(setup.qr_svg)}`} alt="QR code of the authenticator key" w={200} h={200} />
            <Group align="flex-end" gap="xs">
              <TextInput label="Authenticator key" readOnly value={setup.secret} />
              <CopyButton value={setup.secret}>
                {({ copied, copy }) => (
                  <Button variant="default" onClick={copy}>
                    {copied ? 'Key copied' : 'Copy the key'}
                  </Button>
                )}
              </CopyButton>
            </Group>
            <TextInput label="Code from the app" autoComplete="one-time-code" inputMode="numeric" required {...form.getInputProps('code')} />
            <Button type="submit" loading={form.submitting} w="fit-content">
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
