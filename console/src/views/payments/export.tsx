// The payments list as CSV, streamed with its progress and saved with the business's times.
import { Button, Group, Progress, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { api } from '../../api/client.js';
import { exportFileName, inBusinessTime, readWithProgress, type ExportProgress } from '../../lib/csv-export.js';
import { useBusinessTime } from '../../lib/business-time.js';
import { saveFile } from '../save-file.js';
import type { PaymentsQuery } from '../../queries/payments.js';

export function ExportButton({ query }: { query: PaymentsQuery }) {
  const [progress, setProgress] = useState<ExportProgress>();
  const { timeZone } = useBusinessTime();
  async function run() {
    setProgress({ bytes: 0, lines: 0 });
    try {
      const { response } = await api.GET('/payments', { params: { query }, headers: { Accept: 'text/csv' }, parseAs: 'stream' });
      if (!response.ok) {
        const body = (await response.json().catch(() => ({}))) as { message?: string };
        notifications.show({ color: 'red', message: body.message ?? `The export failed (HTTP ${response.status}).` });
        return;
      }
      const blob = await readWithProgress(response, setProgress);
      // Without the business's zone (not read yet) the file is saved as the API wrote it, in UTC.
      const csv = timeZone === undefined ? blob : new Blob([inBusinessTime(await blob.text(), timeZone)], { type: 'text/csv' });
      saveFile(csv, timeZone === undefined ? `payments-${new Date().toISOString().slice(0, 10)}.csv` : exportFileName(new Date(), timeZone));
      notifications.show({ color: 'green', message: 'The export is downloaded.' });
    } finally {
      setProgress(undefined);
    }
  }
  return (
    <Group gap="xs">
      <Button variant="default" onClick={run} loading={progress !== undefined}>
        Export CSV
      </Button>
      {progress && (
        <Stack gap={2} w={160}>
          <Progress value={100} animated aria-label="Export progress" />
          <Text size="xs" aria-live="polite">
            {Math.max(progress.lines - 1, 0)} lines read
          </Text>
        </Stack>
      )}
    </Group>
  );
}
