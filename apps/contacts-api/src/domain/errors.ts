import type { FieldErrors } from '@contacts/schemas';

/**
 * Business-rule failures, independent of any HTTP version: v4 and v3 each turn them into their
 * own response shapes.
 */
export type DomainErrorKind = 'not_found' | 'forbidden' | 'invalid' | 'precondition_failed';

/**
 * A rule a caller answers apart from the others of its kind: the batch reports the group rule on
 * the operation's `group_id`, which a future `forbidden` rule about something else must not be.
 */
export type DomainRule = 'group_membership';

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    readonly fields?: FieldErrors,
    readonly rule?: DomainRule,
  ) {
    super(message);
  }
}

export const contactNotFound = () => new DomainError('not_found', 'No such contact.');
export const notGroupMember = () =>
  new DomainError('forbidden', 'You are not a member of this group.', undefined, 'group_membership');
export const invalidField = (field: string, message: string) =>
  new DomainError('invalid', message, { [field]: [message] });
export const EMAIL_TAKEN = 'The email has already been taken.';
