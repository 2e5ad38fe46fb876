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
