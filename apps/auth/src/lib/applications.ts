import { API_DOCS_CLIENT_ID } from '@contacts/config';
import { type Database, findOAuthClient, listGrantsOfMember, type MemberGrantRow } from '@contacts/db';
import { API_DOCS_CLIENT_NAME } from './api-docs-client';

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
