import { lazy, StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { SessionProvider } from './lib/session';
import { NotFoundPage } from './pages/not-found-page';
import { Shell } from './shell';
import './console.css';

// Each page's code (its charts included) loads with the page, never with the first view.
const OverviewPage = lazy(() => import('./pages/overview-page'));
const PeoplePage = lazy(() => import('./pages/people-page'));
const PersonPage = lazy(() => import('./pages/person-page'));
const ReportsPage = lazy(() => import('./pages/reports-page'));
const ImportsPage = lazy(() => import('./pages/imports-page'));
const OrganisationPage = lazy(() => import('./pages/organisation-page'));
const ActivitiesPage = lazy(() => import('./pages/activities-page'));
const AssignmentsPage = lazy(() => import('./pages/assignments-page'));
const AssignmentPage = lazy(() => import('./pages/assignment-page'));
const StatementsPage = lazy(() => import('./pages/statements-page'));
const NotificationsPage = lazy(() => import('./pages/notifications-page'));
const AuditPage = lazy(() => import('./pages/audit-page'));
const AccessPage = lazy(() => import('./pages/access-page'));

const router = createBrowserRouter(
  [
    {
      element: <Shell />,
      children: [
        { path: '/', element: <OverviewPage /> },
        { path: '/people', element: <PeoplePage /> },
        { path: '/people/person', element: <PersonPage /> },
        { path: '/reports', element: <ReportsPage /> },
        { path: '/imports', element: <ImportsPage /> },
        { path: '/organisation', element: <OrganisationPage /> },
        { path: '/activities', element: <ActivitiesPage /> },
        { path: '/assignments', element: <AssignmentsPage /> },
        { path: '/assignments/assignment', element: <AssignmentPage /> },
        { path: '/statements', element: <StatementsPage /> },
        { path: '/notifications', element: <NotificationsPage /> },
        { path: '/audit', element: <AuditPage /> },
        { path: '/access', element: <AccessPage /> },
        { path: '*', element: <NotFoundPage /> },
      ],
    },
  ],
  // Where the console is served: /console, or below a public path (/learning/console): the folder
  // above the one this script was loaded from (/…/console/assets/index-….js).
  { basename: new URL('..', import.meta.url).pathname.replace(/\/$/, '') },
);

// The page's policy forbids inline style: React Aria would add one <style> for its pressable
// elements, found by this id. Its rule is in console.css; the marker tells React Aria it is there.
const pressableStyle = document.createElement('meta');
pressableStyle.id = 'react-aria-pressable-style';
document.head.append(pressableStyle);

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <SessionProvider>
        <RouterProvider router={router} />
      </SessionProvider>
    </StrictMode>,
  );
}
