import type { Database } from '../connection';

export interface GroupRow {
  id: number;
  name: string;
  created_at: Date;
  updated_at: Date;
}

export interface GroupMembershipRow {
  group_id: number;
  member_id: number;
  created_at: Date;
}

export async function insertGroup(db: Database, group: Pick<GroupRow, 'name'>): Promise<Pick<GroupRow, 'id' | 'name'>> {
  const [row] = await db<GroupRow>('groups').insert(group).returning(['id', 'name']);
  return row as Pick<GroupRow, 'id' | 'name'>;
}

export async function findGroupById(db: Database, id: number): Promise<GroupRow | undefined> {
  return db<GroupRow>('groups').where({ id }).first();
}

/** Adds a member to a group; adding twice is not an error. */
export async function addGroupMember(db: Database, groupId: number, memberId: number): Promise<void> {
  await db<GroupMembershipRow>('group_members')
    .insert({ group_id: groupId, member_id: memberId })
    .onConflict(['group_id', 'member_id'])
    .ignore();
}

export async function isGroupMember(db: Database, groupId: number, memberId: number): Promise<boolean> {
  const row = await db('group_members').where({ group_id: groupId, member_id: memberId }).first('group_id');
  return row !== undefined;
}

export async function listGroupsOfMember(
  db: Database,
  memberId: number,
): Promise<Array<Pick<GroupRow, 'id' | 'name'>>> {
  return db('groups')
    .join('group_members', 'group_members.group_id', 'groups.id')
    .where('group_members.member_id', memberId)
    .orderBy('groups.id')
    .select('groups.id', 'groups.name');
}

/** Removes a member from a group; false when they were not in it. */
export async function removeGroupMember(db: Database, groupId: number, memberId: number): Promise<boolean> {
  return (await db('group_members').where({ group_id: groupId, member_id: memberId }).delete()) > 0;
}

/** One page of groups by id with their member counts: up to `limit` + 1 rows. */
export async function listGroupsPage(
  db: Database,
  page: { limit: number; after?: number },
): Promise<Array<{ id: number; name: string; member_count: number }>> {
  const query = db('groups')
    .leftJoin('group_members', 'group_members.group_id', 'groups.id')
    .groupBy('groups.id')
    .orderBy('groups.id')
    .limit(page.limit + 1)
    .select('groups.id', 'groups.name', db.raw('count(group_members.member_id)::int as member_count'));
  if (page.after !== undefined) query.where('groups.id', '>', page.after);
  return query;
}
