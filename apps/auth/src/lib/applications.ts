import { API_DOCS_CLIENT_ID } from '@contacts/config';
import {
  type Database,
  findOAuthClient,
  findOAuthClientByFormId,
  isDuplicateFormId,
  listGrantsOfMember,
  type MemberGrantRow,
  setOAuthClientFormId,
} from '@contacts/db';
import { API_DOCS_CLIENT_NAME } from './api-docs-client';
import { type RegisteredClient, registerClient } from './registered-applications';

/** What the member is shown about an application: its name and, unless built in, its owner. */
export interface ApplicationSummary {
  name: string;
  /** undefined for a client built into this service (the API documentation). */
  ownerId: number | undefined;
}

/** A registered application, or the built-in docs client; undefined for an unknown client id. */
export async function findApplication(db: Database, clientId: string): Promise<ApplicationSummary | undefined> {
  if (clientId === API_DOCS_CLIENT_ID) return { name: API_DOCS_CLIENT_NAME, ownerId: undefined };
  const row = await findOAuthClient(db, clientId);
  return row ? { name: row.name, ownerId: row.owner_id } : undefined;
}

/** The applications the member approved, the built-in docs client among them. */
export function listAuthorizedApplications(db: Database, memberId: number): Promise<MemberGrantRow[]> {
  return listGrantsOfMember(db, String(memberId), { [API_DOCS_CLIENT_ID]: API_DOCS_CLIENT_NAME });
}

/**
 * Registers an application from the settings form whose one-time id is `formId`; undefined when
 * that form already registered one (a reload or Back posts it again), whose secret is not shown
 * again. The form id is stored on the application's row, in the transaction that creates it, so
 * that of two submissions at once only one commits.
 */
export async function registerApplicationFromForm(
  db: Database,
  input: {
    ownerId: number;
    formId: string;
    name: unknown;
    redirectUris: unknown;
    isPublic: boolean;
    dpopBound: boolean;
  },
): Promise<RegisteredClient | undefined> {
  if (await findOAuthClientByFormId(db, input.ownerId, input.formId)) return undefined;
  try {
    return await db.transaction(async (trx) => {
      const client = await registerClient(trx, input);
      await setOAuthClientFormId(trx, client.client_id, input.formId);
      return client;
    });
  } catch (error) {
    if (isDuplicateFormId(error)) return undefined;
    throw error;
  }
}
