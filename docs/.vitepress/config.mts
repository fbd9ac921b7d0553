// The documentation site (VitePress). `npm run docs` serves it, `npm run docs:build` writes static HTML into
// docs/.vitepress/dist after generating docs/reference/ from the code (packages/server/scripts/docs-reference.ts).
// Dead page links fail the build here; scripts/docs-check.mjs checks every anchor of the built HTML.
import { defineConfig } from 'vitepress';

export default defineConfig({
  title: 'Agent Wallet Service',
  description: 'Wallets for AI agents, with a human in charge',
  cleanUrls: true,
  lastUpdated: false,
  ignoreDeadLinks: false,
  markdown: { theme: { light: 'github-light', dark: 'github-dark' } },
  themeConfig: {
    nav: [
      { text: 'Get started', link: '/getting-started' },
      { text: 'Agents', link: '/agents/' },
      { text: 'Owners', link: '/owners/dashboard' },
      { text: 'Operators', link: '/operators/configuration' },
      { text: 'Reference', link: '/reference/' },
    ],
    search: { provider: 'local' },
    outline: { level: [2, 3] },
    sidebar: [
      { text: 'Start', items: [{ text: 'Getting started', link: '/getting-started' }] },
      {
        text: 'Agent builders',
        items: [
          { text: 'Overview', link: '/agents/' },
          { text: 'The SDK', link: '/agents/sdk' },
          { text: 'MCP for desktop clients', link: '/agents/mcp' },
          { text: 'Remote agent hosts (OAuth)', link: '/agents/remote-hosts' },
          { text: 'Frameworks', link: '/agents/frameworks' },
          { text: 'Paying sellers (402)', link: '/agents/paying' },
          { text: 'Idempotency and retries', link: '/agents/idempotency' },
        ],
      },
      {
        text: 'Owners',
        items: [
          { text: 'The dashboard', link: '/owners/dashboard' },
          { text: 'Policies', link: '/owners/policies' },
          { text: 'Approvals', link: '/owners/approvals' },
          { text: 'Custody', link: '/owners/custody' },
          { text: 'Organizations and roles', link: '/owners/organizations' },
          { text: 'Alerts, breakers and email', link: '/owners/alerts' },
          { text: 'Webhooks', link: '/owners/webhooks' },
          { text: 'The treasury', link: '/owners/treasury' },
        ],
      },
      {
        text: 'Operators',
        items: [
          { text: 'Configuration', link: '/operators/configuration' },
          { text: 'PostgreSQL and Redis', link: '/operators/postgres-redis' },
          { text: 'Load balancers', link: '/operators/haproxy' },
          { text: 'PgBouncer', link: '/operators/pgbouncer' },
          { text: 'Health and draining', link: '/operators/health' },
          { text: 'Backups and moving', link: '/operators/backups' },
          { text: 'Upgrades', link: '/operators/upgrades' },
          { text: 'Rate limits', link: '/operators/rate-limits' },
          { text: 'Metrics', link: '/operators/metrics' },
          { text: 'The EVM rail', link: '/operators/evm-rail' },
        ],
      },
      {
        text: 'Reference',
        items: [
          { text: 'Overview', link: '/reference/' },
          { text: 'HTTP API', link: '/reference/http-api' },
          { text: 'Tools', link: '/reference/tools' },
          { text: 'Environment variables', link: '/reference/environment' },
          { text: 'CLI', link: '/reference/cli' },
          { text: 'Error codes', link: '/reference/errors' },
          { text: 'Policy types', link: '/reference/policy-types' },
          { text: 'Webhook events', link: '/reference/webhook-events' },
        ],
      },
      {
        text: 'Design and security',
        items: [
          { text: 'Design', link: '/design' },
          { text: 'Benchmarks', link: '/benchmarks' },
          { text: 'Security and threat model', link: '/threat-model' },
          { text: 'Where the contract is silent', link: '/contract-choices' },
          { text: 'Known limitations', link: '/limitations' },
          { text: 'Working on it', link: '/development' },
        ],
      },
    ],
  },
});
