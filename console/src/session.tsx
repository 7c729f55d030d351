// Who is signed in, from GET /api/auth/me, and what their role lets them do: the console offers an
// action only when the member holds its permission (the server refuses it anyway).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, type ReactNode } from 'react';
import { fetchMe, type Me } from './api/auth.js';

const SessionContext = createContext<Me | undefined>(undefined);

export const ME_KEY = ['auth', 'me'] as const;

export function useMeQuery() {
  return useQuery({ queryKey: ME_KEY, queryFn: fetchMe, staleTime: 60_000, retry: false });
}

export function SessionProvider({ me, children }: { me: Me; children: ReactNode }) {
  return <SessionContext.Provider value={me}>{children}</SessionContext.Provider>;
}

export function useMe(): Me {
  const me = useContext(SessionContext);
  if (!me) throw new Error('useMe outside a signed-in page');
  return me;
}

export function useCan(permission: string): boolean {
  return useMe().permissions.includes(permission);
}

export function useForgetSession(): () => Promise<void> {
  const queryClient = useQueryClient();
  return async () => {
    queryClient.clear();
    await queryClient.invalidateQueries({ queryKey: ME_KEY });
  };
}
