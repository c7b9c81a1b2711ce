import { type Database, findMemberByEmail, findSignInMember, insertMember, type PublicMember } from '@contacts/db';
import { decoyHash, hashSecret, verifySecret } from './passwords';
import { InputError, requireEmail, requirePassword, requireText } from './validation';

/** Members: registration (by an operator, from the CLI) and sign-in by e-mail and password. */
export async function registerMember(
  db: Database,
  input: { email: unknown; name: unknown; password: unknown },
): Promise<PublicMember> {
  const email = requireEmail(input.email);
  const name = requireText(input.name, 'name', 'Name');
  const password = requirePassword(input.password);
  if (await findMemberByEmail(db, email))
    throw new InputError('A member with this e-mail address already exists.', 'email');
  try {
    return await insertMember(db, { email, name, password_hash: await hashSecret(password) });
  } catch (error) {
    if ((error as { code?: string }).code === '23505')
      throw new InputError('A member with this e-mail address already exists.', 'email');
    throw error;
  }
}

/** The member whose e-mail and password these are; the same (undefined) for an unknown e-mail and a wrong password. */
export async function authenticateMember(
  db: Database,
  email: string,
  password: string,
): Promise<PublicMember | undefined> {
  const checked = await checkMemberPassword(db, email, password);
  return checked?.disabled === false ? checked.member : undefined;
}

/**
 * The member whose e-mail and password these are, and whether an operator disabled them;
 * undefined for an unknown e-mail and a wrong password alike (one hash checked either way).
 */
export async function checkMemberPassword(
  db: Database,
  email: string,
  password: string,
): Promise<{ member: PublicMember; disabled: boolean } | undefined> {
  const member = await findSignInMember(db, email.trim());
  const valid = await verifySecret(member?.password_hash ?? (await decoyHash()), password);
  if (!member || !valid) return undefined;
  return { member: { id: member.id, email: member.email, name: member.name }, disabled: member.disabled_at !== null };
}
