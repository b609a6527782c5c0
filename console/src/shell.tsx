import { Button } from 'react-aria-components';
import { NavLink, Outlet, useLocation } from 'react-router';
import { ErrorNote, Loading } from './components/notes';
import { useSessionState } from './lib/session';
import { StartPage } from './pages/start-page';

/** The pages of the console's navigation, in the order an L&D admin reaches for them. */
const PAGES: { to: string; label: string; end?: boolean }[] = [
  { to: '/', label: 'Overview', end: true },
  { to: '/people', label: 'People' },
  { to: '/imports', label: 'Imports' },
  { to: '/organisation', label: 'Organisation' },
  { to: '/activities', label: 'Activities' },
  { to: '/assignments', label: 'Assignments' },
  { to: '/reports', label: 'Reports' },
  { to: '/statements', label: 'Statements' },
  { to: '/notifications', label: 'Notifications' },
  { to: '/audit', label: 'Audit' },
  { to: '/access', label: 'Access' },
];

/**
 * Every page behind sign-in: the header (organisation, who is signed in, sign out), the navigation,
 * and the page the address names, its code loaded with it. Not signed in: the start page, which
 * signs in and comes back to this same address.
 */
export function Shell() {
  const { state, signOut } = useSessionState();
  const location = useLocation();
  if (state.status === 'loading') return <Loading what="the console" />;
  if (state.status === 'unreachable') {
    return (
      <main className="start">
        <h1>learnbase console</h1>
        <ErrorNote error={state.error} />
      </main>
    );
  }
  if (state.status === 'signed-out')
    return <StartPage ended={state.ended} knownTenant={state.tenant} returnTo={`${location.pathname}${location.search}`} />;
  const { session } = state;
  return (
    <div className="shell">
      <a className="skip" href="#content">
        Skip to the page
      </a>
      <header className="top">
        <span className="brand">learnbase</span>
        <span className="org" title="Organisation">
          {session.tenant.name}
        </span>
        <span className="who">
          {session.admin.email}
          {session.admin.scope && <span className="scope"> · limited to {session.admin.scope.organisationId}</span>}
        </span>
        <Button className="secondary small" onPress={() => void signOut()}>
          Sign out
        </Button>
      </header>
      <nav aria-label="Console" className="nav">
        <ul>
          {PAGES.map((page) => (
            <li key={page.to}>
              <NavLink to={page.to} end={page.end}>
                {page.label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <main id="content" className="page" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
