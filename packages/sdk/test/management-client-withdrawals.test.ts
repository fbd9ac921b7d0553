// ManagementClient's master withdrawals and the owners' treasury calls: addWithdrawalAddress and withdrawMaster
// against a real sandbox server (the withdrawal completes at once; the answer narrows to it), the `bounded`
// treasury's 202 awaiting_signatures answer narrowed to its signRequest, treasurySignature,
// revokeTreasuryAllowance and changeTreasuryOwners (evm-rail routes: the sandbox server answers 404; the fault
// proxy in front of it stands in for the bounded treasury's answers and its step-up refusal). treasuryRequests
// on a real bounded treasury: management-client-treasury-requests.test.ts.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import {
  type AwaitingSignatures,
  ConflictError,
  ManagementClient,
  type MasterWithdrawalAnswer,
  NotFoundError,
  PermissionError,
  type TreasuryRevocation,
} from '../src/index.ts';
import { externalAddress, newOwner, rejection } from './support/fixtures.ts';
import { type FaultProxy, startProxy } from './support/proxy.ts';
import { startServer, type TestServer } from './support/server.ts';

const SIGN_REQUEST = {
  typedData: {
    domain: {
      name: 'MultiSigDeleGator',
      version: '1',
      chainId: 31337,
      verifyingContract: '0x2222222222222222222222222222222222222222',
    },
    types: { PackedUserOperation: [{ name: 'sender', type: 'address' }] },
    primaryType: 'PackedUserOperation',
    message: { sender: '0x2222222222222222222222222222222222222222', nonce: '7' },
  },
  digest: `0x${'ab'.repeat(32)}`,
};
const SIGNATURE = `0x${'1b'.repeat(65)}`;

const answer = (status: number, data: unknown) => ({
  kind: 'status' as const,
  status,
  body: JSON.stringify({ success: true, data }),
});
const refusal = (status: number, code: string, message: string) => ({
  kind: 'status' as const,
  status,
  body: JSON.stringify({ success: false, error: { code, message } }),
});

/** What a caller does with the answer: the union narrows on `status`. */
function describeAnswer(result: MasterWithdrawalAnswer): string {
  if (result.status === 'awaiting_signatures') {
    return `sign ${result.signRequest.digest} (${result.signaturesNeeded} more)`;
  }
  return `${result.status} on ${result.rail}${result.txHash === null ? '' : ` ${result.txHash}`}`;
}

