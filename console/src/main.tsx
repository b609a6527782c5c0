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
  { basename: '/console' },
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
