export { type ContactsApi, createContactsApi } from './app';
export { type ContactsApiConfig, loadContactsApiConfig } from './config';
