import { ApiError } from '../domain/errors.ts';

/** Ids are at most 100 characters (Fastify's `maxParamLength`): a longer path segment is refused. */
export const MAX_PARAM_LENGTH = 100;

export function paramTooLongError(): ApiError {
  return new ApiError(
    'VALIDATION_ERROR',
    `A path parameter is longer than ${MAX_PARAM_LENGTH} characters; ids are shorter.`,
    { field: null },
  );
}
