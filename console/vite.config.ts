import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The console is served by the server at /console/ (src/platform/http/console.ts): hashed files under
// /console/assets/ are cached for a year, index.html never. Nothing is inlined into the page, so the
// server's Content-Security-Policy can forbid inline script and style.
export default defineConfig({
  base: '/console/',
  plugins: [react()],
  // The files name each other relatively, so the console works below a public path a proxy strips
  // (LEARNBASE_PUBLIC_URL with a path): only index.html names them absolutely, and the server
  // rewrites those names under the path.
  experimental: {
    renderBuiltUrl: (_filename, { hostType }) => (hostType === 'html' ? undefined : { relative: true }),
  },
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
  },
});
