// The pages an e-mailed link opens outside the signed-in views (an invitation, a password reset): the
// frame they stand in, and the steps from the token in the address to the form or to why the link
// no longer works.
import { Alert, Anchor, Center, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { useQuery, type QueryKey, type UseQueryOptions } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';

export function Frame({ children }: { children: ReactNode }) {
  return (
    <Center mih="100vh" p="md">
      <Paper component="main" withBorder p="xl" w={420} maw="100%">
        {children}
      </Paper>
    </Center>
  );
}

/** Why the link does not open, with the way on (`next`: a link to sign in, or to ask for a new link). */
export function Gone({ message, next }: { message: string; next: { to: string; label: string } }) {
  return (
    <Stack>
      <Title order={1} size="h2">
        This link is not valid
      </Title>
      <Alert color="red" role="alert">
        {message}
      </Alert>
      <Text>
        <Anchor component={Link} to={next.to}>
          {next.label}
        </Anchor>
      </Text>
    </Stack>
  );
}

/** What opening a link answers: open (with what the form needs), or why not. */
type Opening = { kind: 'open' } | { kind: 'gone' | 'refused'; message: string };

interface EmailedLinkPageProps<Result extends Opening> {
  title: string;
  /** The link's query (queries/auth.ts), read once per visit. */
  query: (token: string) => UseQueryOptions<Result, Error, Result, QueryKey>;
  noToken: string;
  next: { to: string; label: string };
  /** The form, once the link is open; `onGone` turns the page into the Gone one when the form's answer says so. */
  form: (token: string, opened: Extract<Result, { kind: 'open' }>, onGone: (message: string) => void) => ReactNode;
}

export function EmailedLinkPage<Result extends Opening>({ title, query, noToken, next, form }: EmailedLinkPageProps<Result>) {
  useDocumentTitle(title);
  const [search] = useSearchParams();
  const token = (search.get('token') ?? '').slice(0, 100);
  const [goneMessage, setGoneMessage] = useState<string>();
  // Reading the link does not use it.
  const opened = useQuery({ ...query(token), enabled: token !== '' });

  let body: ReactNode;
  if (!token) body = <Gone message={noToken} next={next} />;
  else if (goneMessage) body = <Gone message={goneMessage} next={next} />;
  else if (opened.isPending) body = <Loader aria-label="Opening the link" />;
  else if (opened.isError) body = <Gone message="The link could not be opened. Try again in a moment." next={next} />;
  else if (opened.data.kind !== 'open') body = <Gone message={(opened.data as Exclude<Opening, { kind: 'open' }>).message} next={next} />;
  else body = form(token, opened.data as Extract<Result, { kind: 'open' }>, setGoneMessage);
  return <Frame>{body}</Frame>;
}
