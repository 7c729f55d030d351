import '@mantine/core/styles.css';
import '@mantine/charts/styles.css';
import '@mantine/dates/styles.css';
import '@mantine/notifications/styles.css';
import { Alert, MantineProvider, Notification, createTheme, type CSSVariablesResolver } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { isFinalRefusal } from './lib/errors.js';
import { router } from './routes.js';

const theme = createTheme({
  primaryColor: 'indigo',
  // White text on the default shade (6) falls short of WCAG AA's 4.5:1; shade 8 passes in both themes.
  primaryShade: { light: 8, dark: 8 },
  // Mantine's default focus ring shows only for keyboard focus; every control keeps one.
  focusRing: 'auto',
  // Filled badges and buttons take black or white text, whichever reads on their colour.
  autoContrast: true,
  // Who asks their system for less motion gets no transitions (modals, notifications).
  respectReducedMotion: true,
  components: {
    Notification: Notification.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Dismiss' } } }),
    // The light variant's coloured text on its tint falls short of 4.5:1 for yellow and orange.
    Alert: Alert.extend({ defaultProps: { variant: 'default' } }),
  },
});

// Mantine's dimmed text (descriptions, captions) and its fields' error text fall short of 4.5:1 by default.
const resolver: CSSVariablesResolver = (theme) => ({
  variables: {},
  light: { '--mantine-color-dimmed': theme.colors.gray[7]!, '--mantine-color-error': theme.colors.red[8]! },
  dark: { '--mantine-color-dimmed': theme.colors.dark[1]!, '--mantine-color-error': theme.colors.red[5]! },
});

const queryClient = new QueryClient({
  defaultOptions: { queries: { staleTime: 10_000, refetchOnWindowFocus: false, retry: (failures, error) => failures < 3 && !isFinalRefusal(error) } },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider theme={theme} defaultColorScheme="auto" cssVariablesResolver={resolver}>
      <Notifications position="top-right" />
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
