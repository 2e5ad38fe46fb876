import type { z } from 'zod';
import { countCharacters, hasReadableText, hasVisibleText, type BffErrorCode } from '@redline/shared';
import { HttpError } from '../errors.ts';
import { looksLikeToken } from '../members.ts';

const FIELD_CODES: Record<string, BffErrorCode> = {
  operationId: 'invalid_operation_id',
  version: 'unknown_version',
  model: 'unknown_model',
};

const FIELD_HINTS: Record<string, string> = {
  operationId: 'operationId must be 8 to 128 letters, digits, "-" or "_", kept the same when you retry',
  version: 'version must be one of v1, v2, v3 (v3 is the default)',
  model: 'model must be one of cognia, lexi, cognia_v2, huma_v2',
  text: 'text must be a string',
};

/**
 * U+0000 and unpaired surrogates: the upstream may take them, but PostgreSQL's jsonb cannot
 * hold the result that echoes them, so the operation would be charged and never recorded.
 * Refused before anything is sent, on every ledger alike. (In a `u` regex a surrogate pair is
 * one code point, so \p{Cs} matches only an unpaired half.)
 */
const UNSTORABLE = /[\0\p{Cs}]/u;

/** Parses a request body with its schema; the first problem becomes an error that says what to fix. */
export function parseRequest<T extends z.ZodType>(schema: T, body: unknown, maxCharacters: number): z.infer<T> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw HttpError.of(400, 'invalid_request', 'The request body must be a JSON object such as {"operationId": "...", "text": "..."}.');
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const fields: Record<string, string> = {};
    for (const issue of parsed.error.issues) {
      const field = String(issue.path[0] ?? 'body');
      fields[field] ??= FIELD_HINTS[field] ?? issue.message;
    }
    // A field's own code only when it is the one problem (an empty body is not an id problem).
    const wrong = Object.keys(fields);
    const code = (wrong.length === 1 && FIELD_CODES[wrong[0]!]) || 'invalid_request';
    throw HttpError.of(400, code, `Fix the request: ${Object.values(fields).join('; ')}.`, { fields });
  }
  const { text, operationId } = parsed.data as { text?: unknown; operationId?: unknown };
  // A member token sent as the id (two fields mixed up) would be stored and logged as an id.
  if (typeof operationId === 'string' && looksLikeToken(operationId)) {
    throw HttpError.of(
      400,
      'invalid_operation_id',
      'Fix the request: operationId has the shape of a member token (rl_ and 43 characters). Send the token only in the Authorization header, and a new id of your own (a UUID, say) as operationId; if this was your token, ask your administrator for a new one.',
      { fields: { operationId: 'not a member token' } },
    );
  }
  if (typeof text === 'string') {
    if (!hasReadableText(text)) {
      const what = hasVisibleText(text)
        ? 'The text holds only invisible characters (zero-width spaces, joiners or marks, say), so there is nothing to check and no word to charge.'
        : 'The text is empty.';
      throw HttpError.of(400, 'empty_text', `${what} Select or type some text to check.`, { fields: { text: 'empty' } });
    }
    if (UNSTORABLE.test(text)) {
      throw HttpError.of(
        400,
        'invalid_request',
        'The text contains a NUL character (U+0000) or half of a surrogate pair (a broken emoji), which cannot be stored with its result: remove it and check again. Such characters often come with text copied out of a PDF.',
        { fields: { text: 'no U+0000 and no unpaired surrogates' } },
      );
    }
    // Code points never outnumber UTF-16 units: a short text needs no count.
    const characters = text.length > maxCharacters ? countCharacters(text) : 0;
    if (characters > maxCharacters) {
      throw HttpError.of(
        400,
        'text_too_long',
        `The text has ${characters.toLocaleString('en-US')} characters; this BFF accepts at most ${maxCharacters.toLocaleString('en-US')}. Check a shorter part of the document.`,
        { fields: { text: `at most ${maxCharacters} characters` } },
      );
    }
  }
  return parsed.data;
}
