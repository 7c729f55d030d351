// What a link's page offers one who may change it, for both kinds of link: pause, resume and delete
// (after a confirmation that names what the payers lose), each said in a toast and followed by the
// record and its list read again; a refusal in a toast in the API's words.
import { Button, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { refusalMessage } from '../lib/errors.js';
import { ConfirmModal } from './common.js';

/** A toast for an action done (the record and its list read again), and one for a refusal. */
export function useActionFeedback(record: QueryKey, list: QueryKey) {
  const queryClient = useQueryClient();
  return {
    done: async (message: string) => {
      notifications.show({ color: 'green', message });
      await Promise.all([record, list].map((queryKey) => queryClient.invalidateQueries({ queryKey })));
    },
    failed: (error: unknown) => notifications.show({ color: 'red', message: refusalMessage(error) }),
  };
}

interface Action {
  /** Whether the link is in a state the action applies to. */
  offered: boolean;
  run(): Promise<unknown>;
  busy: boolean;
}

export interface LinkActionsProps {
  /** "payment link", "open payment link": in the confirmation and its toast. */
  kind: string;
  record: QueryKey;
  list: QueryKey;
  /** Where the list of this kind is, to go back to once the link is deleted. */
  listPath: string;
  pause: Action;
  resume: Action;
  /** `warning` says what deleting it ends, in the confirmation. */
  remove: Action & { warning: ReactNode };
  /** Actions of this kind alone, before the others. */
  children?: ReactNode;
}

export function LinkActions({ kind, record, list, listPath, pause, resume, remove, children }: LinkActionsProps) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { done, failed } = useActionFeedback(record, list);
  const [deleting, setDeleting] = useState(false);
  return (
    <>
      {children}
      {pause.offered && (
        <Button variant="default" loading={pause.busy} onClick={() => pause.run().then(() => done('The link is paused.'), failed)}>
          Pause
        </Button>
      )}
      {resume.offered && (
        <Button variant="default" loading={resume.busy} onClick={() => resume.run().then(() => done('The link is active again.'), failed)}>
          Resume
        </Button>
      )}
      {remove.offered && (
        <Button color="red" variant="outline" onClick={() => setDeleting(true)}>
          Delete…
        </Button>
      )}
      <ConfirmModal
        opened={deleting}
        title={`Delete this ${kind}?`}
        confirmLabel={`Delete ${kind}`}
        busy={remove.busy}
        onClose={() => setDeleting(false)}
        onConfirm={() =>
          remove.run().then(async () => {
            notifications.show({ color: 'green', message: `The ${kind} was deleted.` });
            navigate(listPath);
            queryClient.removeQueries({ queryKey: record });
            await queryClient.invalidateQueries({ queryKey: list });
          }, failed)
        }
      >
        <Text>{remove.warning}</Text>
      </ConfirmModal>
    </>
  );
}
