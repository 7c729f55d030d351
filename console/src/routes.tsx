// The console's pages. Each view is its own chunk, loaded when first visited, so the first screen
// downloads the shell and the sign-in page only. Sign-in, the one-time link's page (`/setup`) and the
// password-reset pages (`/forgot-password`, `/reset-password`) stand outside the signed-in layout.
import { Center, Loader } from '@mantine/core';
import { createBrowserRouter } from 'react-router';
import { Layout } from './views/layout.js';
import { SignInPage } from './views/sign-in.js';

/** What shows while the first view's chunk loads (react-router warns in the browser's console without one). */
function Starting() {
  return (
    <Center mih="100vh">
      <Loader aria-label="Loading the console" />
    </Center>
  );
}

export const router = createBrowserRouter(
  [
    { path: '/sign-in', Component: SignInPage },
    { path: '/setup', HydrateFallback: Starting, lazy: async () => ({ Component: (await import('./views/account-setup.js')).AccountSetupPage }) },
    { path: '/forgot-password', HydrateFallback: Starting, lazy: async () => ({ Component: (await import('./views/password-reset.js')).ForgotPasswordPage }) },
    { path: '/reset-password', HydrateFallback: Starting, lazy: async () => ({ Component: (await import('./views/password-reset.js')).ResetPasswordPage }) },
    {
      path: '/',
      Component: Layout,
      HydrateFallback: Starting,
      children: [
        { index: true, lazy: async () => ({ Component: (await import('./views/overview.js')).OverviewPage }) },
        { path: 'payments', lazy: async () => ({ Component: (await import('./views/payments.js')).PaymentsPage }) },
        { path: 'payments/:paymentId', lazy: async () => ({ Component: (await import('./views/payment-detail.js')).PaymentDetailPage }) },
        { path: 'payment-links', lazy: async () => ({ Component: (await import('./views/payment-links.js')).PaymentLinksPage }) },
        { path: 'payment-links/new', lazy: async () => ({ Component: (await import('./views/payment-links.js')).NewPaymentLinkPage }) },
        { path: 'payment-links/:linkId', lazy: async () => ({ Component: (await import('./views/payment-links.js')).PaymentLinkDetailPage }) },
        { path: 'open-payment-links', lazy: async () => ({ Component: (await import('./views/open-links.js')).OpenLinksPage }) },
        { path: 'open-payment-links/new', lazy: async () => ({ Component: (await import('./views/open-links.js')).NewOpenLinkPage }) },
        { path: 'open-payment-links/:linkId', lazy: async () => ({ Component: (await import('./views/open-links.js')).OpenLinkDetailPage }) },
        { path: 'saved-cards', lazy: async () => ({ Component: (await import('./views/saved-cards.js')).SavedCardsPage }) },
        { path: 'saved-cards/:tokenId', lazy: async () => ({ Component: (await import('./views/saved-cards.js')).SavedCardPage }) },
        { path: 'api-keys', lazy: async () => ({ Component: (await import('./views/api-keys.js')).ApiKeysPage }) },
        { path: 'developers/webhooks', lazy: async () => ({ Component: (await import('./views/webhooks.js')).WebhooksPage }) },
        { path: 'developers/webhooks/:endpointId', lazy: async () => ({ Component: (await import('./views/webhooks.js')).WebhookEndpointPage }) },
        { path: 'developers/events', lazy: async () => ({ Component: (await import('./views/events.js')).EventsPage }) },
        { path: 'developers/events/:eventId', lazy: async () => ({ Component: (await import('./views/events.js')).EventPage }) },
        { path: 'team', lazy: async () => ({ Component: (await import('./views/team.js')).TeamPage }) },
        { path: 'settings', lazy: async () => ({ Component: (await import('./views/settings.js')).SettingsPage }) },
        { path: 'audit-log', lazy: async () => ({ Component: (await import('./views/audit-log.js')).AuditLogPage }) },
        { path: 'account/password', lazy: async () => ({ Component: (await import('./views/password.js')).PasswordPage }) },
        { path: 'account/two-factor', lazy: async () => ({ Component: (await import('./views/two-factor.js')).TwoFactorPage }) },
        { path: '*', lazy: async () => ({ Component: (await import('./views/not-found.js')).NotFoundPage }) },
      ],
    },
  ],
  { basename: '/console' },
);
