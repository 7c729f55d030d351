// A bank statement matched against the payouts: the file read as text in the browser and sent to
// POST /api/bank-statements with its layout (a bank's preset, or the columns picked from its header
// line), then every line with its outcome (GET /api/bank-statements/{id} shows it again).
import { Anchor, Button, Card, FileInput, Group, Select, Stack, Text } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { $api } from '../api/client.js';
import { fieldErrors } from '../lib/errors.js';
import { formatCents } from '../lib/money.js';
import {
  COLUMN_ROLES,
  FORMATS,
  guessColumns,
  headerNames,
  statementUpload,
  type ColumnPicks,
  type ColumnRole,
  type DateOrder,
  type Delimiter,
  type StatementFormat,
} from '../lib/payouts.js';
import { DateTime, Loading, PageHeading, QueryError, StatusBadge } from './common.js';
import { DataTable } from './data-table.js';
import { bankStatementQuery } from '../queries/bank-statements.js';
import { everyPayoutKey, payoutsListKey } from '../queries/payouts.js';

/** The contract's limit on `csv`: a longer file is refused here, before it is sent. */
const MAX_CSV_CHARACTERS = 250_000;

const COLUMN_LABELS: Record<ColumnRole, string> = {
  date: 'Date column',
  amount: 'Amount column',
  credit: 'Credit (money in) column',
  debit: 'Debit (money out) column',
  reference: 'Reference column',
  description: 'Description column',
};

const DATE_ORDERS: Array<{ value: DateOrder; label: string }> = [
  { value: 'DMY', label: 'Day first (23/05/2025)' },
  { value: 'MDY', label: 'Month first (05/23/2025)' },
  { value: 'YMD', label: 'Year first (2025-05-23)' },
];

const DELIMITERS: Array<{ value: Delimiter; label: string }> = [
  { value: ',', label: 'Commas' },
  { value: ';', label: 'Semicolons' },
  { value: '\t', label: 'Tabs' },
];

/** The API's messages: about the file under the file, about a column under its picker, the rest above the button. */
function messagesOf(error: unknown) {
  const shown = fieldErrors(error, ['csv', 'format', 'file_name', 'date_order', 'delimiter', ...COLUMN_ROLES.map((role) => `columns.${role}`)]);
  const { csv, format, file_name: fileName, ...rest } = shown.fields;
  const general = [shown.general, format, fileName, rest.date_order, rest.delimiter].filter(Boolean).join(' ');
  return { file: csv, fields: rest, general: general === '' ? undefined : general };
}

