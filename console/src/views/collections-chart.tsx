import { BarChart } from '@mantine/charts';
import { Card, Group, SegmentedControl, Text, Title } from '@mantine/core';
import { DatePickerInput } from '@mantine/dates';
import { useElementSize, useId } from '@mantine/hooks';
import { useState } from 'react';
import {
  axisAmount,
  countTicks,
  customRange,
  highestStack,
  labelStep,
  perDay,
  periodLabel,
  periodName,
  presetRange,
  RANGE_PRESETS,
  seriesStyles,
  type GroupBy,
  type RangePreset,
  type ReportRange,
} from '../lib/collections.js';
import { formatUnits } from '../lib/money.js';
import { Loading, QueryError } from './common.js';
import { useCollections } from './overview-data.js';

// About the width of a date label ("30 Nov", "Nov 2026") with room on both sides.
const LABEL_WIDTH_PX = 72;

// `today` is the business's day as the report gave it (its `to`); the custom range's days are the
// business's days too, as the report reads them.
export function CollectionsChart({ today }: { today: string }) {
  // A preset follows `today` (which the report may correct once it answers); a custom range stays.
  const [chosen, setChosen] = useState<RangePreset | ReportRange>('30d');
  const range = typeof chosen === 'string' ? presetRange(chosen, today) : chosen;
  const [picked, setPicked] = useState<[string | null, string | null]>();
  const [groupBy, setGroupBy] = useState<GroupBy>('method');
  const report = useCollections(range, groupBy);
  const { ref, width } = useElementSize();
  const headingId = useId();

  function choosePreset(value: RangePreset) {
    setChosen(value);
    setPicked(undefined);
  }

  function pick([from, to]: [string | null, string | null]) {
    setPicked([from, to]);
    if (from && to) setChosen(customRange(from, to));
  }

  const title = `Collections per ${range.interval}`;
  const series = report.data ? perDay(report.data.buckets, range.from, range.to, groupBy, range.interval) : undefined;
  // Round steps from 0 on both axes: whole payments, and whole ringgit ("1K", "2K" rather than Recharts' 650, 1.3K).
  const ticks = series ? countTicks(highestStack(series.rows, series.groups)) : [0, 1];
  return (
    <Card withBorder component="section" aria-labelledby={headingId}>
      <Group justify="space-between" mb="sm" wrap="wrap">
        <Title order={2} size="h4" id={headingId}>
          {title}
        </Title>
        <SegmentedControl
          aria-label="Range"
          value={typeof chosen === 'string' ? chosen : ''}
          onChange={(value) => choosePreset(value as RangePreset)}
          data={RANGE_PRESETS.map((option) => ({ value: option.value, label: option.label }))}
        />
      </Group>
      <Group mb="sm" wrap="wrap" align="flex-end">
        <DatePickerInput
          type="range"
          label="Custom range"
          valueFormat="D MMM YYYY"
          value={picked ?? [range.from, range.to]}
          onChange={pick}
          maxDate={today}
          w={240}
        />
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
      <div ref={ref}>
        {report.isPending ? (
          <Loading what="the chart" />
        ) : report.isError ? (
          <QueryError error={report.error} />
        ) : series!.groups.length === 0 ? (
          <Text size="sm" py="xl" ta="center">
            {report.data.buckets.length === 0 ? 'No payments' : 'Nothing paid'} from {periodName(range.from, 'day')} to {periodName(range.to, 'day')}.
          </Text>
        ) : (
          <div
            role="img"
            aria-label={`${title} from ${periodName(range.from, 'day')} to ${periodName(range.to, 'day')}, ${groupBy === 'method' ? 'amount by method' : 'count by status'}`}
          >
            <BarChart
              h={280}
              data={series!.rows}
              dataKey="day"
              type="stacked"
              withLegend
              series={seriesStyles(series!, groupBy)}
              valueFormatter={(value) => (groupBy === 'method' ? formatUnits(value, 'MYR') : String(value))}
              // Every n-th period from the first, n chosen so the labels fit the chart's width: even steps.
              xAxisProps={{
                interval: labelStep(series!.rows.length, width > 0 ? Math.floor(width / LABEL_WIDTH_PX) : 6) - 1,
                tickFormatter: (day: string) => periodLabel(day, range.interval),
              }}
              yAxisProps={{ ticks, domain: [0, ticks.at(-1)!], allowDecimals: false, ...(groupBy === 'method' && { tickFormatter: axisAmount }) }}
              // Recharts asks for the label before any bar is hovered too, with none.
              tooltipProps={{ labelFormatter: (day) => (typeof day === 'string' ? periodName(day, range.interval) : '') }}
            />
          </div>
        )}
      </div>
    </Card>
  );
}
