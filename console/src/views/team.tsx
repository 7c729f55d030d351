import { Alert, Button, Card, Code, CopyButton, Group, NativeSelect, Radio, Stack, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { components } from '@payment-collection/client';
import { $api } from '../api/client.js';
import { refusalMessage } from '../lib/errors.js';
import { assignableRoles, mayManageMember, roleDescription, roleName, type Role } from '../lib/team.js';
import { useCan, useMe } from '../session.js';
import { ConfirmModal, DateTime, EmptyState, Loading, PageHeading, QueryError } from './common.js';
import { DataTable } from './data-table.js';
import { useApiForm } from './api-form.js';
import { teamInvitationsQuery, teamMembersQuery } from '../queries/team.js';

type Member = components['schemas']['Member'];
type Invitation = components['schemas']['Invitation'];

/**
 * Without an SMTP server the service writes e-mails to a folder on its own disk, where no invitee reads
 * them: the team page says so, and hands the inviter each new invitation's link to pass on.
 */
function MailFolderNotice({ folder }: { folder: string }) {
  return (
    <Alert title="E-mails are not sent" mb="lg" maw={640}>
      <Text size="sm">
        No SMTP server is configured (<Code>SMTP_URL</Code>), so the service writes each e-mail to the folder <Code>{folder}</Code> on its own disk instead. An
        invitation's link is shown here when you send it: copy it and pass it on yourself.
      </Text>
    </Alert>
  );
}

function InvitationLink({ email, url }: { email: string; url: string }) {
  return (
    <Stack gap="xs">
      <TextInput label={`Invitation link for ${email}`} readOnly value={url} description="It works once, for 72 hours." />
      <CopyButton value={url}>
        {({ copied, copy }) => (
          <Button variant="default" onClick={copy} w="fit-content">
            {copied ? 'Link copied' : 'Copy the invitation link'}
          </Button>
        )}
      </CopyButton>
    </Stack>
  );
}

function InviteForm() {
  const me = useMe();
  const queryClient = useQueryClient();
  const invite = $api.useMutation('post', '/team/invitations');
  const { form, refuse, done } = useApiForm<{ email: string; role: Role }>({ email: '', role: 'viewer' }, { toast: true });
  const [link, setLink] = useState<{ email: string; url: string }>();

  async function submit(body: typeof form.values) {
    try {
      const created = await invite.mutateAsync({ body });
      done();
      const { url } = created.data;
      setLink(url === undefined ? undefined : { email: created.data.email, url });
      notifications.show({
        color: 'green',
        message:
          url === undefined
            ? `Invitation e-mailed to ${created.data.email}.`
            : `Invitation for ${created.data.email} made. E-mail is not sent here: copy its link below.`,
      });
      await queryClient.invalidateQueries({ queryKey: teamInvitationsQuery().queryKey });
    } catch (error) {
      refuse(error);
    }
  }

  return (
    <Card withBorder maw={640} mb="lg">
      <form onSubmit={form.onSubmit(submit)} noValidate aria-label="Invite a member">
        <Stack>
          <Title order={2} size="h4">
            Invite a member
          </Title>
          <Group align="flex-start" wrap="wrap">
            <TextInput label="Invitee e-mail" type="email" required {...form.getInputProps('email')} />
          </Group>
          <Radio.Group label="Role" {...form.getInputProps('role')}>
            <Stack gap="xs" mt="xs">
              {assignableRoles(me.role).map((choice) => (
                <Radio key={choice} value={choice} label={roleName(choice)} description={roleDescription(choice)} />
              ))}
            </Stack>
          </Radio.Group>
          <Button type="submit" loading={invite.isPending} w="fit-content">
            Send invitation
          </Button>
          {link && <InvitationLink email={link.email} url={link.url} />}
        </Stack>
      </form>
    </Card>
  );
}

function RoleSelect({ member }: { member: Member }) {
  const me = useMe();
  const queryClient = useQueryClient();
  const update = $api.useMutation('patch', '/team/members/{user_id}');
  return (
    <NativeSelect
      aria-label={`Role of ${member.email}`}
      data={assignableRoles(me.role).map((role) => ({ value: role, label: roleName(role) }))}
      value={member.role}
      disabled={update.isPending}
      w={140}
      onChange={async (e) => {
        const value = e.currentTarget.value;
        if (value === member.role) return;
        try {
          await update.mutateAsync({ params: { path: { user_id: member.user_id } }, body: { role: value as Role } });
          notifications.show({ color: 'green', message: `${member.email} is now ${roleName(value as Role)}.` });
        } catch (error) {
          notifications.show({ color: 'red', message: refusalMessage(error) });
        }
        await queryClient.invalidateQueries({ queryKey: teamMembersQuery().queryKey });
      }}
    />
  );
}

export function TeamPage() {
  const me = useMe();
  const canWrite = useCan('team:write');
  const queryClient = useQueryClient();
  const members = useQuery(teamMembersQuery());
  const invitations = useQuery(teamInvitationsQuery());
  const remove = $api.useMutation('delete', '/team/members/{user_id}');
  const revoke = $api.useMutation('delete', '/team/invitations/{invitation_id}');
  const [removing, setRemoving] = useState<Member>();
  const [revoking, setRevoking] = useState<Invitation>();
  const manages = (member: Member) => canWrite && mayManageMember(me.role, me.user._id, member);

  return (
    <>
      <PageHeading title="Team" />
      {canWrite && me.mail_folder && <MailFolderNotice folder={me.mail_folder} />}
      {canWrite && <InviteForm />}
      <Title order={2} size="h4" mb="xs">
        Members
      </Title>
      {members.isPending ? (
        <Loading what="members" />
      ) : members.isError ? (
        <QueryError error={members.error} />
      ) : (
        <DataTable
          label="Members"
          rows={members.data.data}
          rowKey={(member) => member.user_id}
          minWidth={640}
          columns={[
            { header: 'Member', cell: (member) => (member.name ? `${member.name} (${member.email})` : member.email) },
            { header: 'Role', cell: (member) => (manages(member) ? <RoleSelect member={member} /> : roleName(member.role)) },
            { header: 'Two-factor', cell: (member) => (member.two_factor_enabled ? 'On' : 'Off') },
            { header: 'Joined', cell: (member) => <DateTime instant={member.joined_at} /> },
            {
              header: 'Actions',
              cell: (member) =>
                manages(member) ? (
                  <Button size="xs" variant="default" onClick={() => setRemoving(member)}>
                    Remove {member.email}…
                  </Button>
                ) : (
                  '—'
                ),
            },
          ]}
        />
      )}
      <Title order={2} size="h4" mt="lg" mb="xs">
        Open invitations
      </Title>
      {invitations.isPending ? (
        <Loading what="invitations" />
      ) : invitations.isError ? (
        <QueryError error={invitations.error} />
      ) : invitations.data.data.length === 0 ? (
        <EmptyState title="No open invitations" />
      ) : (
        <DataTable
          label="Invitations"
          rows={invitations.data.data}
          rowKey={(invitation) => invitation._id}
          columns={[
            { header: 'E-mail', cell: (invitation) => invitation.email },
            { header: 'Role', cell: (invitation) => roleName(invitation.role) },
            { header: 'Expires', cell: (invitation) => <DateTime instant={invitation.expires_at} /> },
            {
              header: 'Actions',
              cell: (invitation) =>
                canWrite ? (
                  <Button size="xs" variant="default" onClick={() => setRevoking(invitation)}>
                    Revoke invitation of {invitation.email}…
                  </Button>
                ) : (
                  '—'
                ),
            },
          ]}
        />
      )}
      <ConfirmModal
        opened={removing !== undefined}
        title="Remove this member?"
        confirmLabel="Remove member"
        busy={remove.isPending}
        onClose={() => setRemoving(undefined)}
        onConfirm={async () => {
          try {
            await remove.mutateAsync({ params: { path: { user_id: removing!.user_id } } });
            notifications.show({ color: 'green', message: `${removing!.email} was removed.` });
          } catch (error) {
            notifications.show({ color: 'red', message: refusalMessage(error) });
          }
          setRemoving(undefined);
          await queryClient.invalidateQueries({ queryKey: teamMembersQuery().queryKey });
        }}
      >
        <Text>{removing?.email} loses access to this business at once; their sessions here end.</Text>
      </ConfirmModal>
      <ConfirmModal
        opened={revoking !== undefined}
        title="Revoke this invitation?"
        confirmLabel="Revoke invitation"
        busy={revoke.isPending}
        onClose={() => setRevoking(undefined)}
        onConfirm={async () => {
          try {
            await revoke.mutateAsync({ params: { path: { invitation_id: revoking!._id } } });
            notifications.show({ color: 'green', message: `The invitation of ${revoking!.email} is revoked.` });
          } catch (error) {
            notifications.show({ color: 'red', message: refusalMessage(error) });
          }
          setRevoking(undefined);
          await queryClient.invalidateQueries({ queryKey: teamInvitationsQuery().queryKey });
        }}
      >
        <Text>The link e-mailed to {revoking?.email} stops working.</Text>
      </ConfirmModal>
    </>
  );
}
