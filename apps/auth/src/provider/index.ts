import { ConfigError } from '@contacts/config';
import Provider, { type Configuration } from 'oidc-provider';
import { clientSecretMatches } from '../lib/client-secrets';
import { type ProviderDependencies, providerConfiguration } from './configuration';
import { logProviderEvents } from './events';
import { teachScopeInclusion } from './scope-inclusion';

/** `configure` adjusts the configuration before use (the benchmarks swap in an in-memory adapter). */
export function createProvider(
  dependencies: ProviderDependencies,
  configure: (configuration: Configuration) => Configuration = (configuration) => configuration,
): Provider {
  const provider = constructed(
    () => new Provider(dependencies.config.issuer, configure(providerConfiguration(dependencies))),
  );
  provider.proxy = true;
  // client_secret holds a hash (see provider/client-metadata.ts), so secrets are compared by hash.
  provider.Client.prototype.compareClientSecret = async function compareClientSecret(actual: string) {
    return typeof this.clientSecret === 'string' && clientSecretMatches(this.clientSecret, actual);
  };
  teachScopeInclusion(provider);
  logProviderEvents(provider, dependencies.logger);
  return provider;
}

/**
 * [security] oidc-provider refuses a configuration it cannot use (the signing keys, above all)
 * with an error whose `cause` is the offending value: a private key, printed in full by the stack
 * trace. config.ts checks JWKS as oidc-provider does; anything it still refuses is one line,
 * without the cause.
 */
function constructed(create: () => Provider): Provider {
  try {
    return create();
  } catch (error) {
    throw new ConfigError(`oidc-provider refused its configuration (check JWKS): ${(error as Error).message}`);
  }
}
