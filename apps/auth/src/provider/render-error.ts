import type { Configuration } from 'oidc-provider';
import { errorPage } from '../views/error';

/**
 * What a browser sees when an authorization request cannot be sent back to the application
 * (unknown client, redirect URI not registered, …). It must not redirect anywhere.
 */
export const renderErrorPage: NonNullable<Configuration['renderError']> = async (ctx, out) => {
  ctx.type = 'html';
  const description = out.error_description ?? 'The request could not be processed.';
  ctx.body = errorPage(
    'Something is wrong with this request',
    MEMBER_WORDS[out.error] ?? "The application's request could not be processed, so nothing was shared with it.",
    `For the developer of the application: ${out.error}: ${description}`,
  );
};

/** What a member who followed an application's link is told, by OAuth error; the code follows for its developer. */
const MEMBER_WORDS: Record<string, string> = {
  invalid_client:
    'This application is not registered here, or no longer is. If a link brought you here, tell whoever runs the application.',
  invalid_redirect_uri:
    'The application asked to send you back to an address it has not registered, so the request was stopped and nothing was shared.',
  invalid_request: "The application's request is incomplete or malformed, so nothing was shared with it.",
};
