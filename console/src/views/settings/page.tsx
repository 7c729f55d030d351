// Settings: the business's profile and logo, the two-factor rule for members, and the acquirer.
import { Card, Switch } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { $api } from '../../api/client.js';
import { refusalMessage } from '../../lib/errors.js';
import { meQuery } from '../../queries/auth.js';
import { businessQuery } from '../../queries/business.js';
import { useCan, useMe } from '../../session.js';
import { Loading, PageHeading, QueryError } from '../common.js';
import { ProfileCard, LogoCard } from './profile.js';
import { AcquirerSection } from './acquirer.js';

function TwoFactorRule() {
  const me = useMe();
  const queryClient = useQueryClient();
  const update = $api.useMutation('patch', '/team/settings');
  const required = me.memberships.find((membership) => membership.business_id === me.business.business_id)?.require_two_factor ?? false;
  const owner = me.role === 'owner';
  return (
    <Card withBorder maw={640} mb="lg">
      <Switch
        label="Require two-factor sign-in for every member"
        description={
          owner
            ? 'A member without it may only set it up before acting in this business, and their API keys hold nothing until they do'
            : 'Only an owner changes this'
        }
        checked={required}
        disabled={update.isPending || !owner}
        onChange={async (event) => {
          const next = event.currentTarget.checked;
          try {
            await update.mutateAsync({ body: { require_two_factor: next } });
            notifications.show({ color: 'green', message: next ? 'Two-factor sign-in is now required.' : 'Two-factor sign-in is no longer required.' });
          } catch (error) {
            notifications.show({ color: 'red', message: refusalMessage(error) });
          }
          await queryClient.invalidateQueries({ queryKey: meQuery().queryKey });
        }}
      />
    </Card>
  );
}

export function SettingsPage() {
  const canWrite = useCan('settings:write');
  const business = useQuery(businessQuery());
  return (
    <>
      <PageHeading title="Settings" />
      {business.isPending ? (
        <Loading what="the business profile" />
      ) : business.isError ? (
        <QueryError error={business.error} />
      ) : (
        <>
          <ProfileCard key={business.data.data.updated_at ?? 'never'} business={business.data.data} canWrite={canWrite} />
          <LogoCard business={business.data.data} canWrite={canWrite} />
          <AcquirerSection canWrite={canWrite} />
          {canWrite && <TwoFactorRule />}
        </>
      )}
    </>
  );
}
