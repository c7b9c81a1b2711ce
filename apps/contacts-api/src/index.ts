export { type ContactsApi, createContactsApi } from './app';
export { type ContactsApiConfig, introspectionCredentials, loadContactsApiConfig } from './config';
