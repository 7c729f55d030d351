import { Button, Card, Checkbox, Group, Radio, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { components } from '@payment-collection/client';
// The server's own table of permissions (a pure module of its domain), so the form offers exactly those.
import { PERMISSIONS as ALL_PERMISSIONS } from '../../../server/domain/permissions.js';
import { $api } from '../api/client.js';
import { formatDateTime } from '../lib/dates.js';
import { useCan, useMe } from '../session.js';
import { ConfirmModal, DataTable, emptyList, PageHeading, QueryStates, SecretOnce, showRefusal } from './common.js';

type Permission = components['schemas']['Permission'];
type ApiKey = components['schemas']['ApiKey'];

function NewKeyForm() {
  const queryClient = useQueryClient();
  const create = $api.useMutation('post', '/api-keys');
  const me = useMe();
  // Only an owner makes a full key; everyone else lists what the key may do, within their own permissions.
  const owner = me.role === 'owner';
  const offered = ALL_PERMISSIONS.filter((permission) => me.permissions.includes(permission));
  const [name, setName] = useState('');
  const [kind, setKind] = useState(owner ? 'full' : 'restricted');
  const [permissions, setPermissions] = useState<string[]>([]);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [secret, setSecret] = useState<string>();

  async function submit(event: FormEvent) {
    event.preventDefault();
    try {
      const created = await create.mutateAsync({ body: { name, ...(kind === 'restricted' ? { permissions: permissions as Permission[] } : {}) } });
      setSecret(created.data.secret);
      setErrors({});
      setName('');
      notifications.show({ color: 'green', message: `API key “${created.data.name ?? created.data.prefix}” created.` });
      await queryClient.invalidateQueries();
    } catch (error) {
      showRefusal(error, ['name', 'permissions', 'expires_at'], setErrors);
    }
  }

  return (
    <Card withBorder maw={640} mb="lg">
      <form onSubmit={submit} noValidate aria-label="New API key">
        <Stack>
          <TextInput label="Key name" required value={name} onChange={(e) => setName(e.currentTarget.value)} error={errors.name} />
          <Radio.Group
            label="Access"
            value={kind}
            onChange={setKind}
            description={
              owner ? undefined : 'Only an owner makes a full key. A key you make holds at most what your role holds, and stops working if you leave.'
            }
          >
            <Group mt="xs">
              {owner && <Radio value="full" label="Full (every permission)" />}
              <Radio value="restricted" label="Restricted" />
            </Group>
          </Radio.Group>
          {kind === 'restricted' && (
            <Checkbox.Group label="Permissions" value={permissions} onChange={setPermissions} error={errors.permissions}>
              <SimpleGrid cols={{ base: 1, sm: 2 }} mt="xs">
                {offered.map((permission) => (
                  <Checkbox key={permission} value={permission} label={permission} />
                ))}
              </SimpleGrid>
            </Checkbox.Group>
          )}
          <Button type="submit" loading={create.isPending} w="fit-content">
            Create API key
          </Button>
          {secret && <SecretOnce what="key" secret={secret} />}
        </Stack>
      </form>
    </Card>
  );
}

export function ApiKeysPage() {
  const queryClient = useQueryClient();
  const keys = $api.useQuery('get', '/api-keys');
  const canWrite = useCan('api_keys:write');
  const revoke = $api.useMutation('delete', '/api-keys/{api_key_id}');
  const [revoking, setRevoking] = useState<ApiKey>();
  return (
    <>
      <PageHeading title="API keys" />
      {canWrite && <NewKeyForm />}
      <QueryStates query={keys} what="API keys" isEmpty={emptyList} empty={{ title: 'No API keys' }}>
        {(body) => (
          <DataTable
            label="API keys"
            rows={body.data}
            rowKey={(key) => key._id}
            minWidth={640}
            columns={[
              { header: 'Name', cell: (key) => key.name ?? key.prefix },
              { header: 'Key', cell: (key) => `${key.prefix}…${key.last_four ?? ''}` },
              { header: 'Access', cell: (key) => (key.permissions === null ? 'Full' : key.permissions.join(', ')) },
              { header: 'Last used', cell: (key) => (key.last_used_at ? formatDateTime(key.last_used_at) : 'Never') },
              {
                header: 'State',
                cell: (key) =>
                  key.revoked_at ? (
                    `Revoked ${formatDateTime(key.revoked_at)}`
                  ) : canWrite ? (
                    <Button size="xs" variant="default" onClick={() => setRevoking(key)}>
                      Revoke {key.name ?? key.prefix}…
                    </Button>
                  ) : (
                    'Active'
                  ),
              },
            ]}
          />
        )}
      </QueryStates>
      <ConfirmModal
        opened={revoking !== undefined}
        title="Revoke this API key?"
        confirmLabel="Revoke API key"
        busy={revoke.isPending}
        onClose={() => setRevoking(undefined)}
        onConfirm={async () => {
          await revoke.mutateAsync({ params: { path: { api_key_id: revoking!._id } } });
          setRevoking(undefined);
          notifications.show({ color: 'green', message: 'The key is revoked.' });
          await queryClient.invalidateQueries();
        }}
      >
        <Text>Requests made with {revoking?.name ?? revoking?.prefix} are refused from now on. This cannot be undone.</Text>
      </ConfirmModal>
    </>
  );
}
