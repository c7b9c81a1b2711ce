import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { findOAuthClient } from '@contacts/db';
import { buildOpenApiDocument } from '@contacts/schemas';
import * as jose from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  DPOP_PROOF_MISSING_DETAIL,
  DPOP_PROOF_REPLAYED_DETAIL,
  DPOP_PROOF_UNVERIFIED_DESCRIPTION,
} from '../src/http/dpop-proof-failures';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import {
  aMember,
  anApplication,
  anAuthorizationCode,
  aRefreshToken,
  type TestApplication,
  type TestMember,
} from './support/factories';
import { httpBrowser } from './support/http-browser';
import { discover, introspectAsApi, oauth, refreshAsApp, tokenRequest } from './support/oauth-client';

let server: RunningAuthServer;
beforeAll(async () => {
  server = await startAuthServer();
});
afterAll(async () => server?.stop());

describe('DPoP at the authorization server', () => {
  it('advertises DPoP in its metadata', async () => {
    const as = await discover(server.baseUrl);
    expect(as.dpop_signing_alg_values_supported).toEqual(['ES256', 'Ed25519', 'EdDSA']);
  });

  it('registers a DPoP-required application from the settings form', async () => {
    const member = await aMember(server.database.db);
    const browser = httpBrowser(server.baseUrl);
    await browser.signIn(member.email, member.password);
    for (const [name, fields] of [
      ['Requires DPoP', { dpop_bound_access_tokens: 'on' }],
      ['Plain', {}],
    ] as const) {
      const created = await browser.submit('/settings/applications', '/settings/applications', {
        name,
        redirect_uris: 'http://localhost:4999/callback',
        ...fields,
      });
      expect(created.status).toBe(201);
      const clientId = /id="revealed-client-id">([^<]+)</.exec(created.html)?.[1] as string;
      const row = await findOAuthClient(server.database.db, clientId);
      expect(row?.dpop_bound_access_tokens).toBe(name === 'Requires DPoP');
      const client = await server.auth.provider.Client.find(clientId);
      expect(client?.metadata().dpop_bound_access_tokens).toBe(name === 'Requires DPoP');
    }
  });
});

