// Unit and component tests (jsdom). They live in unit/*.spec.ts(x) so the root node:test runner, which picks
// up packages/*/test/**/*.test.ts and packages/*/src/**/*.test.ts, never tries to run them.
// DASHBOARD_TEST_SUMMARY_FILE=<path> also writes Vitest's JSON report there, for the root test runner.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';
import { SDK_SOURCE } from './vite.config.ts';

const summaryFile = process.env.DASHBOARD_TEST_SUMMARY_FILE;

export default defineConfig({
  plugins: [react()],
  resolve: { alias: { '@agent-wallet/sdk': SDK_SOURCE } },
  test: {
    // Pure logic runs in Node; component specs opt into jsdom with a `// @vitest-environment jsdom` line.
    environment: 'node',
    include: ['unit/**/*.spec.{ts,tsx}'],
    reporters: summaryFile ? ['default', 'json'] : ['default'],
    ...(summaryFile ? { outputFile: { json: summaryFile } } : {}),
  },
});
