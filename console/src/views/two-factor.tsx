import { Alert, Button, Code, CopyButton, Group, Image, List, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { confirmTotp, disableTotp, regenerateRecoveryCodes, startTotp, type Outcome, type TotpSetup, type ValidationErrors } from '../api/auth.js';
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

interface ProofFormProps<T> {
  /** The heading's id, which names the form. */
  id: string;
  title: string;
  intro?: string;
  submit: { label: string; danger?: boolean };
  send(proof: ReturnType<typeof proofOf>): Promise<Outcome<T>>;
  /** After the API took it: what the page shows, and the toast that says so. */
  succeeded(data: T): string;
}

/**
 * A change to two-factor sign-in asks for the password and a current code (or a recovery code): a
 * session left open is not enough. Turning it off and making new recovery codes are this one form.
 */
function ProofForm<T>({ id, title, intro, submit: button, send, succeeded }: ProofFormProps<T>) {
  const queryClient = useQueryClient();
  const { form, message, setMessage, refuse, done } = useApiForm({ password: '', totp_code: '' });

  async function submit(values: typeof form.values) {
    setMessage(undefined);
    const outcome = await send(proofOf(values));
    if (!outcome.ok) {
      refuse(onCodeField(outcome));
      return;
    }
    done();
    notifications.show({ color: 'green', message: succeeded(outcome.data) });
    // Turning it off gives the session a new id (and CSRF token); both change what the page shows of two-factor.
    await queryClient.invalidateQueries({ queryKey: meQuery().queryKey });
  }

  return (
    <form onSubmit={form.onSubmit(submit)} noValidate aria-labelledby={id}>
      <Stack>
        <Title order={2} size="h3" id={id}>
          {title}
        </Title>
        {intro && <Text size="sm">{intro}</Text>}
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
        <Button
          type="submit"
          color={button.danger ? 'red' : undefined}
          variant={button.danger ? 'outline' : 'default'}
          loading={form.submitting}
          w="fit-content"
        >
          {button.label}
        </Button>
      </Stack>
    </form>
  );
}

function TurnOffForm() {
  return (
    <ProofForm
      id="turn-off-heading"
      title="Turn two-factor sign-in off"
      submit={{ label: 'Turn off two-factor sign-in', danger: true }}
      send={disableTotp}
      succeeded={() => 'Two-factor sign-in is off. Your other sessions were signed out.'}
    />
  );
}

/** New recovery codes, for the same proof as turning it off; the old codes stop working. */
function NewRecoveryCodesForm({ made }: { made(codes: string[]): void }) {
  return (
    <ProofForm
      id="new-codes-heading"
      title="New recovery codes"
      intro="Ten new codes replace the ones you have, used or not."
      submit={{ label: 'Make new recovery codes' }}
      send={regenerateRecoveryCodes}
      succeeded={(data) => {
        made(data.recovery_codes);
        return 'New recovery codes are made: the old ones no longer work.';
      }}
    />
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
