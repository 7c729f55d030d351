// A payment link or open link picked by its title, to list its payments.
import { Select } from '@mantine/core';
import { useState } from 'react';
import { useCan } from '../../session.js';
import { useQuery } from '@tanstack/react-query';
import { openLinksQuery } from '../../queries/open-links.js';
import { paymentLinksQuery } from '../../queries/payment-links.js';

/** The fewest letters of a title that `filter[title]` takes. */
const TITLE_MIN_LENGTH = 3;

/**
 * Picks the payment link or open link whose payments are listed, by its title (`filter[title]` on both
 * lists); its value is the existing filter, `payment_link_id:<id>` or `open_payment_link_id:<id>`.
 */
export function LinkPicker({ value, onChange }: { value: string | null; onChange: (value: string | null) => void }) {
  const [typed, setTyped] = useState('');
  const title = typed.trim();
  const query = { 'filter[title]': title, per_page: 10 };
  const asked = title.length >= TITLE_MIN_LENGTH;
  const canReadLinks = useCan('payment_links:read');
  const canReadOpenLinks = useCan('open_payment_links:read');
  const links = useQuery({ ...paymentLinksQuery(query), enabled: asked && canReadLinks });
  const openLinks = useQuery({ ...openLinksQuery(query), enabled: asked && canReadOpenLinks });
  const options = (filter: string, found: { _id: string; title: string }[] | undefined) =>
    (found ?? []).map((link) => ({ value: `${filter}:${link._id}`, label: link.title }));
  const data = [
    { group: 'Payment links', items: options('payment_link_id', links.data?.data.data) },
    { group: 'Open payment links', items: options('open_payment_link_id', openLinks.data?.data.data) },
  ];
  // A link chosen before (the address of a filtered list) is named by its id until its title is found again.
  if (value !== null && !data.some((group) => group.items.some((item) => item.value === value)))
    data.push({ group: 'Chosen', items: [{ value, label: value.split(':')[1]! }] });
  return (
    <Select
      label="Payment link"
      placeholder="Search by title"
      searchable
      clearable
      data={data}
      value={value}
      onChange={onChange}
      searchValue={typed}
      onSearchChange={setTyped}
      // The API has already filtered by title; the label typed may match no option's text exactly.
      filter={({ options }) => options}
      nothingFoundMessage={asked ? 'No link has this in its title' : `Type ${TITLE_MIN_LENGTH} letters of a title`}
      w={240}
    />
  );
}
