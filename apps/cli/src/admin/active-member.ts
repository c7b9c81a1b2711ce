import { type Database, findMemberRecord } from '@contacts/db';
import { UsageError } from '../cli-context';
import type { CommandValues } from '../commands/index';
import { rowIdFlag } from '../flags';

/**
 * The id of the member `--<flag>` names, who must exist and not be disabled: a disabled member is
 * given no new token or application. The product's own member lookups skip disabled members, so
 * without this the refusal read "no member has id N" for a member `member list` shows.
 */
export async function activeMemberId(db: Database, values: CommandValues, flag: string): Promise<number> {
  const id = rowIdFlag(values, flag);
  const member = await findMemberRecord(db, id);
  if (!member) throw new UsageError(`no member has id ${id}`);
  if (member.disabled_at) {
    throw new UsageError(`member ${id} is disabled (\`member enable --member ${id}\` undoes that)`);
  }
  return id;
}
