export { type AuthServer, createAuthServer } from './app';
export { type AuthConfig, loadAuthConfig } from './config';
export { type Audit, auditTrail } from './lib/audit';
export { deleteClient, registerClient, rotateClientSecret, validateRedirectUri } from './lib/clients';
export * from './lib/members';
export { hashSecret, verifySecret } from './lib/passwords';
export { type CreatedPersonalToken, PERSONAL_TOKEN_MAX_DAYS, type PersonalTokens } from './lib/personal-tokens';
export { InputError, requirePassword } from './lib/validation';
export { CONTACTS_API_RESOURCE, SCOPE_DESCRIPTIONS, SUPPORTED_SCOPES } from './provider/scopes';
