import type { Logger } from '@contacts/config';
import type { Middleware } from 'koa';
import { errorEnvelope } from '../../http/errors';
import type { RouteDependencies } from '../context';
import { contactRoutesV3 } from './contacts';
import { deprecationHeaders, setDeprecationHeaders } from './deprecation';
import { laravelErrorBodies } from './errors';

/**
 * The whole deprecated v3 API as one middleware owning every path under /v3: the deprecation
 * headers on every answer (errors, 401s, 404s and 405s included), Laravel-style error bodies
 * over the shared error mapping, then the v3 routes. Other paths pass through untouched.
 */
export function v3Api(dependencies: RouteDependencies & { logger: Logger }): Middleware {
  const router = contactRoutesV3(dependencies);
  const headers = deprecationHeaders(dependencies.publicUrl);
  const chain = compose([
    laravelErrorBodies(),
    errorEnvelope(dependencies.logger),
    router.routes() as Middleware,
    router.allowedMethods() as Middleware,
  ]);
  return async (ctx, next) => {
    if (ctx.path !== '/v3' && !ctx.path.startsWith('/v3/')) return next();
    setDeprecationHeaders(ctx, headers);
    await chain(ctx, async () => {});
  };
}

function compose(middleware: Middleware[]): Middleware {
  return (ctx, next) => {
    const dispatch = async (index: number): Promise<void> => {
      const current = middleware[index];
      if (!current) return next();
      await current(ctx, () => dispatch(index + 1));
    };
    return dispatch(0);
  };
}
