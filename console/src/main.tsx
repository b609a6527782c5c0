import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { LazyPage, pageCode } from './lib/lazy-page';
import { SessionProvider } from './lib/session';
import { NotFoundPage } from './pages/not-found-page';
import { Shell } from './shell';
import './console.css';

// Each page's code (its charts included) loads with the page, never with the first view.
const overview = pageCode(() => import('./pages/overview-page'));
const people = pageCode(() => import('./pages/people-page'));
const person = pageCode(() => import('./pages/person-page'));
const reports = pageCode(() => import('./pages/reports-page'));
const imports = pageCode(() => import('./pages/imports-page'));
const organisation = pageCode(() => import('./pages/organisation-page'));
const activities = pageCode(() => import('./pages/activities-page'));
const assignments = pageCode(() => import('./pages/assignments-page'));
const assignment = pageCode(() => import('./pages/assignment-page'));
const statements = pageCode(() => import('./pages/statements-page'));
const notifications = pageCode(() => import('./pages/notifications-page'));
const audit = pageCode(() => import('./pages/audit-page'));
const access = pageCode(() => import('./pages/access-page'));

const router = createBrowserRouter(
  [
    {
      element: <Shell />,
      children: [
        { path: '/', element: <LazyPage code={overview} /> },
        { path: '/people', element: <LazyPage code={people} /> },
        { path: '/people/person', element: <LazyPage code={person} /> },
        { path: '/reports', element: <LazyPage code={reports} /> },
        { path: '/imports', element: <LazyPage code={imports} /> },
        { path: '/organisation', element: <LazyPage code={organisation} /> },
        { path: '/activities', element: <LazyPage code={activities} /> },
        { path: '/assignments', element: <LazyPage code={assignments} /> },
        { path: '/assignments/assignment', element: <LazyPage code={assignment} /> },
        { path: '/statements', element: <LazyPage code={statements} /> },
        { path: '/notifications', element: <LazyPage code={notifications} /> },
        { path: '/audit', element: <LazyPage code={audit} /> },
        { path: '/access', element: <LazyPage code={access} /> },
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
