import { findMemberById, type PublicMember } from '@contacts/db';
import Router from '@koa/router';
import type { Context } from 'koa';
import { errors } from 'oidc-provider';
import type { CsrfState } from '../http/csrf';
import { redirectUriRegistered } from '../http/removed-redirect-uri';
import { findApplication } from '../lib/applications';
import { OAUTH_ROUTES } from '../provider/configuration';
import { MEMBER_SIGNED_OUT } from '../provider/member-session-policy';
import { CONTACTS_API_RESOURCE, grantableScopes, scopeDescription } from '../provider/scopes';
import type { AuthServices } from '../services';
import { consentPage } from '../views/consent';
import { cookiesNeededPage, signInOverPage } from '../views/error';
import { signInPage } from '../views/sign-in';
import { formBody } from './form-body';
import { signInFromForm } from './sign-in-form';

/**
 * Reasons for the login prompt that the member's current sign-in to this site answers: there
 * is no provider session yet, or it does not match the member signed in here.
 */
const SIGNED_IN_SUFFICES = new Set(['no_session', MEMBER_SIGNED_OUT]);

/** The addresses under /interaction/:uid that the step's forms post to. */
const INTERACTION_FORM_ACTIONS = ['login', 'abort', 'switch-account', 'confirm'] as const;

/**
 * The member's side of /oauth/authorize: oidc-provider redirects here when it needs a sign-in
 * or a consent. Routes must live under /interaction/:uid, where the interaction cookie is sent.
 */
export function interactionRoutes(services: AuthServices): Router {
  const { provider, db } = services;
  const router = new Router({ prefix: '/interaction/:uid' });
  router.use(interactionErrors(provider.cookieName('interaction')));
  router.use(services.csrf);
  router.use(async (ctx, next) => {
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    // [security] The request was checked when it arrived; the application may have removed its
    // redirect URI since (a consent page left open). oidc-provider does not check it again when
    // the interaction ends, so it would send the code there: the request is made again instead,
    // and the authorization endpoint refuses it as it refuses any request naming that URI.
    if (!(await redirectUriRegistered(provider, String(details.params.client_id), details.params.redirect_uri))) {
      return askAgain(ctx, details);
    }
    (ctx.state as InteractionState).interaction = details;
    return next();
  });

  router.get('/', async (ctx) => {
    const details = interactionOf(ctx);
    const csrfToken = (ctx.state as CsrfState).csrfToken;
    const client = await findApplication(db, String(details.params.client_id));
    if (details.prompt.name === 'login') {
      // Already signed in to this site (for example in the settings pages): no second sign-in,
      // unless the client asked for one (prompt=login, max_age, …).
      const member = await services.memberSessions.current(ctx);
      if (member && details.prompt.reasons.every((reason) => SIGNED_IN_SUFFICES.has(reason))) {
        return provider.interactionFinished(
          ctx.req,
          ctx.res,
          { login: { accountId: String(member.id) } },
          { mergeWithLastSubmission: false },
        );
      }
      ctx.type = 'html';
      ctx.body = signInPage({
        action: `/interaction/${details.uid}/login`,
        cancelAction: `/interaction/${details.uid}/abort`,
        csrfToken,
        applicationName: client?.name,
      });
      return;
    }
    if (details.prompt.name === 'consent') {
      const member = await consentingMember(ctx, services, details);
      if (!member) return askAgain(ctx, details);
      const owner = client?.ownerId === undefined ? undefined : await findMemberById(db, client.ownerId);
      if (!client) throw new errors.SessionNotFound('interaction without a client');
      ctx.type = 'html';
      ctx.body = consentPage({
        action: `/interaction/${details.uid}/confirm`,
        switchAccountAction: `/interaction/${details.uid}/switch-account`,
        csrfToken,
        applicationName: client.name,
        ownerName: client.ownerId === undefined ? undefined : (owner?.name ?? 'a member'),
        member,
        redirectUri: String(details.params.redirect_uri),
        scopes: grantableScopes(details.params.scope).map((scope) => ({
          scope,
          description: scopeDescription(scope),
        })),
      });
      return;
    }
    throw new errors.InvalidRequest(`unexpected prompt ${details.prompt.name}`);
  });

  // A refused sign-in leaves the browser at the address its form posted to: opened again (Enter
  // in the address bar, a restored tab), each step's form address leads back to the step.
  for (const action of INTERACTION_FORM_ACTIONS) {
    router.get(`/${action}`, (ctx) => ctx.redirect(`/interaction/${interactionOf(ctx).uid}`));
  }

  router.post('/login', formBody, async (ctx) => {
    const details = interactionOf(ctx);
    if (details.prompt.name !== 'login') throw new errors.InvalidRequest('this interaction does not expect a sign-in');
    const client = await findApplication(db, String(details.params.client_id));
    const member = await signInFromForm(ctx, services, {
      action: `/interaction/${details.uid}/login`,
      cancelAction: `/interaction/${details.uid}/abort`,
      applicationName: client?.name,
    });
    if (!member) return;
    return provider.interactionFinished(
      ctx.req,
      ctx.res,
      { login: { accountId: String(member.id) } },
      { mergeWithLastSubmission: false },
    );
  });

  // "Cancel" on the sign-in page of an application's request: the member refuses before signing
  // in, and the application hears it as from the consent page's Deny (RFC 6749 §4.1.2.1).
  router.post('/abort', formBody, (ctx) =>
    provider.interactionFinished(
      ctx.req,
      ctx.res,
      { error: 'access_denied', error_description: 'The member cancelled the sign-in.' },
      { mergeWithLastSubmission: false },
    ),
  );

  // "Not you?" on the consent page (a shared computer): this browser is signed out, and the
  // application's request is made again with a sign-in prompt, so that the member who signs in
  // next is asked for the consent. The unanswered interaction expires by itself.
  router.post('/switch-account', formBody, async (ctx) => {
    const details = interactionOf(ctx);
    if (details.prompt.name !== 'consent')
      throw new errors.InvalidRequest('this interaction does not ask for a consent');
    await services.memberSessions.end(ctx);
    askAgain(ctx, details, { signIn: true });
  });

  router.post('/confirm', formBody, async (ctx) => {
    const details = interactionOf(ctx);
    if (details.prompt.name !== 'consent')
      throw new errors.InvalidRequest('this interaction does not expect a consent');
    // [security] A consent page left open across a sign-out (a back button, a session signed out
    // from another browser) decides nothing: the request is asked again, of whoever is signed in now.
    const member = await consentingMember(ctx, services, details);
    if (!member) return askAgain(ctx, details);
    const decision = (ctx.request.body as Record<string, unknown>).decision;
    if (decision !== 'allow') {
      return provider.interactionFinished(
        ctx.req,
        ctx.res,
        { error: 'access_denied', error_description: 'The member denied the request.' },
        { mergeWithLastSubmission: false },
      );
    }
    const accountId = String(member.id);
    const clientId = String(details.params.client_id);
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId, clientId });
    if (!grant) throw new errors.SessionNotFound('the consent to update no longer exists');
    const missing = (details.prompt.details.missingResourceScopes ?? {}) as Record<string, string[]>;
    for (const [resource, scopes] of Object.entries(missing)) grant.addResourceScope(resource, scopes.join(' '));
    if (Object.keys(missing).length === 0)
      grant.addResourceScope(CONTACTS_API_RESOURCE, grantableScopes(details.params.scope).join(' '));
    const grantId = await grant.save();
    await services.audit('consent.granted', {
      memberId: Number(accountId),
      clientId,
      ip: ctx.ip,
      details: { scope: grantableScopes(details.params.scope).join(' ') },
    });
    return provider.interactionFinished(ctx.req, ctx.res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  });

  return router;
}

