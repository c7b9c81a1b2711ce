/**
 * The services' names, as their /healthz answers, metrics and logs give them. The contacts API
 * reads the auth server's from its /healthz to tell it reached the authorization server.
 */
export const SERVICE_NAMES = { auth: 'auth', contactsApi: 'contacts-api' } as const;
