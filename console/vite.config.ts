import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/**
 * Each script, style sheet and drawing of the build also written compressed, beside it (`x.js.br`,
 * `x.js.gz`): the server sends those as they are (src/platform/http/console.ts) instead of
 * compressing the console at every start. Brotli at its best quality: done once, here.
 */
function compressedCopies(): Plugin {
  return {
    name: 'learnbase-compressed-copies',
    apply: 'build',
    async writeBundle({ dir = 'dist' }, bundle) {
      const written = Object.values(bundle).filter((file) => /\.(js|css|svg|json)$/.test(file.fileName));
      await Promise.all(
        written.map(async (file) => {
          const path = join(dir, file.fileName);
          const bytes = await readFile(path);
          const quality = { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length };
          await writeFile(`${path}.br`, await brotli(bytes, { params: quality }));
          await writeFile(`${path}.gz`, await gzipped(bytes, { level: 9 }));
        }),
      );
    },
  };
}

// The console is served by the server at /console/ (src/platform/http/console.ts): hashed files under
// /console/assets/ are cached for a year, index.html never. Nothing is inlined into the page, so the
// server's Content-Security-Policy can forbid inline script and style.
export default defineConfig({
  base: '/console/',
  plugins: [react(), compressedCopies()],
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
