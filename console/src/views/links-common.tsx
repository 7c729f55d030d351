// What the detail pages of both kinds of link share: the link to copy and its QR code.
import { Button, CopyButton, Group, Image, Stack, Text, TextInput } from '@mantine/core';

export function ShareLink({ url, qrSrc, title }: { url: string; qrSrc: string; title: string }) {
  return (
    <Stack gap="xs">
      <Group align="flex-end" wrap="nowrap">
        <TextInput label="Payment page" value={url} readOnly style={{ flex: 1 }} />
        <CopyButton value={url}>{({ copied, copy }) => <Button onClick={copy}>{copied ? 'Copied' : 'Copy link'}</Button>}</CopyButton>
      </Group>
      <Image src={qrSrc} alt={`QR code of the payment page of ${title}`} w={160} h={160} fit="contain" bg="white" p={4} />
      <Text size="xs" c="dimmed">
        The payer scans it to reach the payment page.
      </Text>
    </Stack>
  );
}
