import { useQuery } from '@tanstack/react-query';
import {
  ActionIcon,
  Alert,
  AppShell,
  Burger,
  Button,
  Center,
  Group,
  Loader,
  NavLink,
  Text,
  Title,
  useComputedColorScheme,
  useMantineColorScheme,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Navigate, Outlet, NavLink as RouterLink, useLocation, useMatches, useNavigate } from 'react-router';
import { signOut, type Me } from '../api/auth.js';
import { accessTo, isPageHandle, PAGES } from '../lib/access.js';
import { SessionProvider, useCan, useForgetSession, useMeQuery } from '../session.js';
import { ModeBadge, PageHeading } from './common.js';
import { acquirerQuery } from '../queries/business.js';

/** TEST or LIVE on every view: the sandbox and a Stripe test key take no real money, a live key does. */
function CurrentMode() {
  const canRead = useCan('settings:read');
  const settings = useQuery({ ...acquirerQuery(), enabled: canRead });
  if (!canRead || !settings.data) return null;
  return <ModeBadge live={settings.data.data.acquirer === 'stripe' && settings.data.data.mode === 'live'} />;
}

const SECTIONS = [
  { to: '/', page: PAGES.overview },
  { to: '/payments', page: PAGES.payments },
  { to: '/payouts', page: PAGES.payouts },
  { to: '/payment-links', page: PAGES.paymentLinks },
  { to: '/open-payment-links', page: PAGES.openLinks },
  { to: '/saved-cards', page: PAGES.savedCards },
  { to: '/api-keys', page: PAGES.apiKeys },
  { to: '/developers/webhooks', page: PAGES.webhooks },
  { to: '/developers/events', page: PAGES.events },
  { to: '/team', page: PAGES.team },
  { to: '/settings', page: PAGES.settings },
  { to: '/audit-log', page: PAGES.auditLog },
] as const;

/**
 * The page the route shows, or what stands in its place, decided from the session before the page asks
 * the API anything: a member whose business requires two-factor sign-in is taken to set it up, and a
 * page the role may not use says so by name.
 */
function AllowedPage({ me }: { me: Me }) {
  const matches = useMatches();
  const handle = matches.map((match) => match.handle).findLast(isPageHandle);
  const access = accessTo(me, handle);
  if (access.kind === 'set-up-two-factor') return <Navigate to="/account/two-factor" replace />;
  if (access.kind === 'refused')
    return (
      <>
        <PageHeading title={handle && 'page' in handle ? handle.page.title : 'Not allowed'} />
        <Alert title={access.message} maw={640}>
          <Text size="sm">Your role in {me.business.name} does not include this. An owner or admin can change your role on the Team page.</Text>
        </Alert>
      </>
    );
  return <Outlet />;
}

function ThemeToggle() {
  const { setColorScheme } = useMantineColorScheme();
  const scheme = useComputedColorScheme('light');
  const next = scheme === 'dark' ? 'light' : 'dark';
  return (
    <ActionIcon variant="default" size="lg" aria-label={`Use the ${next} theme`} onClick={() => setColorScheme(next)}>
      <span aria-hidden="true">{scheme === 'dark' ? '☀' : '☾'}</span>
    </ActionIcon>
  );
}

export function Layout() {
  const me = useMeQuery();
  const location = useLocation();
  const navigate = useNavigate();
  const forget = useForgetSession();
  const [opened, { toggle, close }] = useDisclosure();
  if (me.isPending)
    return (
      <Center h="100vh" role="status" aria-label="Loading the console">
        <Loader />
      </Center>
    );
  if (me.isError)
    return (
      <Center h="100vh">
        <Text role="alert">The console could not reach the service: {String(me.error)}</Text>
      </Center>
    );
  if (!me.data) return <Navigate to={`/sign-in?next=${encodeURIComponent(location.pathname + location.search)}`} replace />;
  const permissions = me.data.permissions;
  return (
    <SessionProvider me={me.data}>
      <AppShell header={{ height: 56 }} navbar={{ width: 230, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
        <AppShell.Header>
          <Group h="100%" px="md" justify="space-between" wrap="nowrap">
            {/* At a phone's width the name is smaller and may take three lines, all inside the header; the mode badge beside it is never cut. */}
            <Group gap="sm" wrap="nowrap" miw={0}>
              <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label={opened ? 'Close the menu' : 'Open the menu'} />
              <Title order={2} size="h4" fz={{ base: 'sm', sm: 'lg' }} miw={0} lh={1.15} style={{ overflowWrap: 'anywhere' }}>
                {me.data.business.name}
              </Title>
              <CurrentMode />
            </Group>
            <Group gap="xs" wrap="nowrap">
              <ThemeToggle />
              <Button
                variant="default"
                onClick={async () => {
                  await signOut();
                  await forget();
                  navigate('/sign-in');
                }}
              >
                Sign out
              </Button>
            </Group>
          </Group>
        </AppShell.Header>
        <AppShell.Navbar p="xs" aria-label="Sections">
          {SECTIONS.filter((section) => permissions.includes(section.page.permission)).map((section) => (
            <NavLink
              key={section.to}
              component={RouterLink}
              to={section.to}
              end={section.to === '/'}
              label={section.page.title}
              variant="filled"
              onClick={close}
              active={section.to === '/' ? location.pathname === '/' : location.pathname.startsWith(section.to)}
            />
          ))}
          <NavLink
            component={RouterLink}
            to="/account/two-factor"
            label="Two-factor sign-in"
            variant="filled"
            onClick={close}
            active={location.pathname === '/account/two-factor'}
          />
          <NavLink
            component={RouterLink}
            to="/account/sessions"
            label="Signed-in sessions"
            variant="filled"
            onClick={close}
            active={location.pathname === '/account/sessions'}
          />
          <NavLink
            component={RouterLink}
            to="/account/password"
            label="Change password"
            variant="filled"
            onClick={close}
            active={location.pathname === '/account/password'}
          />
          <Text size="xs" c="dimmed" mt="auto" p="xs">
            Signed in as {me.data.user.email} ({me.data.role})
          </Text>
        </AppShell.Navbar>
        <AppShell.Main>
          <AllowedPage me={me.data} />
        </AppShell.Main>
      </AppShell>
    </SessionProvider>
  );
}
