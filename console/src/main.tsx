import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { NotFoundPage } from './pages/not-found-page';
import { StartPage } from './pages/start-page';
import './console.css';

const router = createBrowserRouter(
  [
    { path: '/', element: <StartPage /> },
    { path: '*', element: <NotFoundPage /> },
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
      <RouterProvider router={router} />
    </StrictMode>,
  );
}
