// Builds the dashboard into dist/ (served by the server at `/`). `npm run dev` proxies the API to a local server.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** The SDK is bundled from its TypeScript sources: no stale dist/, one build for both. */
export const SDK_SOURCE = fileURLToPath(new URL('../sdk/src/index.ts', import.meta.url));

const API_TARGET = process.env.DASHBOARD_API_TARGET ?? 'http://127.0.0.1:8787';

export default defineConfig({
  plugins: [react()],
  resolve: { alias: { '@agent-wallet/sdk': SDK_SOURCE } },
  server: {
    proxy: {
      '/api': { target: API_TARGET, changeOrigin: false },
      '/mcp': { target: API_TARGET, changeOrigin: false },
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The server's CSP allows no inline script and no inline style: keep every asset a separate file.
    assetsInlineLimit: 0,
    sourcemap: false,
  },
});
