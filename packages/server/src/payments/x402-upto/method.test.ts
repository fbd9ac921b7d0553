// The upto method against @x402/evm's own definitions: the addresses and witness types it signs for are the
// package's, a credential is what its facilitator reads (isUptoPermit2Payload, and a signature its typed data
// verifies), requirements without a facilitator are not payable, and the seller's settled amount is read.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  isUptoPermit2Payload,
  PERMIT2_ADDRESS,
  uptoPermit2WitnessTypes,
  x402UptoPermit2ProxyAddress,
} from '@x402/evm';
import { getAddress, verifyTypedData } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { PERMIT2_ADDRESS as OUR_PERMIT2, UPTO_PROXY_ADDRESS } from '../../domain/permit2.ts';
import type { SellerAnswer } from '../method.ts';
import { x402Upto } from './method.ts';

const CHAIN = { chainId: 84532, usdcAddress: '0x036cbd53842c5426634e7929541ec2318f3dcf7e' };
const PAY_TO = getAddress('0x00000000000000000000000000000000005e11e5');
const FACILITATOR = getAddress('0x000000000000000000000000000000000000fac1');
const requirement = (extra: Record<string, unknown> = { facilitatorAddress: FACILITATOR }) => ({
  scheme: 'upto',
  network: 'eip155:84532',
  asset: getAddress(CHAIN.usdcAddress),
  amount: '2000000',
  payTo: PAY_TO,
  maxTimeoutSeconds: 60,
  extra: { assetTransferMethod: 'permit2', ...extra },
});
const answerOf = (accepts: unknown[]): SellerAnswer => {
  const header = Buffer.from(
    JSON.stringify({ x402Version: 2, accepts, resource: { url: 'https://a/b' } }),
  ).toString('base64');
  return {
    header: (name) => (name.toLowerCase() === 'payment-required' ? header : undefined),
    headerValues: () => [header],
    bodyText: null,
  };
};

describe('x402 upto method', () => {
  test('signs for @x402/evm’s Permit2, proxy and witness types', () => {
    assert.equal(OUR_PERMIT2, PERMIT2_ADDRESS);
    assert.equal(UPTO_PROXY_ADDRESS, x402UptoPermit2ProxyAddress);
    const offer = x402Upto.offersIn(answerOf([requirement()]), CHAIN, Date.now()).payable[0]!;
    const typed = x402Upto.typedData(offer, fields(), tokenDomain());
    assert.deepEqual(typed.types, uptoPermit2WitnessTypes);
    assert.deepEqual(typed.domain, {
      name: 'Permit2',
      chainId: CHAIN.chainId,
      verifyingContract: PERMIT2_ADDRESS,
    });
  });

  test('its credential is what @x402/evm’s facilitator reads and verifies', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const offer = x402Upto.offersIn(answerOf([requirement()]), CHAIN, Date.now()).payable[0]!;
    const signed = { ...fields(account.address), signature: '' };
    signed.signature = await account.signTypedData(x402Upto.typedData(offer, signed, tokenDomain()) as never);
    const credential = x402Upto.credential(offer, signed);
    assert.equal(credential.headerName, 'PAYMENT-SIGNATURE');
    const payload = credential.payload as { payload: never; accepted: { scheme: string } };
    assert.equal(isUptoPermit2Payload(payload.payload), true);
    assert.equal(payload.accepted.scheme, 'upto');
    const permit = (payload.payload as { permit2Authorization: Permit }).permit2Authorization;
    // As the facilitator rebuilds the message from the payload (verifyUptoPermit2).
    const ok = await verifyTypedData({
      address: account.address,
      domain: { name: 'Permit2', chainId: CHAIN.chainId, verifyingContract: PERMIT2_ADDRESS },
      types: uptoPermit2WitnessTypes,
      primaryType: 'PermitWitnessTransferFrom',
      message: {
        permitted: { token: getAddress(permit.permitted.token), amount: BigInt(permit.permitted.amount) },
        spender: getAddress(permit.spender),
        nonce: BigInt(permit.nonce),
        deadline: BigInt(permit.deadline),
        witness: {
          to: getAddress(permit.witness.to),
          facilitator: getAddress(permit.witness.facilitator),
          validAfter: BigInt(permit.witness.validAfter),
        },
      },
      signature: signed.signature as `0x${string}`,
    });
    assert.equal(ok, true);
    assert.equal(permit.deadline, '1800000060');
    assert.equal(permit.witness.facilitator, FACILITATOR);
  });

  test('without a facilitator, or through another transfer method, an upto offer is not payable', () => {
    const none = x402Upto.offersIn(answerOf([requirement({ facilitatorAddress: undefined })]), CHAIN, 0);
    assert.equal(none.payable.length, 0);
    assert.match(none.unpayable[0]!, /facilitatorAddress/);
    const other = x402Upto.offersIn(answerOf([requirement({ assetTransferMethod: 'eip3009' })]), CHAIN, 0);
    assert.equal(other.payable.length, 0);
    const exact = x402Upto.offersIn(answerOf([{ ...requirement(), scheme: 'exact' }]), CHAIN, 0);
    assert.deepEqual(exact, { payable: [], unpayable: [] }, 'an exact offer is the exact method’s to read');
  });

  test('the seller’s PAYMENT-RESPONSE says what it settled, 0 included', () => {
    for (const amount of ['0', '750000']) {
      const header = Buffer.from(
        JSON.stringify({ success: true, transaction: '', network: 'eip155:84532', amount }),
      ).toString('base64');
      const settled = x402Upto.settlementIn({
        header: (name) => (name.toLowerCase() === 'payment-response' ? header : undefined),
        headerValues: () => [header],
        bodyText: null,
      });
      assert.equal(settled.settledMicros, BigInt(amount));
      assert.equal(settled.txHash, null);
    }
  });
});

interface Permit {
  permitted: { token: string; amount: string };
  spender: string;
  nonce: string;
  deadline: string;
  witness: { to: string; facilitator: string; validAfter: string };
}

function fields(from = '0x0000000000000000000000000000000000000001') {
  return {
    from,
    to: PAY_TO,
    value: 2_000_000n,
    validAfter: 0n,
    validBefore: 1_800_000_060n,
    nonce: `0x${'ab'.repeat(32)}`,
  };
}

function tokenDomain() {
  return { chainId: CHAIN.chainId, usdcAddress: CHAIN.usdcAddress, name: 'USDC', version: '2' };
}
