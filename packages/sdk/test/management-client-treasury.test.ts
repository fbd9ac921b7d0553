// ManagementClient.walletTreasury(): GET /api/v1/wallet/treasury, an evm-rail call. No chain is started here: the
// sandbox server answers 404 NOT_FOUND, and the fault proxy in front of it stands in for the evm rail's answers
// (the hot treasury, and the 503 while the chain cannot be read).
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { ManagementClient, NotFoundError, ServerError, type TreasuryView } from '../src/index.ts';
import { newOwner, rejection } from './support/fixtures.ts';
import { type FaultProxy, startProxy } from './support/proxy.ts';
import { startServer, type TestServer } from './support/server.ts';

const isTreasury = (method: string, path: string) => method === 'GET' && path === '/api/v1/wallet/treasury';

describe('ManagementClient.walletTreasury', () => {
  let server: TestServer;
  let proxy: FaultProxy;
  before(async () => {
    server = await startServer();
    proxy = await startProxy(server.url);
  });
  after(async () => {
    await proxy?.close();
    await server?.stop();
  });
  beforeEach(() => proxy.reset());

  /** A signed-up owner whose client goes through the proxy, without retries. */
  async function ownerBehindProxy(): Promise<ManagementClient> {
    const { mgmt } = await newOwner(server.url, {}, '0');
    return new ManagementClient({ baseUrl: proxy.url, token: mgmt.token, maxRetries: 0 });
  }

  test('an evm-rail call: a sandbox server answers 404 NOT_FOUND as NotFoundError', async () => {
    const { mgmt } = await newOwner(server.url, {}, '0');
    const error = await rejection(() => mgmt.walletTreasury());
    assert.ok(error instanceof NotFoundError);
    assert.equal(error.code, 'NOT_FOUND');
    assert.equal(error.status, 404);
  });

  test('GET /api/v1/wallet/treasury with the session token; the hot treasury comes back as sent', async () => {
    const mgmt = await ownerBehindProxy();
    const hot: TreasuryView = {
      mode: 'hot',
      account: '0x1111111111111111111111111111111111111111',
      owners: [],
      threshold: null,
      allowance: null,
      float: '1250.500000',
      atRisk: '1250.500000',
    };
    proxy.inject(
      { kind: 'status', status: 200, body: JSON.stringify({ success: true, data: hot }) },
      { match: isTreasury },
    );
    assert.deepEqual(await mgmt.walletTreasury(), hot);
    const [request] = proxy.requests;
    assert.equal(request?.method, 'GET');
    assert.equal(request?.path, '/api/v1/wallet/treasury');
    assert.equal(request?.headers.authorization, `Bearer ${mgmt.token}`);
  });

  test('while the chain cannot be read: 503 SERVICE_UNAVAILABLE as ServerError with retryAfter', async () => {
    const mgmt = await ownerBehindProxy();
    proxy.inject(
      {
        kind: 'status',
        status: 503,
        headers: { 'retry-after': '5' },
        body: JSON.stringify({
          success: false,
          error: { code: 'SERVICE_UNAVAILABLE', message: 'the chain cannot be read; retry shortly' },
        }),
      },
      { match: isTreasury },
    );
    const error = await rejection(() => mgmt.walletTreasury());
    assert.ok(error instanceof ServerError);
    assert.equal(error.code, 'SERVICE_UNAVAILABLE');
    assert.equal(error.status, 503);
    assert.equal(error.retryAfter, 5);
  });
});
