export { type AuthServer, createAuthServer } from './app';
export { type AuthConfig, loadAuthConfig } from './config';
export { resetPassword } from './lib/account-security';
export { listAuthorizedApplications } from './lib/applications';
export { type Audit, auditTrail } from './lib/audit';
export * from './lib/business-categories';
export * from './lib/groups';
export * from './lib/members';
export { hashSecret, verifySecret } from './lib/passwords';
export { type CreatedPersonalToken, PERSONAL_TOKEN_MAX_DAYS, type PersonalTokens } from './lib/personal-tokens';
export {
  deleteClient,
  registerClient,
  rotateClientSecret,
  updateClient,
  validateRedirectUri,
} from './lib/registered-applications';
export { signInGuard, unlockSignIn } from './lib/sign-in-guard';
export { InputError, requirePassword } from './lib/validation';
export { CONTACTS_API_RESOURCE, SCOPE_DESCRIPTIONS, SUPPORTED_SCOPES } from './provider/scopes';
