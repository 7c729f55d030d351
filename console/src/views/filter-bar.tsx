// The filters above every list, one way: the list's own fields, the days its records were created
// (picked, or a preset counted in the business's days), Search, and Clear filters once any is on.
import { Button, Group, Select } from '@mantine/core';
import { DatePickerInput, type DatesRangeValue } from '@mantine/dates';
import { useState, type ReactNode } from 'react';
import { useBusinessTime } from '../lib/business-time.js';
import { DATE_PRESETS, presetRange } from '../lib/dates.js';
import { CREATED_DAYS, hasFilters, type Filters } from '../lib/filters.js';

function rangeValue(range: string | undefined): DatesRangeValue<string> {
  const [from, to] = range?.split(',') ?? [];
  return [from ?? null, to ?? null];
}

/** What a form's named search and text fields and native selects hold, by name: a list's fields need no state of their own. */
function typedFields(form: HTMLFormElement): Filters {
  const typed: Filters = {};
  for (const element of Array.from(form.elements)) {
    const typedText = element instanceof HTMLInputElement && (element.type === 'search' || element.type === 'text');
    if ((typedText || element instanceof HTMLSelectElement) && element.name !== '') typed[element.name] = element.value;
  }
  return typed;
}

export function FilterBar({
  filters,
  setFilters,
  draft,
  onClear,
  searchButton = true,
  children,
}: {
  filters: Filters;
  /** The filters applied: the page's address changes (back to page 1). */
  setFilters(filters: Filters): void;
  /** Typed text a view holds in its own state, applied with Search (named uncontrolled fields need none). */
  draft?: Filters;
  /** Clears what the view holds in its own state. */
  onClear?(): void;
  /** Off for a list whose fields all apply as they are picked. */
  searchButton?: boolean;
  children?: ReactNode;
}) {
  const { today } = useBusinessTime();
  // Clear filters empties the named fields by mounting them afresh.
  const [cleared, setCleared] = useState(0);
  const day = today();
  return (
    <form
      key={cleared}
      aria-label="Filters"
      onSubmit={(event) => {
        event.preventDefault();
        setFilters({ ...filters, ...typedFields(event.currentTarget), ...draft });
      }}
    >
      <Group align="flex-end" mb="md" wrap="wrap">
        {children}
        <DatePickerInput
          type="range"
          label="Created"
          clearable
          clearButtonProps={{ 'aria-label': 'Any day' }}
          allowSingleDateInRange
          presets={day === undefined ? [] : DATE_PRESETS.map((label) => ({ label, value: rangeValue(presetRange(label, day)) as [string, string] }))}
          value={rangeValue(filters[CREATED_DAYS])}
          onChange={([from, to]) => setFilters({ ...filters, [CREATED_DAYS]: from && to ? `${from},${to}` : '' })}
          w={240}
        />
        {searchButton && <Button type="submit">Search</Button>}
        {hasFilters(filters) && (
          <Button
            variant="default"
            onClick={() => {
              onClear?.();
              setCleared(cleared + 1);
              setFilters({});
            }}
          >
            Clear filters
          </Button>
        )}
      </Group>
    </form>
  );
}

/** A list's status filter: applied as it is picked, its choices in words. */
export function StatusFilter({
  filters,
  setFilters,
  choices,
}: {
  filters: Filters;
  setFilters(filters: Filters): void;
  choices: Array<{ value: string; label: string }>;
}) {
  return (
    <Select label="Status" clearable data={choices} value={filters.status ?? null} onChange={(value) => setFilters({ ...filters, status: value ?? '' })} />
  );
}
