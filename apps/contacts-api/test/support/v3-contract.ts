/**
 * The v3 contact's keys in the order the original service answered them (its interface
 * description), written out here rather than taken from the serializer, so that a test of the
 * serializer or of the endpoints fails when either drifts from the contract.
 */
export const V3_CONTACT_KEYS = [
  'id',
  'name',
  'email',
  'personal_number',
  'work_number',
  'street',
  'city',
  'state',
  'zipcode',
  'address',
  'company',
  'business_category_id',
  'business_category_name',
  'referrer_id',
  'referrer_name',
  'group_id',
  'created_at',
  'updated_at',
];

/** The keys of a contact v3 answers to a create or an update: the owner's id before the stamps. */
export const V3_CONTACT_KEYS_WITH_OWNER = [...V3_CONTACT_KEYS.slice(0, -2), 'user_id', 'created_at', 'updated_at'];
