import { BarChart } from '@mantine/charts';
import { Card, Group, SegmentedControl, Title } from '@mantine/core';
import { DatePickerInput } from '@mantine/dates';
import { useState } from 'react';
import { perDay, type GroupBy } from '../lib/collections.js';
import { addDays } from '../lib/dates.js';
import { formatUnits } from '../lib/money.js';
import { Loading, QueryError } from './common.js';
import { useCollections } from './overview-data.js';

const SERIES_COLORS = ['indigo.6', 'teal.6', 'orange.6', 'grape.6', 'red.6', 'cyan.6'];

export function CollectionsChart({ today }: { today: string }) {
  const [range, setRange] = useState<[string | null, string | null]>([addDays(today, -13), today]);
  const [groupBy, setGroupBy] = useState<GroupBy>('method');
  const [from, to] = range[0] && range[1] ? [range[0], range[1]] : [addDays(today, -13), today];
  const report = useCollections({ from, to }, groupBy);
  const series = report.data ? perDay(report.data.buckets, from, to, groupBy) : undefined;
  return (
    <Card withBorder component="section" aria-label="Collections per day">
      <Group justify="space-between" mb="sm" wrap="wrap">
        <Title order={2} size="h4">
          Collections per day
        </Title>
        <Group wrap="wrap">
          <DatePickerInput type="range" label="Days" value={range} onChange={setRange} maxDate={today} w={240} />
          <SegmentedControl
            aria-label="Split by"
            value={groupBy}
            onChange={(value) => setGroupBy(value as GroupBy)}
            data={[
              { value: 'method', label: 'By method (RM)' },
              { value: 'status', label: 'By status (count)' },
            ]}
          />
        </Group>
      </Group>
      {report.isPending ? (
        <Loading what="the chart" />
      ) : report.isError ? (
        <QueryError error={report.error} />
      ) : (
        <div role="img" aria-label={`Collections per day from ${from} to ${to}, ${groupBy === 'method' ? 'amount by method' : 'count by status'}`}>
          <BarChart
            h={280}
            data={series!.rows}
            dataKey="day"
            type="stacked"
            withLegend
            series={series!.groups.map((group, index) => ({ name: group, color: SERIES_COLORS[index % SERIES_COLORS.length]! }))}
            valueFormatter={(value) => (groupBy === 'method' ? formatUnits(value, 'MYR') : String(value))}
          />
        </div>
      )}
    </Card>
  );
}
