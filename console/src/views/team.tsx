import { Button, Card, Group, NativeSelect, Stack, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { components } from '@payment-collection/client';
import { $api } from '../api/client.js';
import { formatDateTime } from '../lib/dates.js';
import { refusalMessage } from '../lib/errors.js';
import { assignableRoles, mayManageMember, type Role } from '../lib/team.js';
import { useCan, useMe } from '../session.js';
import { ConfirmModal, DataTable, EmptyState, Loading, PageHeading, QueryError, showRefusal } from './common.js';

type Member = components['schemas']['Member'];
type Invitation = components['schemas']['Invitation'];

function InviteForm() {
  const me = useMe();
  const queryClient = useQueryClient();
  const invite = $api.useMutation('post', '/team/invitations');
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [errors, setErrors] = useState<Record<string, string>>({});

  async function submit(event: FormEvent) {
    event.preventDefault();
    try {
      const created = await invite.mutateAsync({ body: { email, role } });
      setErrors({});
      setEmail('');
      notifications.show({ color: 'green', message: `Invitation e-mailed to ${created.data.email}.` });
      await queryClient.invalidateQueries({ queryKey: ['get', '/team/invitations'] });
    } catch (error) {
      showRefusal(error, ['email', 'role'], setErrors);
    }
  }

  return (
    <Card withBorder maw={640} mb="lg">
      <form onSubmit={submit} noValidate aria-label="Invite a member">
        <Stack>
          <Title order={2} size="h4">
            Invite a member
          </Title>
          <Group align="flex-start" wrap="wrap">
            <TextInput label="Invitee e-mail" type="email" required value={email} onChange={(e) => setEmail(e.currentTarget.value)} error={errors.email} />
            <NativeSelect
              label="Role"
              data={assignableRoles(me.role)}
              value={role}
              onChange={(e) => setRole(e.currentTarget.value as Role)}
              error={errors.role}
            />
          </Group>
          <Button type="submit" loading={invite.isPending} w="fit-content">
            Send invitation
          </Button>
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
      data={assignableRoles(me.role)}
      value={member.role}
      disabled={update.isPending}
      w={140}
      onChange={async (e) => {
        const value = e.currentTarget.value;
        if (value === member.role) return;
        try {
          await update.mutateAsync({ params: { path: { user_id: member.user_id } }, body: { role: value as Role } });
          notifications.show({ color: 'green', message: `${member.email} is now ${value}.` });
        } catch (error) {
          notifications.show({ color: 'red', message: refusalMessage(error) });
        }
        await queryClient.invalidateQueries({ queryKey: ['get', '/team/members'] });
      }}
    />
  );
}

export function TeamPage() {
  const me = useMe();
  const canWrite = useCan('team:write');
  const queryClient = useQueryClient();
  const members = $api.useQuery('get', '/team/members');
  const invitations = $api.useQuery('get', '/team/invitations');
  const remove = $api.useMutation('delete', '/team/members/{user_id}');
  const revoke = $api.useMutation('delete', '/team/invitations/{invitation_id}');
  const [removing, setRemoving] = useState<Member>();
  const [revoking, setRevoking] = useState<Invitation>();
  const manages = (member: Member) => canWrite && mayManageMember(me.role, me.user._id, member);

  return (
    <>
      <PageHeading title="Team" />
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
            { header: 'Role', cell: (member) => (manages(member) ? <RoleSelect member={member} /> : member.role) },
            { header: 'Two-factor', cell: (member) => (member.two_factor_enabled ? 'On' : 'Off') },
            { header: 'Joined', cell: (member) => formatDateTime(member.joined_at) },
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
            { header: 'Role', cell: (invitation) => invitation.role },
            { header: 'Expires', cell: (invitation) => formatDateTime(invitation.expires_at) },
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
          await queryClient.invalidateQueries({ queryKey: ['get', '/team/members'] });
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
          await queryClient.invalidateQueries({ queryKey: ['get', '/team/invitations'] });
        }}
      >
        <Text>The link e-mailed to {revoking?.email} stops working.</Text>
      </ConfirmModal>
    </>
  );
}
