import { randomBytes } from 'node:crypto';
import { isRowId, listAuditEventsOf, type PublicMember, SECURITY_LOG_LENGTH } from '@contacts/db';
import Router from '@koa/router';
import type { Context, Next } from 'koa';
import type { CsrfState } from '../http/csrf';
import { listAuthorizedApplications, registerApplicationFromForm } from '../lib/applications';
import { revokeAuthorizedApp } from '../lib/authorized-apps';
import { secretVersion } from '../lib/client-secrets';
import { PERSONAL_TOKEN_MAX_DAYS } from '../lib/personal-tokens';
import {
  deleteClient,
  findClientOf,
  listClients,
  rotateClientSecret,
  updateClient,
} from '../lib/registered-applications';
import { InputError } from '../lib/validation';
import type { AuthServices } from '../services';
import { html } from '../views/html';
import { type NoticeCode, noticeLocation, noticeText, tabPageOf } from '../views/layout';
import {
  applicationEditPage,
  applicationsPage,
  authorizedAppsPage,
  type Confirmation,
  confirmationPage,
  type SettingsFrame,
  securityPage,
  tokensPage,
} from '../views/settings';
import { formBody } from './form-body';
import { sendToSignIn } from './sign-in';

interface SettingsState extends CsrfState {
  member: PublicMember;
}

type Section = 'applications' | 'tokens' | 'authorized-apps';

/** A change that reveals nothing answers 303 See Other to its section's page, with this notice. */
interface SeeOther<S extends Section> {
  seeOther: NoticeCode<S>;
}

/** A create form's one-time id: 128 random bits, base64url. */
const FORM_ID = /^[A-Za-z0-9_-]{22}$/;
const newFormId = () => randomBytes(16).toString('base64url');

function requireFormId(value: unknown): string {
  if (typeof value === 'string' && FORM_ID.test(value)) return value;
  throw new InputError('This form is out of date: it was reloaded, fill it in again.', 'form_id');
}

/**
 * The signed-in member's developer settings: applications, personal tokens, authorized apps.
 * Post/Redirect/Get: a change that reveals no secret answers 303 to its section's page, so that
 * reloading or going Back does not repeat it. Registering an application, creating a token and
 * rotating a secret answer with the secret (shown once, stored only hashed); their forms carry
 * what makes a second submission harmless (a one-time form id, the version of the secret).
 * A change that cannot be undone (rotate a secret, delete an application, revoke a token or an
 * app's access) is asked first: the list links to a page that says what it does (confirmFirst).
 */
