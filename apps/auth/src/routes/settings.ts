import { isRowId, listAuditEventsOf, type PublicMember } from '@contacts/db';
import Router from '@koa/router';
import type { Context, Next } from 'koa';
import type { CsrfState } from '../http/csrf';
import { listAuthorizedApplications } from '../lib/applications';
import { revokeAuthorizedApp } from '../lib/authorized-apps';
import { currentMember } from '../lib/member-sessions';
import { PERSONAL_TOKEN_MAX_DAYS } from '../lib/personal-tokens';
import { deleteClient, listClients, registerClient, rotateClientSecret } from '../lib/registered-applications';
import { InputError } from '../lib/validation';
import type { AuthServices } from '../services';
import { html } from '../views/html';
import { applicationsPage, authorizedAppsPage, type SettingsFrame, securityPage, tokensPage } from '../views/settings';
import { formBody } from './form-body';

interface SettingsState extends CsrfState {
  member: PublicMember;
}

/** The signed-in member's developer settings: applications, personal tokens, authorized apps. */
export function settingsRoutes(services: AuthServices): Router {
  const { db, personalTokens: tokens, audit, clients } = services;
  const router = new Router({ prefix: '/settings' });
  router.use(services.csrf);

  router.use(async (ctx: Context, next: Next) => {
    const member = await currentMember(ctx, db);
    if (!member) {
      ctx.redirect(`/login?return_to=${encodeURIComponent(ctx.path)}`);
      return;
    }
    (ctx.state as SettingsState).member = member;
    await next();
  });

  const frame = (ctx: Context, extra: Partial<SettingsFrame> = {}): SettingsFrame => {
    const state = ctx.state as SettingsState;
    return { member: state.member, csrfToken: state.csrfToken, ...extra };
  };
  const memberId = (ctx: Context) => (ctx.state as SettingsState).member.id;
  const body = (ctx: Context) => ctx.request.body as Record<string, unknown>;

  /** Runs a change; an InputError re-renders the page with the message and status 422. */
  const attempt = async (
    ctx: Context,
    render: (extra: Partial<SettingsFrame>) => Promise<string>,
    work: () => Promise<Partial<SettingsFrame>>,
  ) => {
    let extra: Partial<SettingsFrame>;
    try {
      extra = await work();
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      ctx.status = 422;
      extra = { error: error.message };
    }
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await render(extra);
  };

  const applications = (ctx: Context) => async (extra: Partial<SettingsFrame>) =>
    applicationsPage({ ...frame(ctx, extra), clients: await listClients(db, memberId(ctx)) });
  const tokenList = (ctx: Context) => async (extra: Partial<SettingsFrame>) =>
    tokensPage({ ...frame(ctx, extra), tokens: await tokens.list(memberId(ctx)), maxDays: PERSONAL_TOKEN_MAX_DAYS });
  const authorizedApps = (ctx: Context) => async (extra: Partial<SettingsFrame>) =>
    authorizedAppsPage({ ...frame(ctx, extra), grants: await listAuthorizedApplications(db, memberId(ctx)) });

  router.get('/applications', (ctx) => attempt(ctx, applications(ctx), async () => ({})));
  router.post('/applications', formBody, (ctx) =>
    attempt(ctx, applications(ctx), async () => {
      const client = await registerClient(db, {
        ownerId: memberId(ctx),
        name: body(ctx).name,
        redirectUris: body(ctx).redirect_uris,
        // [security] DPoP-required checkbox
        dpopBound: body(ctx).dpop_bound_access_tokens === 'on',
      });
      await audit('application.created', { memberId: memberId(ctx), clientId: client.client_id, ip: ctx.ip });
      ctx.status = 201;
      return {
        revealed: {
          label: 'Client secret',
          value: client.client_secret ?? '',
          extra: html`<p>Client ID: <code id="revealed-client-id">${client.client_id}</code></p>`,
        },
      };
    }),
  );
  router.post('/applications/:clientId/rotate-secret', formBody, (ctx) =>
    attempt(ctx, applications(ctx), async () => {
      const client = await rotateClientSecret(db, memberId(ctx), ctx.params.clientId as string);
      clients.forget(client.client_id);
      await audit('application.secret_rotated', { memberId: memberId(ctx), clientId: client.client_id, ip: ctx.ip });
      return { revealed: { label: 'New client secret', value: client.client_secret ?? '' } };
    }),
  );
  router.post('/applications/:clientId/delete', formBody, (ctx) =>
    attempt(ctx, applications(ctx), async () => {
      await deleteClient(db, memberId(ctx), ctx.params.clientId as string);
      clients.forget(ctx.params.clientId as string);
      await audit('application.deleted', { memberId: memberId(ctx), clientId: ctx.params.clientId, ip: ctx.ip });
      return {};
    }),
  );

  router.get('/tokens', (ctx) => attempt(ctx, tokenList(ctx), async () => ({})));
  router.post('/tokens', formBody, (ctx) =>
    attempt(ctx, tokenList(ctx), async () => {
      const created = await tokens.create(memberId(ctx), {
        name: body(ctx).name,
        scopes: body(ctx).scopes ?? [],
        days: body(ctx).days,
      });
      await audit('personal_token.created', {
        memberId: memberId(ctx),
        ip: ctx.ip,
        details: { token_id: created.id, expires_at: created.expires_at },
      });
      ctx.status = 201;
      return { revealed: { label: 'Personal access token', value: created.token } };
    }),
  );
  router.post('/tokens/:id/revoke', formBody, (ctx) =>
    attempt(ctx, tokenList(ctx), async () => {
      const id = Number(ctx.params.id);
      if (!isRowId(id)) throw new InputError('No such token.', 'id');
      await tokens.revoke(memberId(ctx), id);
      await audit('personal_token.revoked', { memberId: memberId(ctx), ip: ctx.ip, details: { token_id: id } });
      return {};
    }),
  );

  router.get('/authorized-apps', (ctx) => attempt(ctx, authorizedApps(ctx), async () => ({})));
  router.post('/authorized-apps/:clientId/revoke', formBody, (ctx) =>
    attempt(ctx, authorizedApps(ctx), async () => {
      if (await revokeAuthorizedApp(db, memberId(ctx), ctx.params.clientId as string)) {
        await audit('consent.revoked', { memberId: memberId(ctx), clientId: ctx.params.clientId, ip: ctx.ip });
      }
      return {};
    }),
  );

  router.get('/security', async (ctx) => {
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    ctx.body = securityPage({ ...frame(ctx), events: await listAuditEventsOf(db, memberId(ctx)) });
  });

  return router;
}
