import { z } from 'zod';
import { hasUnsafeText, isEmailAddress, UNSAFE_TEXT_MESSAGE } from '../domain/safe-text.ts';

/**
 * Text a person reads (`src/domain/safe-text.ts`, docs/text.md): refused with a 400 naming the
 * field when it holds a control, bidi, zero-width or other invisible character, so no name, note,
 * address or email can show as something else on a page or in a log.
 */
export function plainText<T extends z.ZodType<string>>(schema: T): T {
  return schema.refine((value) => !hasUnsafeText(value), { message: UNSAFE_TEXT_MESSAGE });
}

/** An email address as accounts keep it (trimmed; one @, no blanks, nothing invisible). */
export const EmailAddress = z
  .string()
  .trim()
  .max(320)
  .refine(isEmailAddress, { message: 'must be an email address (one @, no blanks, no invisible characters)' });
