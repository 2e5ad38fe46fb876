import type { RequestHandler } from 'express';
import { plainDescription } from './authorize-request.ts';

interface ZodIssue {
  path: (string | number)[];
  message: string;
}

const isZodIssues = (value: unknown): value is ZodIssue[] =>
  Array.isArray(value) && value.length > 0 && value.every((issue) => Array.isArray(issue?.path) && typeof issue?.message === 'string');

/**
 * The MCP SDK's /token, /revoke and /register handlers answer a request that does not parse
 * with zod's issues as JSON in `error_description`; RFC 6749 section 5.2 allows only printable
 * ASCII without `"` and `\` there. This names the parameter instead ("client_id is required"),
 * and says how to send the body when there was none to read (`emptyBody`).
 */
export function plainErrorDescriptions(emptyBody: string): RequestHandler {
  const issueText = ({ path, message }: ZodIssue) => {
    const name = path.join('.');
    if (!name) return emptyBody;
    return message.endsWith('received undefined') ? `${name} is required` : `${name}: ${message}`;
  };
  const readable = (description: string) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(description);
    } catch {
      return description;
    }
    return isZodIssues(parsed) ? parsed.map(issueText).join('; ') : description;
  };
  return (_req, res, next) => {
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      const description = (body as { error_description?: unknown } | null)?.error_description;
      if (typeof description !== 'string') return json(body);
      return json({ ...(body as object), error_description: plainDescription(readable(description)) });
    };
    next();
  };
}
