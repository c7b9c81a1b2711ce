import type { Configuration } from 'oidc-provider';
import { errorPage } from '../views/error';

/**
 * What a browser sees when an authorization request cannot be sent back to the application
 * (unknown client, redirect URI not registered, …). It must not redirect anywhere.
 */
export const renderErrorPage: NonNullable<Configuration['renderError']> = async (ctx, out) => {
  ctx.type = 'html';
  const description = out.error_description ?? 'The request could not be processed.';
  ctx.body = errorPage('Something is wrong with this request', `${out.error}: ${description}`);
};
