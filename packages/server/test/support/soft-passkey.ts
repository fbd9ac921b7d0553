// A software passkey (a WebAuthn authenticator in the test process): a P-256 key, "none" attestation, ES256
// assertions — what a browser hands the server, built by hand so server tests can register and use a real
// passkey without Chromium (the dashboard's e2e tests use Chromium's virtual authenticator).
import {
  createHash,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  sign,
} from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();
const b64url = (data: Uint8Array) => Buffer.from(data).toString('base64url');

/** authenticatorData flags: user present, user verified, attested credential data included. */
const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

export interface SoftPasskey {
  /** The credential id, base64url (what the server stores and the assertion names). */
  credentialId: string;
  /** The P-256 public key's coordinates (what a HybridDeleGator account holds for it). */
  point: { x: bigint; y: bigint };
  /** The body `POST /auth/passkeys` takes, answering registration options. */
  register(options: { challenge: string }, label?: string): { label: string; response: object };
  /** The `passkey` field of a login's second step or a step-up, answering authentication options. */
  assert(options: { challenge: string }): object;
}

/** `key`: a P-256 private key and credential id of the caller's (the same credential in a browser's authenticator). */
export function softPasskey(
  origin = 'http://localhost:8787',
  rpId = 'localhost',
  key: { privateKey: KeyObject; credentialId: Buffer } | undefined = undefined,
): SoftPasskey {
  const privateKey = key?.privateKey ?? generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const publicKey = createPublicKey(privateKey);
  const credentialId = key?.credentialId ?? randomBytes(16);
  let signCount = 0;
  const clientData = (type: string, challenge: string) =>
    Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  const header = (flags: number) => {
    signCount += 1;
    const count = Buffer.alloc(4);
    count.writeUInt32BE(signCount);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count]);
  };
  const jwk = publicKey.export({ format: 'jwk' });
  const coordinate = (c: string | undefined) => BigInt(`0x${Buffer.from(c!, 'base64url').toString('hex')}`);
  return {
    credentialId: b64url(credentialId),
    point: { x: coordinate(jwk.x), y: coordinate(jwk.y) },
    register(options, label = 'soft passkey') {
      const idLength = Buffer.alloc(2);
      idLength.writeUInt16BE(credentialId.length);
      const authData = Buffer.concat([
        header(FLAG_UP | FLAG_UV | FLAG_AT),
        Buffer.alloc(16), // aaguid: none
        idLength,
        credentialId,
        Buffer.from(coseKey(publicKey)),
      ]);
      const attestationObject = isoCBOR.encode(
        new Map<string, unknown>([
          ['fmt', 'none'],
          ['attStmt', new Map()],
          ['authData', new Uint8Array(authData)],
        ]) as never,
      );
      return {
        label,
        response: {
          id: b64url(credentialId),
          rawId: b64url(credentialId),
          type: 'public-key',
          clientExtensionResults: {},
          response: {
            clientDataJSON: b64url(clientData('webauthn.create', options.challenge)),
            attestationObject: b64url(attestationObject),
            transports: ['internal'],
          },
        },
      };
    },
    assert(options) {
      const authData = header(FLAG_UP | FLAG_UV);
      const clientDataJSON = clientData('webauthn.get', options.challenge);
      const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), privateKey);
      return {
        id: b64url(credentialId),
        rawId: b64url(credentialId),
        type: 'public-key',
        clientExtensionResults: {},
        response: {
          clientDataJSON: b64url(clientDataJSON),
          authenticatorData: b64url(authData),
          signature: b64url(signature),
        },
      };
    },
  };
}

/** The public key as a COSE_Key (EC2, P-256, ES256). */
function coseKey(publicKey: KeyObject): Uint8Array {
  const jwk = publicKey.export({ format: 'jwk' });
  return isoCBOR.encode(
    new Map<number, unknown>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, new Uint8Array(Buffer.from(jwk.x!, 'base64url'))],
      [-3, new Uint8Array(Buffer.from(jwk.y!, 'base64url'))],
    ]) as never,
  );
}