export function settingsRoutes(services: AuthServices): Router {
  const { db, personalTokens: tokens, audit, clients } = services;
  const router = new Router({ prefix: '/settings' });
  router.use(services.csrf);

  router.use(async (ctx: Context, next: Next) => {
    const member = await services.memberSessions.current(ctx);
    if (!member) {
      sendToSignIn(ctx);
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

  const pages: Record<Section, (ctx: Context, extra: Partial<SettingsFrame>) => Promise<string>> = {
    applications: async (ctx, extra) =>
      applicationsPage({ ...frame(ctx, extra), formId: newFormId(), clients: await listClients(db, memberId(ctx)) }),
    tokens: async (ctx, extra) =>
      tokensPage({
        ...frame(ctx, extra),
        formId: newFormId(),
        tokens: await tokens.list(memberId(ctx)),
        maxDays: PERSONAL_TOKEN_MAX_DAYS,
      }),
    'authorized-apps': async (ctx, extra) =>
      authorizedAppsPage({ ...frame(ctx, extra), grants: await listAuthorizedApplications(db, memberId(ctx)) }),
  };

  const show = async (ctx: Context, section: Section, extra: Partial<SettingsFrame>) => {
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await pages[section](ctx, extra);
  };

  /** A section's page, with the notice of the change that redirected here. */
  const view = (section: Section) => (ctx: Context) =>
    show(ctx, section, { notice: noticeText(section, ctx.query.notice) });

  /**
   * Runs a change: a redirect to the section's page, or the page with what the change reveals;
   * an InputError re-renders the page with the message and status 422.
   */
  const attempt = async <S extends Section>(
    ctx: Context,
    section: S,
    work: () => Promise<Partial<SettingsFrame> | SeeOther<S>>,
  ) => {
    let outcome: Partial<SettingsFrame> | SeeOther<S>;
    try {
      outcome = await work();
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      ctx.status = 422;
      outcome = { error: error.message, refused: { field: error.field, input: body(ctx) } };
    }
    if ('seeOther' in outcome) {
      ctx.status = 303;
      ctx.redirect(noticeLocation(section, outcome.seeOther));
      return;
    }
    await show(ctx, section, outcome);
  };

  /** An action's address left in the address bar (or bookmarked) opens its section instead of a 405. */
  const toSection = (ctx: Context) => ctx.redirect(tabPageOf(ctx.path));

  /**
   * The GET of a change that cannot be undone asks first: a page that says what it does, whose
   * form (CSRF token, the change's own fields) makes it, with Cancel back to the section. The
   * address of an item that is gone, or not the member's, opens the section (toSection).
   */
  const confirmFirst =
    (ask: (ctx: Context) => Promise<Omit<Confirmation, 'cancel'> | undefined>) => async (ctx: Context) => {
      const confirmation = await ask(ctx);
      if (!confirmation) return toSection(ctx);
      ctx.type = 'html';
      ctx.set('Cache-Control', 'no-store');
      ctx.body = confirmationPage({ ...frame(ctx), confirmation: { ...confirmation, cancel: tabPageOf(ctx.path) } });
    };

  router.get('/applications', view('applications'));
  router.post('/applications', formBody, (ctx) =>
    attempt(ctx, 'applications', async () => {
      const isPublic = body(ctx).client_type === 'public';
      const client = await registerApplicationFromForm(db, {
        ownerId: memberId(ctx),
        formId: requireFormId(body(ctx).form_id),
        name: body(ctx).name,
        redirectUris: body(ctx).redirect_uris,
        isPublic,
        // [security] DPoP-required checkbox
        dpopBound: body(ctx).dpop_bound_access_tokens === 'on',
      });
      if (!client) return { seeOther: isPublic ? 'already_registered_public' : 'already_registered' };
      await audit('application.created', { memberId: memberId(ctx), clientId: client.client_id, ip: ctx.ip });
      ctx.status = 201;
      const clientIdLine = html`<p>Client ID: <code id="revealed-client-id">${client.client_id}</code></p>`;
      // A public client has no secret: its id is all there is to copy (and it can be seen again).
      if (client.client_secret === undefined) return { registered: clientIdLine };
      return { revealed: { label: 'Client secret', value: client.client_secret, extra: clientIdLine } };
    }),
  );
  /** An application's edit form; the member's own applications only (404 otherwise). */
  const showEditForm = async (ctx: Context, extra: Partial<SettingsFrame> = {}) => {
    const client = await findClientOf(db, memberId(ctx), ctx.params.clientId as string);
    if (!client) {
      ctx.status = 404;
      return;
    }
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    ctx.body = applicationEditPage({ ...frame(ctx, extra), client });
  };
  router.get('/applications/:clientId', (ctx) => showEditForm(ctx));
  router.post('/applications/:clientId', formBody, async (ctx) => {
    const clientId = ctx.params.clientId as string;
    try {
      await updateClient(db, memberId(ctx), clientId, { name: body(ctx).name, redirectUris: body(ctx).redirect_uris });
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      ctx.status = 422;
      await showEditForm(ctx, { error: error.message, refused: { field: error.field, input: body(ctx) } });
      return;
    }
    clients.forget(clientId);
    await audit('application.updated', { memberId: memberId(ctx), clientId, ip: ctx.ip });
    ctx.status = 303;
    ctx.redirect(noticeLocation('applications', 'updated'));
  });
  router.post('/applications/:clientId/rotate-secret', formBody, (ctx) =>
    attempt(ctx, 'applications', async () => {
      const clientId = ctx.params.clientId as string;
      const seenVersion = body(ctx).secret_version;
      if (typeof seenVersion !== 'string' || seenVersion === '') {
        throw new InputError('This form is out of date: reload the page and try again.', 'secret_version');
      }
      const rotated = await rotateClientSecret(db, memberId(ctx), clientId, seenVersion);
      if (!rotated) return { seeOther: 'already_rotated' };
      clients.forget(clientId);
      await audit('application.secret_rotated', { memberId: memberId(ctx), clientId, ip: ctx.ip });
      // Which application the secret is for: a member with several must not paste it into another.
      const client = await findClientOf(db, memberId(ctx), clientId);
      const name = client?.name ?? 'the application';
      const forLine = html`<p>For ${name} (client ID: <code id="revealed-client-id">${clientId}</code>)</p>
        <p>The old secret no longer works, and every token issued to ${name} was revoked: members who had authorized it must authorize it again.</p>`;
      return { revealed: { label: 'New client secret', value: rotated.client_secret ?? '', extra: forLine } };
    }),
  );
  router.post('/applications/:clientId/delete', formBody, (ctx) =>
    attempt(ctx, 'applications', async () => {
      const deleted = await deleteClient(db, memberId(ctx), ctx.params.clientId as string);
      clients.forget(ctx.params.clientId as string);
      // The name, which the security log can no longer look up.
      await audit('application.deleted', {
        memberId: memberId(ctx),
        clientId: ctx.params.clientId,
        ip: ctx.ip,
        details: { client_name: deleted.name },
      });
      return { seeOther: 'deleted' };
    }),
  );
  router.get(
    '/applications/:clientId/rotate-secret',
    confirmFirst(async (ctx) => {
      const client = await findClientOf(db, memberId(ctx), ctx.params.clientId as string);
      if (!client || client.is_public || !client.secret_hash) return undefined;
      return {
        section: 'applications',
        title: `Rotate the secret of ${client.name}?`,
        consequences: [
          `A new secret is made and shown once. The current secret stops working at once, and every token issued to ${client.name} is revoked: every member using it is signed out of it and must authorize it again.`,
          "Put the new secret into the application's configuration straight away.",
        ],
        action: `/settings/applications/${client.client_id}/rotate-secret`,
        // The version this page saw: the form posted twice (a reload) rotates once.
        fields: { secret_version: secretVersion(client.secret_hash) },
        confirmLabel: 'Rotate secret',
      };
    }),
  );
  router.get(
    '/applications/:clientId/delete',
    confirmFirst(async (ctx) => {
      const client = await findClientOf(db, memberId(ctx), ctx.params.clientId as string);
      if (!client) return undefined;
      return {
        section: 'applications',
        title: `Delete ${client.name}?`,
        consequences: [
          'Its client ID and secret stop working, and every token, code and consent issued to it is revoked at once: every member using it loses access. This cannot be undone.',
        ],
        action: `/settings/applications/${client.client_id}/delete`,
        confirmLabel: 'Delete application',
      };
    }),
  );

  router.get('/tokens', view('tokens'));
  router.post('/tokens', formBody, (ctx) =>
    attempt(ctx, 'tokens', async () => {
      const created = await tokens.createFromForm(memberId(ctx), requireFormId(body(ctx).form_id), {
        name: body(ctx).name,
        scopes: body(ctx).scopes ?? [],
        days: body(ctx).days,
      });
      if (!created) return { seeOther: 'already_created' };
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
    attempt(ctx, 'tokens', async () => {
      const id = Number(ctx.params.id);
      if (!isRowId(id)) throw new InputError('No such token.', 'id');
      if (await tokens.revoke(memberId(ctx), id)) {
        await audit('personal_token.revoked', { memberId: memberId(ctx), ip: ctx.ip, details: { token_id: id } });
      }
      return { seeOther: 'revoked' };
    }),
  );
  router.get(
    '/tokens/:id/revoke',
    confirmFirst(async (ctx) => {
      const id = Number(ctx.params.id);
      if (!isRowId(id)) return undefined;
      const token = (await tokens.list(memberId(ctx))).find((candidate) => candidate.id === id);
      if (!token || token.revoked_at || token.expires_at < new Date()) return undefined;
      return {
        section: 'tokens',
        title: `Revoke the token ${token.name}?`,
        consequences: [
          'Every script or program using it stops working at once. This cannot be undone: create a new token to carry on.',
        ],
        action: `/settings/tokens/${token.id}/revoke`,
        confirmLabel: 'Revoke token',
      };
    }),
  );

  router.get('/authorized-apps', view('authorized-apps'));
  router.post('/authorized-apps/:clientId/revoke', formBody, (ctx) =>
    attempt(ctx, 'authorized-apps', async () => {
      if (await revokeAuthorizedApp(db, memberId(ctx), ctx.params.clientId as string)) {
        await audit('consent.revoked', { memberId: memberId(ctx), clientId: ctx.params.clientId, ip: ctx.ip });
      }
      return { seeOther: 'revoked' };
    }),
  );
  router.get(
    '/authorized-apps/:clientId/revoke',
    confirmFirst(async (ctx) => {
      const clientId = ctx.params.clientId as string;
      const grant = (await listAuthorizedApplications(db, memberId(ctx))).find((row) => row.client_id === clientId);
      if (!grant) return undefined;
      return {
        section: 'authorized-apps',
        title: `Revoke the access of ${grant.client_name}?`,
        consequences: [
          'Its tokens stop working at once: it can no longer see or change your contacts, until you authorize it again.',
        ],
        action: `/settings/authorized-apps/${grant.client_id}/revoke`,
        confirmLabel: 'Revoke access',
      };
    }),
  );

  router.get('/security', async (ctx) => {
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    const events = await listAuditEventsOf(db, memberId(ctx));
    ctx.body = securityPage({ ...frame(ctx), events, length: SECURITY_LOG_LENGTH });
  });

  return router;
}
