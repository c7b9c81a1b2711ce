import { integerFrom, urlFrom } from '@contacts/config';

/** What `pnpm start` reads itself; each service validates the rest (loadAuthConfig, loadContactsApiConfig). */
export interface PlatformSettings {
  port: number;
  publicUrl: string;
  /** The services' environment: one base URL for both, the auth server reached in-process. */
  env: NodeJS.ProcessEnv;
}

/** Throws ConfigError naming the variable when PORT or a URL is malformed. */
export function platformSettingsFrom(env: NodeJS.ProcessEnv): PlatformSettings {
  const port = integerFrom(env, 'PORT', 3000);
  const publicUrl = urlFrom(env, 'PUBLIC_URL', `http://localhost:${port}`);
  return {
    port,
    publicUrl,
    env: {
      ...env,
      PORT: String(port),
      PUBLIC_URL: publicUrl,
      AUTH_URL: publicUrl,
      AUTH_INTERNAL_URL: urlFrom(env, 'AUTH_INTERNAL_URL', `http://127.0.0.1:${port}`),
    },
  };
}

/** CLI_DEBUG=1: an unexpected error prints its stack, not only its message. */
export function wantsStackTraces(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.CLI_DEBUG);
}
