/**
 * What the serializers need to know about a stored contact: the contacts row plus the names
 * joined in. Declared here, structurally, so that this package does not depend on the database
 * package; @contacts/db's ContactRecord satisfies it.
 */
export interface ContactRecordLike {
  id: number;
  owner_id: number;
  name: string;
  email: string | null;
  company_name: string | null;
  personal_number: string | null;
  work_number: string | null;
  website: string | null;
  street: string | null;
  city: string | null;
  state: string | null;
  zipcode: string | null;
  country: string | null;
  business_category_id: number | null;
  business_category_name: string | null;
  group_id: number | null;
  referrer_id: number | null;
  referrer_name: string | null;
  join_date: string | null;
  /** SHA-256 of the stored image, or null when there is none. */
  image_sha256: string | null;
  created_at: Date;
  updated_at: Date;
}
