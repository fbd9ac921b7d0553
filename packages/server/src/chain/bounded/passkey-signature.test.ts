// The passkey signature's encoding, pure: the layout of @metamask/smart-accounts-kit's SIGNATURE_ABI_PARAMS (what
// its encodeDeleGatorSignature writes) with each field read back, for a low and a high s, with and without user
// verification; and the refusals of malformed input. The
// bytecode's verdict on these bytes is test/treasury-passkey.test.ts's, on anvil.
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { test } from 'node:test';
import { bytesToHex, decodeAbiParameters, type Hex, keccak256, toHex } from 'viem';
import { challengeOf, derToRs, encodeWebAuthnSignature, PasskeyRefused } from './passkey-signature.ts';

const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

function assertion(digest: Hex, flags: number) {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const authenticatorData = new Uint8Array(
    Buffer.concat([sha256('localhost'), Buffer.from([flags]), Buffer.from([0, 0, 0, 7])]),
  );
  const clientDataJSON = JSON.stringify({
    type: 'webauthn.get',
    challenge: challengeOf(digest),
    origin: 'http://localhost:8787',
    crossOrigin: false,
  });
  const signature = new Uint8Array(
    sign('sha256', Buffer.concat([authenticatorData, sha256(clientDataJSON)]), privateKey),
  );
  return { keyId: 'Y3JlZGVudGlhbA', authenticatorData, clientDataJSON, signature };
}

/** DER of (r, s), for a signature whose s is replaced (its malleable twin). */
function der(r: bigint, s: bigint): Uint8Array {
  const integer = (v: bigint) => {
    let bytes = Buffer.from(v.toString(16).padStart(64, '0'), 'hex');
    while (bytes.length > 1 && bytes[0] === 0 && bytes[1]! < 0x80) bytes = bytes.subarray(1);
    if (bytes[0]! >= 0x80) bytes = Buffer.concat([Buffer.from([0]), bytes]);
    return Buffer.concat([Buffer.from([0x02, bytes.length]), bytes]);
  };
  const body = Buffer.concat([integer(r), integer(s)]);
  return new Uint8Array(Buffer.concat([Buffer.from([0x30, body.length]), body]));
}

test('the encoding has the kit’s layout (SIGNATURE_ABI_PARAMS), its fields the assertion’s, s normalised low', async () => {
  process.env.DO_NOT_TRACK = '1';
  const { SIGNATURE_ABI_PARAMS } = await import('@metamask/smart-accounts-kit/utils');
  const digest = `0x${'ab'.repeat(32)}` as Hex;
  for (const flags of [0x05, 0x01]) {
    const a = assertion(digest, flags);
    const { r, s } = derToRs(a.signature);
    for (const variant of [s, N - s]) {
      const encoded = encodeWebAuthnSignature({ ...a, signature: der(r, variant) });
      const [keyIdHash, rOut, sOut, authenticatorData, userVerified, before, afterChallenge, typeAt] =
        decodeAbiParameters(SIGNATURE_ABI_PARAMS, encoded);
      assert.equal(keyIdHash, keccak256(toHex(a.keyId)));
      assert.equal(rOut, r);
      assert.equal(sOut, variant > N / 2n ? N - variant : variant, 'low s, as the verifier requires');
      assert.equal(authenticatorData, bytesToHex(a.authenticatorData));
      assert.equal(userVerified, flags === 0x05);
      assert.equal(`${before}${challengeOf(digest)}${afterChallenge}`, a.clientDataJSON);
      assert.equal(a.clientDataJSON.slice(Number(typeAt)).startsWith('"type":"webauthn.get"'), true);
    }
  }
});

test('malformed assertions are refused before anything is encoded', () => {
  const digest = `0x${'cd'.repeat(32)}` as Hex;
  const good = assertion(digest, 0x05);
  const refused = (input: Parameters<typeof encodeWebAuthnSignature>[0]) =>
    assert.throws(() => encodeWebAuthnSignature(input), PasskeyRefused);
  refused({ ...good, signature: good.signature.subarray(0, 20) });
  refused({ ...good, signature: der(0n, 1n) });
  refused({ ...good, signature: der(1n, N) });
  refused({ ...good, clientDataJSON: good.clientDataJSON.replace('webauthn.get', 'webauthn.create') });
  refused({ ...good, authenticatorData: good.authenticatorData.subarray(0, 32) });
  assert.equal(challengeOf(digest), Buffer.alloc(32, 0xcd).toString('base64url'));
});
