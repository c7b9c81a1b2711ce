import { batchFieldKey } from '@contacts/schemas';
import type { DomainError } from '../../domain/errors';
import { ApiError, validationFailed } from '../../http/errors';

/**
 * A refused operation, as the batch's answer: 412 for a stale if_match, 422 keyed by the
 * operation's field for the rules about a field (the group rule included), else 403 naming the operation.
 */
export function batchRefusal(error: DomainError, index: number): ApiError {
  const message = `Operation ${index}: ${error.message}`;
  switch (error.kind) {
    case 'precondition_failed':
      // `fields` names the operation for a program, as a 422 does.
      return new ApiError(412, 'precondition_failed', message, {
        fields: { [batchFieldKey(index, 'if_match')]: [error.message] },
      });
    case 'not_found':
      return validationFailed({ [batchFieldKey(index, 'id')]: [error.message] });
    case 'forbidden':
      // Linking a group the member is not in: a problem of the operation's group_id, like an unknown group.
      if (error.rule === 'group_membership')
        return validationFailed({ [batchFieldKey(index, 'contact', 'group_id')]: [error.message] });
      // Any other refusal (none a batch operation meets today) is about the operation, not one of its fields.
      return new ApiError(403, 'forbidden', message, { fields: { [batchFieldKey(index)]: [error.message] } });
    case 'invalid': {
      const fields = Object.fromEntries(
        Object.entries(error.fields ?? { _: [error.message] }).map(([key, messages]) => [
          batchFieldKey(index, 'contact', key === 'street' ? 'address' : key),
          messages,
        ]),
      );
      return validationFailed(fields);
    }
  }
}
