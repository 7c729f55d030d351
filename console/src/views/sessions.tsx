// The member's signed-in sessions (GET /api/auth/sessions), each but this browser's ended on demand
// (DELETE /api/auth/sessions/{id}): a phone lost or a shared computer left signed in is signed out here.
import { Button, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { components } from '@payment-collection/client';
import { $api } from '../api/client.js';
import { useBusinessTime } from '../lib/business-time.js';
import { refusalMessage } from '../lib/errors.js';
import { ConfirmModal, emptyList, PageHeading, QueryStates } from './common.js';
import { DataTable } from './data-table.js';
import { sessionsQuery } from '../queries/sessions.js';

type Session = components['schemas']['Session'];

/** "Chrome on Linux"-level detail is in the user agent; the whole of it is kept short enough to read. */
function browserOf(session: Session): string {
  const agent = session.user_agent ?? 'Unknown browser';
  return agent.length > 80 ? `${agent.slice(0, 79)}…` : agent;
}

export function SessionsPage() {
  const queryClient = useQueryClient();
  const { dateTime } = useBusinessTime();
  const sessions = useQuery(sessionsQuery());
  const end = $api.useMutation('delete', '/auth/sessions/{session_id}');
  const [ending, setEnding] = useState<Session>();
  return (
    <>
      <PageHeading title="Signed-in sessions" />
      <Text mb="md">Every browser where you are signed in. Sign out any you do not recognise, then change your password.</Text>
      <QueryStates query={sessions} what="sessions" isEmpty={emptyList} empty={{ title: 'No sessions' }}>
        {(body) => (
          <DataTable
            label="Sessions"
            rows={body.data}
            rowKey={(session) => session._id}
            minWidth={640}
            columns={[
              { header: 'Browser', cell: (session) => (session.current ? `This browser: ${browserOf(session)}` : browserOf(session)) },
              { header: 'Address', cell: (session) => session.client_address ?? '—' },
              { header: 'Signed in', cell: (session) => dateTime(session.created_at) },
              { header: 'Last active', cell: (session) => dateTime(session.last_seen_at) },
              {
                header: 'Actions',
                cell: (session) =>
                  session.current ? (
                    '—'
                  ) : (
                    <Button
                      size="xs"
                      variant="default"
                      onClick={() => setEnding(session)}
                      aria-label={`Sign out the session from ${dateTime(session.created_at)}`}
                    >
                      Sign out…
                    </Button>
                  ),
              },
            ]}
          />
        )}
      </QueryStates>
      <ConfirmModal
        opened={ending !== undefined}
        title="Sign out this session?"
        confirmLabel="Sign out session"
        busy={end.isPending}
        onClose={() => setEnding(undefined)}
        onConfirm={async () => {
          try {
            await end.mutateAsync({ params: { path: { session_id: ending!._id } } });
            notifications.show({ color: 'green', message: 'The session is signed out.' });
          } catch (error) {
            notifications.show({ color: 'red', message: refusalMessage(error) });
          }
          setEnding(undefined);
          await queryClient.invalidateQueries({ queryKey: sessionsQuery().queryKey });
        }}
      >
        <Text>{ending && browserOf(ending)} will have to sign in again.</Text>
      </ConfirmModal>
    </>
  );
}