export function BankStatementUploadPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const upload = $api.useMutation('post', '/bank-statements');
  const [file, setFile] = useState<File | null>(null);
  const [csv, setCsv] = useState('');
  const [format, setFormat] = useState<StatementFormat>('generic');
  const [dateOrder, setDateOrder] = useState<DateOrder>('DMY');
  const [delimiter, setDelimiter] = useState<Delimiter>(',');
  const [columns, setColumns] = useState<ColumnPicks>({});
  const [errors, setErrors] = useState<ReturnType<typeof messagesOf>>({ fields: {}, file: undefined, general: undefined });
  const headers = [...new Set(headerNames(csv, delimiter))].filter((name) => name !== '');
  const layout = FORMATS.find((choice) => choice.value === format)!;
  const tooLarge = csv.length > MAX_CSV_CHARACTERS;
  const fileError = tooLarge ? `The file has ${csv.length.toLocaleString('en-MY')} characters; the service takes up to 250,000: split it.` : errors.file;

  async function choose(chosen: File | null) {
    setFile(chosen);
    setErrors({ fields: {}, file: undefined, general: undefined });
    const text = chosen ? await chosen.text() : '';
    setCsv(text);
    setColumns(guessColumns(headerNames(text, delimiter)));
  }

  async function send() {
    try {
      const answer = await upload.mutateAsync({ body: statementUpload({ format, fileName: file?.name ?? '', csv, columns, dateOrder, delimiter }) });
      // A matched line reconciles its payout: the payouts list and every payout read on its own.
      await Promise.all([payoutsListKey, everyPayoutKey].map((queryKey) => queryClient.invalidateQueries({ queryKey })));
      navigate(`/payouts/bank-statements/${answer.data._id}`);
    } catch (error) {
      setErrors(messagesOf(error));
    }
  }

  return (
    <>
      <PageHeading title="Upload a bank statement" />
      <Card withBorder maw={720}>
        <form
          aria-label="Bank statement"
          onSubmit={(event) => {
            event.preventDefault();
            void send();
          }}
        >
          <Stack>
            <Text size="sm">
              Export your account&apos;s statement as CSV from your bank&apos;s website. Each line is matched to a payout of the same amount arriving within 3
              business days of it (by its reference, where the bank shows one), and the payout is then reconciled.
            </Text>
            <FileInput
              label="Statement file (CSV)"
              accept=".csv,text/csv,text/plain"
              required
              value={file}
              onChange={choose}
              error={fileError}
              clearable
              clearButtonProps={{ 'aria-label': 'Remove the file' }}
            />
            <Select
              label="Bank"
              description={layout.layout}
              allowDeselect={false}
              data={FORMATS.map(({ value, label }) => ({ value, label }))}
              value={format}
              onChange={(value) => {
                setFormat((value ?? 'generic') as StatementFormat);
                setErrors({ fields: {}, file: undefined, general: undefined });
              }}
            />
            {format === 'generic' && (
              <>
                <Group grow align="flex-start" wrap="wrap">
                  <Select
                    label="Columns separated by"
                    allowDeselect={false}
                    data={DELIMITERS}
                    value={delimiter}
                    onChange={(value) => {
                      const chosen = (value ?? ',') as Delimiter;
                      setDelimiter(chosen);
                      setColumns(guessColumns(headerNames(csv, chosen)));
                    }}
                    miw={200}
                  />
                  <Select
                    label="Dates written"
                    allowDeselect={false}
                    data={DATE_ORDERS}
                    value={dateOrder}
                    onChange={(value) => setDateOrder((value ?? 'DMY') as DateOrder)}
                    miw={200}
                  />
                </Group>
                {headers.length === 0 ? (
                  <Text size="sm">Choose the file to pick its columns.</Text>
                ) : (
                  <Group grow align="flex-start" wrap="wrap">
                    {COLUMN_ROLES.map((role) => (
                      <Select
                        key={role}
                        label={COLUMN_LABELS[role]}
                        clearable
                        data={headers}
                        value={columns[role] ?? null}
                        onChange={(value) => setColumns({ ...columns, [role]: value ?? undefined })}
                        error={errors.fields[`columns.${role}`]}
                        miw={200}
                      />
                    ))}
                  </Group>
                )}
                <Text size="xs">Pick an amount column (money in positive, money out negative), or a credit and a debit column.</Text>
              </>
            )}
            {errors.general && (
              <Text role="alert" size="sm" fw={600}>
                {errors.general}
              </Text>
            )}
            <Button type="submit" w="fit-content" loading={upload.isPending} disabled={csv === '' || tooLarge}>
              Match the statement
            </Button>
          </Stack>
        </form>
      </Card>
    </>
  );
}

export function BankStatementPage() {
  const { statementId = '' } = useParams();
  const statement = useQuery(bankStatementQuery(statementId));
  if (statement.isPending) return <Loading what="the bank statement" />;
  if (statement.isError) return <QueryError error={statement.error} />;
  const s = statement.data.data;
  return (
    <>
      <PageHeading
        title={`Bank statement ${s.file_name ?? ''}`.trim()}
        actions={
          <Button component={Link} to="/payouts" variant="default">
            Back to payouts
          </Button>
        }
      />
      <Text mb="md">
        {s.matched_count} of {s.line_count} lines matched a payout · uploaded <DateTime instant={s.created_at} /> ·{' '}
        {FORMATS.find((f) => f.value === s.format)?.label}
      </Text>
      <DataTable
        label="Statement lines"
        minWidth={760}
        rows={s.lines}
        rowKey={(line) => String(line.line)}
        columns={[
          { header: 'Line', cell: (line) => line.line },
          { header: 'Date', cell: (line) => line.date ?? '—' },
          // A statement is in the account's currency: ringgit for the banks the service knows.
          { header: 'Amount', cell: (line) => (line.amount === null ? '—' : formatCents(line.amount, 'MYR')) },
          { header: 'Reference · description', cell: (line) => [line.reference, line.description].filter(Boolean).join(' · ') || '—' },
          { header: 'Outcome', cell: (line) => <StatusBadge status={line.outcome} /> },
          {
            header: 'Payout or reason',
            cell: (line) =>
              line.payout_id ? (
                <Anchor component={Link} to={`/payouts/${line.payout_id}`}>
                  Payout {line.payout_id}
                </Anchor>
              ) : (
                (line.reason ?? '—')
              ),
          },
        ]}
      />
    </>
  );
}