describe('a DPoP-required client at the token endpoint (RFC 9449 §5.2)', () => {
  let as: oauth.AuthorizationServer;
  let member: TestMember;
  let app: TestApplication;
  beforeAll(async () => {
    as = await discover(server.baseUrl);
    member = await aMember(server.database.db);
    app = await anApplication(server.database.db, { name: 'Requires DPoP', dpop: true });
  });
  const refreshToken = () => aRefreshToken(server.auth.provider, { memberId: member.id, clientId: app.client_id });
  const dpopHandle = async () => oauth.DPoP({}, await oauth.generateKeyPair('ES256'));

  it('names exactly the reason oidc-provider gives for a missing proof (fails when an upgrade changes it)', async () => {
    const main = createRequire(import.meta.url).resolve('oidc-provider');
    const source = await readFile(path.join(path.dirname(main), 'helpers', 'sender_constraints.js'), 'utf8');
    expect(source).toContain(`throw new ErrorClass('${DPOP_PROOF_MISSING_DETAIL}')`);
  });

  it('names exactly the reason oidc-provider gives for a replayed proof (fails when an upgrade changes it)', async () => {
    const main = createRequire(import.meta.url).resolve('oidc-provider');
    const source = await readFile(path.join(path.dirname(main), 'helpers', 'validate_dpop.js'), 'utf8');
    expect(source).toContain(`new ErrorClass('${DPOP_PROOF_REPLAYED_DETAIL}')`);
  });

  it('names exactly the description oidc-provider gives every proof jose refused (fails when an upgrade changes it)', async () => {
    const main = createRequire(import.meta.url).resolve('oidc-provider');
    const source = await readFile(path.join(path.dirname(main), 'helpers', 'validate_dpop.js'), 'utf8');
    expect(source).toContain(`new InvalidDpopProof('${DPOP_PROOF_UNVERIFIED_DESCRIPTION}', { cause })`);
  });

  it('says what is wrong with a proof of an algorithm it does not take, or of another typ (not "key binding")', async () => {
    const refreshWith = async (proof: string) =>
      fetch(as.token_endpoint as string, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', DPoP: proof },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: await refreshToken(),
          client_id: app.client_id,
          client_secret: app.client_secret as string,
        }),
      });
    const signed = async (alg: string, typ: string, sign = alg) => {
      const { privateKey, publicKey } = await jose.generateKeyPair(sign);
      return new jose.SignJWT({ htm: 'POST', htu: as.token_endpoint, jti: randomUUID() })
        .setProtectedHeader({ alg, typ, jwk: await jose.exportJWK(publicKey) })
        .setIssuedAt()
        .sign(privateKey);
    };
    const algorithm =
      'the DPoP proof is signed with an algorithm this server does not accept: sign it with ES256, Ed25519, EdDSA (dpop_signing_alg_values_supported)';
    for (const [what, proof, description] of [
      ['RS256', await signed('RS256', 'dpop+jwt'), algorithm],
      ['PS256', await signed('PS256', 'dpop+jwt'), algorithm],
      ['typ jwt', await signed('ES256', 'jwt'), 'the DPoP proof must have the header typ dpop+jwt'],
    ] as const) {
      const refused = await refreshWith(proof);
      expect(refused.status, what).toBe(400);
      expect(await refused.json(), what).toEqual({ error: 'invalid_dpop_proof', error_description: description });
    }
    // Any other reason jose has (here a signature that does not verify) keeps oidc-provider's words.
    const good = await signed('ES256', 'dpop+jwt');
    const tampered = `${good.slice(0, good.lastIndexOf('.') + 1)}${'A'.repeat(86)}`;
    expect(await (await refreshWith(tampered)).json()).toEqual({
      error: 'invalid_dpop_proof',
      error_description: DPOP_PROOF_UNVERIFIED_DESCRIPTION,
    });
  });

  it('refuses a DPoP proof used before with invalid_dpop_proof, and the refresh token it came with still works', async () => {
    const { privateKey, publicKey } = await jose.generateKeyPair('ES256');
    const proof = await new jose.SignJWT({ htm: 'POST', htu: as.token_endpoint, jti: randomUUID() })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await jose.exportJWK(publicKey) })
      .setIssuedAt()
      .sign(privateKey);
    const refresh = (refreshToken: string) =>
      fetch(as.token_endpoint as string, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', DPoP: proof },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
          client_id: app.client_id,
          client_secret: app.client_secret as string,
        }),
      });
    expect((await refresh(await refreshToken())).status).toBe(200);
    const second = await refreshToken();
    const replayed = await refresh(second);
    expect(replayed.status).toBe(400);
    expect(await replayed.json()).toMatchObject({
      error: 'invalid_dpop_proof',
      error_description: expect.stringContaining('used before'),
    });
    // Not spent: with a new proof, the same refresh token is exchanged.
    const tokens = await refreshAsApp(as, app, second, undefined, await dpopHandle());
    expect(tokens.token_type).toBe('dpop');
  });

  it('refuses a refresh without a DPoP proof with invalid_dpop_proof, saying a proof is required', async () => {
    const refused = await refreshAsApp(as, app, await refreshToken()).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 400, error: 'invalid_dpop_proof' });
    expect((refused as { error_description: string }).error_description).toMatch(/DPoP proof is required/);
  });

  it('refuses a code exchange without a DPoP proof the same way', async () => {
    const code = await anAuthorizationCode(server.auth.provider, {
      memberId: member.id,
      clientId: app.client_id,
      redirectUri: app.redirect_uri,
    });
    const response = await tokenRequest(as, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: app.redirect_uri,
      client_id: app.client_id,
      client_secret: app.client_secret as string,
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_dpop_proof');
    expect(response.body.error_description).toMatch(/DPoP proof is required/);
  });

  it('issues DPoP-bound tokens to a refresh with a proof, and keeps invalid_grant for a bad refresh token', async () => {
    const DPoP = await dpopHandle();
    const tokens = await refreshAsApp(as, app, await refreshToken(), undefined, DPoP);
    expect(tokens.token_type).toBe('dpop');
    const introspected = await introspectAsApi(server, tokens.access_token);
    expect(introspected).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt: expect.any(String) } });
    // As the API document describes it (its cnf and iss included).
    const documented = buildOpenApiDocument({ serverUrl: server.baseUrl, paths: {}, dpopAlgorithms: [] }) as {
      paths: Record<string, { post: { responses: Record<string, { content: Record<string, { schema: object }> }> } }>;
    };
    const schema = documented.paths['/oauth/introspect']?.post.responses['200']?.content['application/json']?.schema;
    expect(
      z.fromJSONSchema({ ...(schema as object), additionalProperties: false }).safeParse(introspected).error?.issues ??
        [],
    ).toEqual([]);
    const unknown = await refreshAsApp(as, app, 'not-a-refresh-token', undefined, DPoP).catch(
      (error: unknown) => error,
    );
    expect(unknown).toMatchObject({ status: 400, error: 'invalid_grant' });
  });

  it('still gives Bearer tokens without a proof to a client that does not require DPoP', async () => {
    const plain = await anApplication(server.database.db, { name: 'Plain' });
    const token = await aRefreshToken(server.auth.provider, { memberId: member.id, clientId: plain.client_id });
    expect((await refreshAsApp(as, plain, token)).token_type).toBe('bearer');
  });
});
