import { createContext, type ReactNode, useCallback, useContext, useEffect, useState } from 'react';
import { api, CONSOLE_ROOT, onSignedOut, setCsrfToken } from './api';

/** Who the console is signed in as (GET /console/auth/session). */
export interface Session {
  /** `address`: the organisation's own address, where links handed to browsers point. */
  tenant: { id: string; name: string; address: string };
  admin: { id: string; email: string; scope?: { organisationId: string } };
  csrfToken: string;
}

type SessionState =
  | { status: 'loading' }
  | { status: 'unreachable'; error: unknown }
  | { status: 'signed-out'; ended?: boolean; tenant?: string }
  | { status: 'signed-in'; session: Session };

const SessionContext = createContext<{ state: SessionState; signOut: () => Promise<void> }>({
  state: { status: 'loading' },
  signOut: async () => {},
});

/** The address that signs in to `tenant` and comes back to `returnTo` (a console path). */
export function signInHref(tenant: string | undefined, returnTo: string): string {
  const url = new URL('auth/sign-in', CONSOLE_ROOT);
  if (tenant) url.searchParams.set('tenant', tenant);
  url.searchParams.set('return', returnTo);
  return url.pathname + url.search;
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<SessionState>({ status: 'loading' });

  useEffect(() => {
    let live = true;
    api<({ signedIn: true } & Session) | { signedIn: false }>('GET', 'console/auth/session')
      .then((answer) => {
        if (!live) return;
        if (!answer.signedIn) return setState({ status: 'signed-out' });
        setCsrfToken(answer.csrfToken);
        setState({ status: 'signed-in', session: answer });
      })
      .catch((error: unknown) => live && setState({ status: 'unreachable', error }));
    const stop = onSignedOut(() =>
      setState((now) => (now.status === 'signed-in' ? { status: 'signed-out', ended: true, tenant: now.session.tenant.name } : now)),
    );
    return () => {
      live = false;
      stop();
    };
  }, []);

  const signOut = useCallback(async () => {
    await api('POST', 'console/auth/sign-out');
    setCsrfToken(undefined);
    // What the tab kept of the tenant (the criteria builder's attribute names) goes with the session.
    sessionStorage.clear();
    // The start page then offers to sign in to the same organisation again.
    setState((now) => ({ status: 'signed-out', tenant: now.status === 'signed-in' ? now.session.tenant.name : undefined }));
  }, []);

  return <SessionContext.Provider value={{ state, signOut }}>{children}</SessionContext.Provider>;
}

export const useSessionState = () => useContext(SessionContext);

/** The session of a page behind sign-in (the shell renders pages only once signed in). */
export function useSession(): Session {
  const { state } = useContext(SessionContext);
  if (state.status !== 'signed-in') throw new Error('useSession outside a signed-in page');
  return state.session;
}
