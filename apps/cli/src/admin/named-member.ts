import { type Database, findMemberRecord, findMemberRecordByEmail, type MemberRecord } from '@contacts/db';
import { UsageError } from '../cli-context';
import type { CommandValues } from '../commands/index';
import { rowIdFlag } from '../flags';

/**
 * The member `--<flag>` names, disabled or not: by id, or by e-mail address (what a member asking
 * for help gives), compared as at sign-in (case-insensitive, composed). A usage error when there
 * is none.
 */
export async function namedMember(db: Database, values: CommandValues, flag: string): Promise<MemberRecord> {
  const raw = values[flag];
  if (typeof raw === 'string' && raw.includes('@')) {
    const member = await findMemberRecordByEmail(db, raw.trim());
    if (!member) throw new UsageError(`no member has the e-mail address ${JSON.stringify(raw.trim())}`);
    return member;
  }
  if (typeof raw !== 'string' || !/^\d+$/.test(raw)) {
    throw new UsageError(`--${flag} must be a member's id or e-mail address, not ${JSON.stringify(raw)}`);
  }
  const id = rowIdFlag(values, flag);
  const member = await findMemberRecord(db, id);
  if (!member) throw new UsageError(`no member has id ${id}`);
  return member;
}

/**
 * The id of the member `--<flag>` names, who must not be disabled: a disabled member is given no
 * new token or application. The product's own member lookups skip disabled members, so without
 * this the refusal read "no member has id N" for a member `member list` shows.
 */
export async function activeMemberId(db: Database, values: CommandValues, flag: string): Promise<number> {
  const member = await namedMember(db, values, flag);
  if (member.disabled_at) {
    throw new UsageError(`member ${member.id} is disabled (\`member enable --member ${member.id}\` undoes that)`);
  }
  return member.id;
}

/**
 * A list's filter by member: undefined without `--<flag>`; else the id of a member that exists
 * (disabled or not), so that a mistyped id is a usage error, not an empty page that reads as
 * "this member has none".
 */
export async function filterMemberId(db: Database, values: CommandValues, flag: string): Promise<number | undefined> {
  return values[flag] === undefined ? undefined : (await namedMember(db, values, flag)).id;
}
