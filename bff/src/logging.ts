import { pino, type Logger } from 'pino';

/**
 * Structured logs. The code never passes text, tokens or keys to the logger; the redaction
 * list is the second line of defence for anything that slips into a logged object.
 */
export const REDACTED_PATHS = [
  'text',
  '*.text',
  'body',
  '*.body',
  'token',
  '*.token',
  'apiKey',
  '*.apiKey',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'headers["x-api-key"]',
  '*.headers["x-api-key"]',
  'humanized_text',
  '*.humanized_text',
  'key',
  '*.key',
  'value',
  '*.value',
  'ciphertext',
  '*.ciphertext',
];

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { service: 'redline-bff' },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination as pino.DestinationStream | undefined,
  );
}

export type { Logger };

export interface LoggedError {
  type: string;
  message: string;
  code?: string;
  stack?: string;
  cause?: LoggedError;
}

/**
 * An error as the logs show it (log it under `error`, not `err`: pino's own `err` serializer
 * would replace the type with "Object"): its real type, message, code and stack, and nothing else (a
 * driver's other fields, such as PostgreSQL's `detail`, can quote stored values). A JSON
 * SyntaxError quotes the input it failed on, so its message is withheld.
 */
export function describeError(error: unknown, depth = 0): LoggedError {
  if (!(error instanceof Error)) {
    const type = error === null ? 'null' : typeof error === 'object' ? (error.constructor?.name ?? 'Object') : typeof error;
    return { type, message: 'a value that is not an Error was thrown' };
  }
  const type = error.constructor?.name && error.constructor.name !== 'Error' ? error.constructor.name : error.name;
  const quotesInput = error instanceof SyntaxError;
  const message = quotesInput ? 'JSON could not be parsed (message withheld: it may quote the input)' : error.message;
  let stack = error.stack;
  if (stack && quotesInput) stack = [`${type}: ${message}`, ...stack.split('\n').filter((line) => /^\s+at /.test(line))].join('\n');
  const code = (error as { code?: unknown }).code;
  const described: LoggedError = { type, message, ...(typeof code === 'string' ? { code } : {}), ...(stack ? { stack } : {}) };
  if (error.cause !== undefined && depth < 2) described.cause = describeError(error.cause, depth + 1);
  return described;
}
