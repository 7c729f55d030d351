// The console's pages. Each view is its own chunk, loaded when first visited, so the first screen
// downloads the shell and the sign-in page only. Sign-in, the one-time link's page (`/setup`) and the
// password-reset pages (`/forgot-password`, `/reset-password`) stand outside the signed-in layout. Each
// signed-in page's `handle` names the permission it needs, so the layout refuses it before it loads.
import { Center, Loader } from '@mantine/core';
import { createBrowserRouter } from 'react-router';
import { PAGES, type PageHandle } from './lib/access.js';
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

/** The member's own pages, open whatever the role (and the way to the two-factor set-up a business may require). */
const ACCOUNT: PageHandle = { account: true };

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
        { index: true, handle: { page: PAGES.overview }, lazy: async () => ({ Component: (await import('./views/overview.js')).OverviewPage }) },
        { path: 'payments', handle: { page: PAGES.payments }, lazy: async () => ({ Component: (await import('./views/payments/list.js')).PaymentsPage }) },
        {
          path: 'payments/:paymentId',
          handle: { page: PAGES.payments },
          lazy: async () => ({ Component: (await import('./views/payments/detail.js')).PaymentDetailPage }),
        },
        { path: 'payouts', handle: { page: PAGES.payouts }, lazy: async () => ({ Component: (await import('./views/payouts/list.js')).PayoutsPage }) },
        {
          path: 'payouts/:payoutId',
          handle: { page: PAGES.payouts },
          lazy: async () => ({ Component: (await import('./views/payouts/detail.js')).PayoutPage }),
        },
        {
          path: 'payouts/bank-statements/new',
          handle: { page: PAGES.newBankStatement },
          lazy: async () => ({ Component: (await import('./views/bank-statements.js')).BankStatementUploadPage }),
        },
        {
          path: 'payouts/bank-statements/:statementId',
          handle: { page: PAGES.payouts },
          lazy: async () => ({ Component: (await import('./views/bank-statements.js')).BankStatementPage }),
        },
        {
          path: 'payment-links',
          handle: { page: PAGES.paymentLinks },
          lazy: async () => ({ Component: (await import('./views/payment-links/list.js')).PaymentLinksPage }),
        },
        {
          path: 'payment-links/new',
          handle: { page: PAGES.newPaymentLink },
          lazy: async () => ({ Component: (await import('./views/payment-links/form.js')).NewPaymentLinkPage }),
        },
        {
          path: 'payment-links/:linkId',
          handle: { page: PAGES.paymentLinks },
          lazy: async () => ({ Component: (await import('./views/payment-links/detail.js')).PaymentLinkDetailPage }),
        },
        {
          path: 'open-payment-links',
          handle: { page: PAGES.openLinks },
          lazy: async () => ({ Component: (await import('./views/open-links/list.js')).OpenLinksPage }),
        },
        {
          path: 'open-payment-links/new',
          handle: { page: PAGES.newOpenLink },
          lazy: async () => ({ Component: (await import('./views/open-links/form.js')).NewOpenLinkPage }),
        },
        {
          path: 'open-payment-links/:linkId',
          handle: { page: PAGES.openLinks },
          lazy: async () => ({ Component: (await import('./views/open-links/detail.js')).OpenLinkDetailPage }),
        },
        { path: 'saved-cards', handle: { page: PAGES.savedCards }, lazy: async () => ({ Component: (await import('./views/saved-cards.js')).SavedCardsPage }) },
        {
          path: 'saved-cards/:tokenId',
          handle: { page: PAGES.savedCards },
          lazy: async () => ({ Component: (await import('./views/saved-cards.js')).SavedCardPage }),
        },
        { path: 'api-keys', handle: { page: PAGES.apiKeys }, lazy: async () => ({ Component: (await import('./views/api-keys.js')).ApiKeysPage }) },
        {
          path: 'developers/webhooks',
          handle: { page: PAGES.webhooks },
          lazy: async () => ({ Component: (await import('./views/webhooks/list.js')).WebhooksPage }),
        },
        {
          path: 'developers/webhooks/:endpointId',
          handle: { page: PAGES.webhooks },
          lazy: async () => ({ Component: (await import('./views/webhooks/detail.js')).WebhookEndpointPage }),
        },
        { path: 'developers/events', handle: { page: PAGES.events }, lazy: async () => ({ Component: (await import('./views/events.js')).EventsPage }) },
        {
          path: 'developers/events/:eventId',
          handle: { page: PAGES.events },
          lazy: async () => ({ Component: (await import('./views/events.js')).EventPage }),
        },
        { path: 'team', handle: { page: PAGES.team }, lazy: async () => ({ Component: (await import('./views/team.js')).TeamPage }) },
        { path: 'settings', handle: { page: PAGES.settings }, lazy: async () => ({ Component: (await import('./views/settings/page.js')).SettingsPage }) },
        { path: 'audit-log', handle: { page: PAGES.auditLog }, lazy: async () => ({ Component: (await import('./views/audit-log.js')).AuditLogPage }) },
        { path: 'account/password', handle: ACCOUNT, lazy: async () => ({ Component: (await import('./views/password.js')).PasswordPage }) },
        { path: 'account/sessions', handle: ACCOUNT, lazy: async () => ({ Component: (await import('./views/sessions.js')).SessionsPage }) },
        { path: 'account/two-factor', handle: ACCOUNT, lazy: async () => ({ Component: (await import('./views/two-factor.js')).TwoFactorPage }) },
        { path: '*', lazy: async () => ({ Component: (await import('./views/not-found.js')).NotFoundPage }) },
      ],
    },
  ],
  { basename: '/console' },
);