describe('ManagementClient: master withdrawals and the owners’ treasury calls', () => {
  let server: TestServer;
  let proxy: FaultProxy;
  before(async () => {
    server = await startServer({ env: { WITHDRAWAL_ADDRESS_DELAY_SECONDS: '0' } });
    proxy = await startProxy(server.url);
  });
  after(async () => {
    await proxy?.close();
    await server?.stop();
  });
  beforeEach(() => proxy.reset());

  /** A signed-up owner with `deposit` whose client goes through the proxy, without retries. */
  async function ownerBehindProxy(deposit = '0'): Promise<ManagementClient> {
    const { mgmt } = await newOwner(server.url, {}, deposit);
    return new ManagementClient({ baseUrl: proxy.url, token: mgmt.token, maxRetries: 0 });
  }

  test('withdrawMaster on the sandbox: to an active book address, completed at once, keyed, and narrowed', async () => {
    const mgmt = await ownerBehindProxy('100');
    const toAddress = externalAddress();
    const book = await mgmt.addWithdrawalAddress({ address: toAddress, label: 'cold storage' });
    assert.equal(book.status, 'active');
    assert.equal(book.address.toLowerCase(), toAddress.toLowerCase());
    const result = await mgmt.withdrawMaster({ toAddress, amount: '12.5', memo: 'rent' });
    assert.notEqual(result.status, 'awaiting_signatures');
    if (result.status === 'awaiting_signatures') return;
    assert.equal(result.status, 'completed');
    assert.equal(result.rail, 'sandbox');
    assert.equal(result.amount, '12.500000');
    assert.equal(result.memo, 'rent');
    assert.equal(describeAnswer(result), 'completed on sandbox');
    assert.equal((await mgmt.wallet()).balance, '87.500000');
    const sent = proxy.requests.find((r) => r.path === '/api/v1/wallet/withdrawals');
    assert.equal(sent?.method, 'POST');
    assert.match(String(sent?.headers['idempotency-key']), /.{16,}/, 'always keyed');
    assert.deepEqual(JSON.parse(sent!.body), { toAddress, amount: '12.5', memo: 'rent' });
  });

  test('a bounded treasury’s 202 awaiting_signatures narrows to the owners’ signRequest', async () => {
    const mgmt = await ownerBehindProxy();
    const waiting: AwaitingSignatures = {
      id: 'txn_1',
      status: 'awaiting_signatures',
      signRequest: SIGN_REQUEST,
      signaturesNeeded: 2,
    };
    proxy.inject(answer(202, waiting), {
      match: (method, path) => method === 'POST' && path === '/api/v1/wallet/withdrawals',
    });
    const result = await mgmt.withdrawMaster({ toAddress: externalAddress(), amount: '500' });
    assert.deepEqual(result, waiting);
    assert.equal(describeAnswer(result), `sign ${SIGN_REQUEST.digest} (2 more)`);
  });

  test('treasuryRequests, treasurySignature, revokeTreasuryAllowance and changeTreasuryOwners: evm-rail routes, 404 NotFoundError on the sandbox', async () => {
    const { mgmt } = await newOwner(server.url, {}, '0');
    const listed = await rejection(() => mgmt.treasuryRequests());
    assert.ok(listed instanceof NotFoundError);
    assert.equal(listed.status, 404);
    const signed = await rejection(() => mgmt.treasurySignature('txn_1', SIGNATURE));
    assert.ok(signed instanceof NotFoundError);
    assert.equal(signed.status, 404);
    const revoked = await rejection(() => mgmt.revokeTreasuryAllowance());
    assert.ok(revoked instanceof NotFoundError);
    const changed = await rejection(() => mgmt.changeTreasuryOwners([externalAddress()], 1));
    assert.ok(changed instanceof NotFoundError);
  });

  test('treasurySignature sends {id, signature} and answers where the request stands', async () => {
    const mgmt = await ownerBehindProxy();
    const isSignatures = (method: string, path: string) =>
      method === 'POST' && path === '/api/v1/wallet/treasury/signatures';
    const standing = {
      id: 'txn_1',
      status: 'submitted' as const,
      signaturesNeeded: 0,
      signedBy: ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8'],
    };
    proxy.inject(answer(200, standing), { match: isSignatures });
    assert.deepEqual(await mgmt.treasurySignature('txn_1', SIGNATURE), standing);
    const [request] = proxy.requests;
    assert.equal(request?.headers.authorization, `Bearer ${mgmt.token}`);
    assert.deepEqual(JSON.parse(request!.body), { id: 'txn_1', signature: SIGNATURE });

    proxy.inject(refusal(409, 'INVALID_STATE', 'that owner has signed already'), { match: isSignatures });
    assert.ok((await rejection(() => mgmt.treasurySignature('txn_1', SIGNATURE))) instanceof ConflictError);
  });

  test('revokeTreasuryAllowance: the waiting revocation; a stale session is a PermissionError STEP_UP_REQUIRED', async () => {
    const mgmt = await ownerBehindProxy();
    const isRevoke = (method: string, path: string) =>
      method === 'POST' && path === '/api/v1/wallet/treasury/revoke';
    const revocation: TreasuryRevocation = {
      id: 'osr_1',
      status: 'awaiting_signatures',
      signRequest: SIGN_REQUEST,
      signaturesNeeded: 2,
    };
    proxy.inject(answer(202, revocation), { match: isRevoke });
    assert.deepEqual(await mgmt.revokeTreasuryAllowance(), revocation);
    assert.equal(proxy.requests[0]?.body, '', 'no body');

    proxy.inject(refusal(403, 'STEP_UP_REQUIRED', 'prove your presence again: POST /auth/step-up'), {
      match: isRevoke,
    });
    const stale = await rejection(() => mgmt.revokeTreasuryAllowance());
    assert.ok(stale instanceof PermissionError);
    assert.equal(stale.code, 'STEP_UP_REQUIRED');
    assert.equal(stale.status, 403);
  });
});
