// Who is signed in, from GET /api/auth/me, and what their role lets them do: the console offers an
// action only when the member holds its permission (the server refuses it anyway).
import type { Permission } from '@payment-collection/client';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, type ReactNode } from 'react';
import type { Me } from './api/auth.js';
import { meQuery } from './queries/auth.js';

const SessionContext = createContext<Me | undefined>(undefined);

export function useMeQuery() {
  return useQuery(meQuery());
}

export function SessionProvider({ me, children }: { me: Me; children: ReactNode }) {
  return <SessionContext.Provider value={me}>{children}</SessionContext.Provider>;
}

export function useMe(): Me {
  const me = useContext(SessionContext);
  if (!me) throw new Error('useMe outside a signed-in page');
  return me;
}

/** Only a permission the contract names: a misspelt one fails to compile rather than hiding a button. */
export function useCan(permission: Permission): boolean {
  return useMe().permissions.includes(permission);
}

export function useForgetSession(): () => Promise<void> {
  const queryClient = useQueryClient();
  return async () => {
    queryClient.clear();
    await queryClient.invalidateQueries({ queryKey: meQuery().queryKey });
  };
}
