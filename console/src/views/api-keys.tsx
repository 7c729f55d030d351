import { Button, Card, Checkbox, Group, Radio, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { PERMISSION_DESCRIPTIONS, PERMISSIONS as ALL_PERMISSIONS, type Permission, type components } from '@payment-collection/client';
import { $api } from '../api/client.js';
import { useCan, useMe } from '../session.js';
import { useApiForm } from './api-form.js';
import { ConfirmModal, DateTime, emptyList, PageHeading, QueryStates, SecretOnce } from './common.js';
import { DataTable } from './data-table.js';
import { apiKeysQuery } from '../queries/api-keys.js';

type ApiKey = components['schemas']['ApiKey'];

function NewKeyForm() {
  const queryClient = useQueryClient();
  const create = $api.useMutation('post', '/api-keys');
  const me = useMe();
  // Only an owner makes a full key; everyone else lists what the key may do, within their own permissions.
  const owner = me.role === 'owner';
  const offered = ALL_PERMISSIONS.filter((permission) => me.permissions.includes(permission));
  // `kind` is the form's own (the API takes a full key as one without `permissions`); the API's
  // `expires_at` has no field here, so its messages are said in a toast.
  const { form, refuse, done } = useApiForm<{ name: string; kind: string; permissions: string[] }>(
    { name: '', kind: owner ? 'full' : 'restricted', permissions: [] },
    { shown: ['name', 'permissions'], toast: true },
  );
  const [secret, setSecret] = useState<string>();

  async function submit({ name, kind, permissions }: typeof form.values) {
    try {
      const created = await create.mutateAsync({ body: { name, ...(kind === 'restricted' ? { permissions: permissions as Permission[] } : {}) } });
      setSecret(created.data.secret);
      done();
      notifications.show({ color: 'green', message: `API key “${created.data.name ?? created.data.prefix}” created.` });
      await queryClient.invalidateQueries({ queryKey: apiKeysQuery().queryKey });
    } catch (error) {
      refuse(error);
    }
  }

  return (
    <Card withBorder maw={640} mb="lg">
      <form onSubmit={form.onSubmit(submit)} noValidate aria-label="New API key">
        <Stack>
          <TextInput label="Key name" required {...form.getInputProps('name')} />
          <Radio.Group
            label="Access"
            {...form.getInputProps('kind')}
            description={
              owner ? undefined : 'Only an owner makes a full key. A key you make holds at most what your role holds, and stops working if you leave.'
            }
          >
            <Group mt="xs">
              {owner && <Radio value="full" label="Full (every permission)" />}
              <Radio value="restricted" label="Restricted" />
            </Group>
          </Radio.Group>
          {form.values.kind === 'restricted' && (
            <Checkbox.Group label="Permissions" {...form.getInputProps('permissions')}>
              <SimpleGrid cols={{ base: 1, sm: 2 }} mt="xs">
                {offered.map((permission) => (
                  <Checkbox key={permission} value={permission} label={PERMISSION_DESCRIPTIONS[permission]} description={permission} />
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
  const keys = useQuery(apiKeysQuery());
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
              {
                header: 'Access',
                cell: (key) => (key.permissions === null ? 'Full' : key.permissions.map((permission) => PERMISSION_DESCRIPTIONS[permission]).join('; ')),
              },
              { header: 'Last used', cell: (key) => (key.last_used_at ? <DateTime instant={key.last_used_at} /> : 'Never') },
              {
                header: 'State',
                cell: (key) =>
                  key.revoked_at ? (
                    <>
                      Revoked <DateTime instant={key.revoked_at} />
                    </>
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
          await queryClient.invalidateQueries({ queryKey: apiKeysQuery().queryKey });
        }}
      >
        <Text>Requests made with {revoking?.name ?? revoking?.prefix} are refused from now on. This cannot be undone.</Text>
      </ConfirmModal>
    </>
  );
}
