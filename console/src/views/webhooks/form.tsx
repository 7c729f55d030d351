// A webhook endpoint's form, new or edited: its URL, description, events and whether it is enabled.
import { Button, Card, Checkbox, SimpleGrid, Stack, Switch, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import type { UseFormReturnType } from '@mantine/form';
import { useState } from 'react';
import type { components } from '@payment-collection/client';
import { $api } from '../../api/client.js';
import { EVENT_TYPES, enabledEvents, pickedEvents } from '../../lib/team.js';
import { SecretOnce } from '../common.js';
import { useApiForm } from '../api-form.js';
import { webhookEndpointQuery, webhookEndpointsQuery } from '../../queries/webhook-endpoints.js';

export type Endpoint = components['schemas']['WebhookEndpoint'];

/** An endpoint's form, its fields named as the API names them (the events ticked, none for all). */
interface EndpointDraft {
  url: string;
  description: string;
  enabled_events: string[];
  enabled: boolean;
}

/** The endpoint as the API takes it: an empty description is none, the ticked events or every one. */
function endpointBody(draft: EndpointDraft) {
  return { url: draft.url, description: draft.description.trim() || null, enabled_events: enabledEvents(draft.enabled_events), enabled: draft.enabled };
}

function EndpointFields({ form }: { form: UseFormReturnType<EndpointDraft> }) {
  return (
    <>
      <TextInput label="Endpoint URL" description="https, on a public address" type="url" required {...form.getInputProps('url')} />
      <TextInput label="Description" {...form.getInputProps('description')} />
      <Checkbox.Group label="Events" description="None or all ticked: every event, including ones added later" {...form.getInputProps('enabled_events')}>
        <SimpleGrid cols={{ base: 1, sm: 2 }} mt="xs">
          {EVENT_TYPES.map((type) => (
            <Checkbox key={type} value={type} label={type} />
          ))}
        </SimpleGrid>
      </Checkbox.Group>
      <Switch label="Enabled" {...form.getInputProps('enabled', { type: 'checkbox' })} />
    </>
  );
}

export function NewEndpointForm() {
  const queryClient = useQueryClient();
  const create = $api.useMutation('post', '/webhook-endpoints');
  const { form, refuse, done } = useApiForm<EndpointDraft>({ url: '', description: '', enabled_events: [], enabled: true }, { toast: true });
  const [secret, setSecret] = useState<string>();

  async function submit(draft: EndpointDraft) {
    try {
      const created = await create.mutateAsync({
        body: endpointBody(draft),
      });
      setSecret(created.data.secret);
      done();
      notifications.show({ color: 'green', message: `Webhook endpoint ${created.data.url} added.` });
      await queryClient.invalidateQueries({ queryKey: webhookEndpointsQuery().queryKey });
    } catch (error) {
      refuse(error);
    }
  }

  return (
    <Card withBorder maw={640} mb="lg">
      <form onSubmit={form.onSubmit(submit)} noValidate aria-label="New webhook endpoint">
        <Stack>
          <Title order={2} size="h4">
            New webhook endpoint
          </Title>
          <EndpointFields form={form} />
          <Button type="submit" loading={create.isPending} w="fit-content">
            Add endpoint
          </Button>
          {secret && <SecretOnce what="signing secret" secret={secret} />}
        </Stack>
      </form>
    </Card>
  );
}

export function EditEndpointForm({ endpoint }: { endpoint: Endpoint }) {
  const queryClient = useQueryClient();
  const update = $api.useMutation('put', '/webhook-endpoints/{webhook_endpoint_id}');
  // Keyed by the endpoint's updated_at where it is shown: a saved change starts a fresh form from it.
  const { form, refuse } = useApiForm<EndpointDraft>(
    { url: endpoint.url, description: endpoint.description ?? '', enabled_events: pickedEvents(endpoint.enabled_events), enabled: endpoint.enabled },
    { toast: true },
  );

  async function submit(draft: EndpointDraft) {
    try {
      await update.mutateAsync({
        params: { path: { webhook_endpoint_id: endpoint._id } },
        body: endpointBody(draft),
      });
      notifications.show({ color: 'green', message: 'The webhook endpoint is saved.' });
      await Promise.all(
        [webhookEndpointsQuery().queryKey, webhookEndpointQuery(endpoint._id).queryKey].map((queryKey) => queryClient.invalidateQueries({ queryKey })),
      );
    } catch (error) {
      refuse(error);
    }
  }

  return (
    <Card withBorder maw={640} mb="lg">
      <form onSubmit={form.onSubmit(submit)} noValidate aria-label="Edit webhook endpoint">
        <Stack>
          <EndpointFields form={form} />
          <Button type="submit" loading={update.isPending} w="fit-content">
            Save endpoint
          </Button>
        </Stack>
      </form>
    </Card>
  );
}
