import { createHash, generateKeyPairSync, type KeyObject, randomUUID, sign } from 'node:crypto';
import { calculateJwkThumbprint, EmbeddedJWK, type JWK, jwtVerify } from 'jose';

/**
 * A DPoP client key (ES256) and its proofs (RFC 9449 §4.2), for the load generator.
 *
 * Proofs are signed here with node:crypto rather than jose because autocannon's setupRequest is
 * synchronous and jose signs only asynchronously; `selfCheck` verifies one proof with jose, so a
 * proof this module makes is one a library no one here wrote accepts.
 */
export interface DpopKey {
  /** The public key, as the proofs embed it. */
  jwk: JWK;
  /** RFC 7638 SHA-256 thumbprint: the `cnf.jkt` a token bound to this key carries. */
  jkt: string;
  /** A fresh proof (new `jti`, current `iat`) for one request with this access token. */
  proof(request: { method: string; url: string; accessToken: string }): string;
  /** Verifies one proof with jose and checks its claims; throws if anything is off. */
  selfCheck(request: { method: string; url: string; accessToken: string }): Promise<void>;
}

const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

export async function createDpopKey(): Promise<DpopKey> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { kty, crv, x, y } = publicKey.export({ format: 'jwk' });
  const jwk: JWK = { kty, crv, x, y } as JWK;
  const jkt = await calculateJwkThumbprint(jwk, 'sha256');
  const header = base64url(JSON.stringify({ typ: 'dpop+jwt', alg: 'ES256', jwk }));
  const proof = (request: { method: string; url: string; accessToken: string }) =>
    signProof(privateKey, header, {
      jti: randomUUID(),
      htm: request.method,
      htu: request.url,
      iat: Math.floor(Date.now() / 1000),
      ath: createHash('sha256').update(request.accessToken, 'ascii').digest('base64url'),
    });
  return {
    jwk,
    jkt,
    proof,
    async selfCheck(request) {
      const { payload, protectedHeader } = await jwtVerify(proof(request), EmbeddedJWK, {
        typ: 'dpop+jwt',
        algorithms: ['ES256'],
      });
      if (payload.htm !== request.method || payload.htu !== request.url) throw new Error('DPoP proof claims differ');
      if ((await calculateJwkThumbprint(protectedHeader.jwk as JWK, 'sha256')) !== jkt) {
        throw new Error('DPoP proof key differs from the bound key');
      }
    },
  };
}

function signProof(privateKey: KeyObject, header: string, payload: Record<string, unknown>): string {
  const input = `${header}.${base64url(JSON.stringify(payload))}`;
  // JWS ES256 wants the raw r‖s signature (IEEE P1363), not DER.
  const signature = sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' });
  return `${input}.${base64url(signature)}`;
}
