import {
  ActionIcon,
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
import { Navigate, Outlet, NavLink as RouterLink, useLocation, useNavigate } from 'react-router';
import { signOut } from '../api/auth.js';
import { $api } from '../api/client.js';
import { SessionProvider, useCan, useForgetSession, useMeQuery } from '../session.js';
import { ModeBadge } from './common.js';

/** TEST or LIVE on every view: the sandbox and a Stripe test key take no real money, a live key does. */
function CurrentMode() {
  const canRead = useCan('settings:read');
  const settings = $api.useQuery('get', '/business/acquirer', {}, { enabled: canRead });
  if (!canRead || !settings.data) return null;
  return <ModeBadge live={settings.data.data.acquirer === 'stripe' && settings.data.data.mode === 'live'} />;
}

const SECTIONS = [
  { to: '/', label: 'Overview', end: true, permission: 'payments:read' },
  { to: '/payments', label: 'Payments', permission: 'payments:read' },
  { to: '/payment-links', label: 'Payment links', permission: 'payment_links:read' },
  { to: '/open-payment-links', label: 'Open payment links', permission: 'open_payment_links:read' },
  { to: '/saved-cards', label: 'Saved cards', permission: 'tokenizations:read' },
  { to: '/api-keys', label: 'API keys', permission: 'api_keys:read' },
  { to: '/developers/webhooks', label: 'Webhooks', permission: 'webhooks:read' },
  { to: '/developers/events', label: 'Events', permission: 'events:read' },
  { to: '/team', label: 'Team', permission: 'team:read' },
  { to: '/settings', label: 'Settings', permission: 'settings:read' },
  { to: '/audit-log', label: 'Audit log', permission: 'audit:read' },
] as const;

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
            <Group gap="sm" wrap="nowrap">
              <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label={opened ? 'Close the menu' : 'Open the menu'} />
              <Title order={2} size="h4">
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
          {SECTIONS.filter((section) => permissions.includes(section.permission)).map((section) => (
            <NavLink
              key={section.to}
              component={RouterLink}
              to={section.to}
              end={'end' in section}
              label={section.label}
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
          <Outlet />
        </AppShell.Main>
      </AppShell>
    </SessionProvider>
  );
}
