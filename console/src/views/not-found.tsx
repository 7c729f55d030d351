import { Anchor, Stack, Text, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { Link } from 'react-router';

export function NotFoundPage() {
  useDocumentTitle('Not found · Console');
  return (
    <Stack>
      <Title order={1}>This page does not exist</Title>
      <Text>
        <Anchor component={Link} to="/">
          Go to the overview
        </Anchor>
      </Text>
    </Stack>
  );
}