type InteractionDetails = Awaited<ReturnType<AuthServices['provider']['interactionDetails']>>;
interface InteractionState {
  interaction: InteractionDetails;
}

/** The interaction of the request, as the router's first middleware loaded it. */
const interactionOf = (ctx: Context): InteractionDetails => (ctx.state as InteractionState).interaction;

/**
 * [security] The member a consent is asked of: the one the interaction signed in, and only while
 * that member is still the one signed in to this site in this browser. oidc-provider carries the
 * sign-in of the interaction's login step over to its consent step by itself, so without this a
 * consent page left open after signing out (or after signing in as someone else) would still
 * issue a code for the member who left.
 */
async function consentingMember(
  ctx: Context,
  services: AuthServices,
  details: InteractionDetails,
): Promise<PublicMember | undefined> {
  const accountId = details.session?.accountId;
  const member = accountId ? await services.memberSessions.current(ctx) : undefined;
  return member && String(member.id) === accountId ? member : undefined;
}

/**
 * Makes the application's request again (its parameters, state included): oidc-provider then
 * asks for a sign-in when the browser's sign-in no longer matches (member-session-policy.ts), or
 * with `signIn` in any case (prompt=login). The unanswered interaction expires by itself.
 */
function askAgain(ctx: Context, details: InteractionDetails, options: { signIn?: boolean } = {}): void {
  const request = new URLSearchParams();
  for (const [name, value] of Object.entries(details.params)) if (typeof value === 'string') request.set(name, value);
  if (options.signIn) {
    const prompts = new Set((request.get('prompt') ?? '').split(' ').filter(Boolean)).add('login');
    request.set('prompt', [...prompts].join(' '));
  }
  ctx.status = 303;
  ctx.redirect(`${OAUTH_ROUTES.authorization}?${request}`);
}

/**
 * An interaction that is over (answered, expired) or whose cookie is missing: a page that says
 * so, never a stack trace. A request without the interaction's cookie nor the CSRF seed (which
 * every page of the interaction sets) comes from a browser that blocks cookies: it is told that
 * signing in needs them, which no number of new attempts would otherwise reveal.
 */
function interactionErrors(interactionCookie: string) {
  return async function answerClosedInteraction(ctx: Context, next: () => Promise<unknown>) {
    try {
      await next();
    } catch (error) {
      const name = (error as Error).name;
      ctx.status = name === 'SessionNotFound' ? 400 : ((error as { status?: number }).status ?? 500);
      if (ctx.status >= 500) throw error;
      ctx.type = 'html';
      const state = ctx.state as Partial<CsrfState>;
      const noCookies = state.csrfSeedMissing === true && !ctx.cookies.get(interactionCookie);
      ctx.body =
        name === 'SessionNotFound' && noCookies && state.cookieHost
          ? cookiesNeededPage(state.cookieHost, 'go back to the application and start again.')
          : signInOverPage();
    }
  };
}
