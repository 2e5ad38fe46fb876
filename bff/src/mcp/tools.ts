import { z } from 'zod';
import {
  type BffError,
  BffDetectRequest,
  BffDetectResponse,
  BffHumanizeRequest,
  BffHumanizeResponse,
  BffPlagiarismRequest,
  BffPlagiarismResponse,
  DEFAULT_DETECTOR_VERSION,
  DEFAULT_HUMANIZER_MODEL,
  DetectorVersion,
  HumanizerModel,
  McpIdempotencyKey,
  type Product,
} from '@redline/shared';
import type { OperationInput, OperationOutcome } from '../operations/engine.ts';
import { parseRequest } from '../http/validation.ts';
import { detectionSummary, humanizationSummary, sourcesSummary } from './summaries.ts';

/**
 * The MCP tools: the upstream's two (upstream-api.md 4.3: `idempotency_key` of 16 to 128
 * URL-safe characters, `version` v3 and `model` cognia by default) and `check_sources`, which
 * the upstream offers over REST only. Each becomes one OperationInput for the engine, with the
 * idempotency key as the member's operation id, so a client's retry is never charged twice.
 */

const text = z.string().describe('The text to analyse, as written (long documents are split and merged by the server).');
const idempotencyKey = McpIdempotencyKey.describe(
  'A fresh random value (16 to 128 letters, digits, "-" or "_") for each deliberate operation; send the same value only to retry exactly the same call. A retry returns the stored result and is not charged again.',
);

export interface ToolDefinition {
  name: string;
  /** The balance the tool spends, and so the OAuth scope it needs (auth/scopes.ts). */
  product: Product;
  title: string;
  description: string;
  inputSchema: z.ZodRawShape;
  outputSchema: z.ZodObject;
  toInput(args: Record<string, unknown>, maxCharacters: number): OperationInput;
  /** `chargedBefore`: words of the outcome's that earlier calls with its key were charged (CallOutcome). */
  summarize(outcome: OperationOutcome, chargedBefore: number): string;
}

/** A BFF error in a tool's words: what the REST API calls the operation id is the tool's `idempotency_key` argument. */
export function inToolWords(error: BffError): BffError {
  const { operationId, ...body } = error as BffError & { operationId?: string };
  const message = error.message.replaceAll('operationId', 'idempotency_key').replaceAll('operation id', 'idempotency_key');
  const renamed: BffError = { ...body, message, ...(operationId === undefined ? {} : { idempotency_key: operationId }) };
  if (error.fields?.operationId === undefined) return renamed;
  const { operationId: field, ...rest } = error.fields;
  return { ...renamed, fields: { ...rest, idempotency_key: field } };
}

export const TOOLS: ToolDefinition[] = [
  {
    name: 'detect_ai_text',
    product: 'detector',
    title: 'Detect AI writing',
    description:
      'Analyse text for AI-writing signals with sentence-level detail: each sentence gets a label (AI or Human) and a score, and ai_percentage is the share of characters in AI-labelled sentences. Results are probabilistic review signals, not proof of authorship. Uses the detector word balance.',
    inputSchema: { text, version: DetectorVersion.default(DEFAULT_DETECTOR_VERSION).describe('Detector version; v3 for new work.'), idempotency_key: idempotencyKey },
    outputSchema: BffDetectResponse,
    toInput: (args, max) => ({ product: 'detector', ...parseRequest(BffDetectRequest, { operationId: args.idempotency_key, text: args.text, version: args.version }, max) }),
    summarize: detectionSummary,
  },
  {
    name: 'humanize_text',
    product: 'humanizer',
    title: 'Humanize text',
    description:
      'Rewrite the supplied text with a humanizer model and return an editable result. Review the rewrite for meaning, facts, names, links, tone and required terms. Uses the humanizer word balance.',
    inputSchema: { text, model: HumanizerModel.default(DEFAULT_HUMANIZER_MODEL).describe('Humanizer model.'), idempotency_key: idempotencyKey },
    outputSchema: BffHumanizeResponse,
    toInput: (args, max) => ({ product: 'humanizer', ...parseRequest(BffHumanizeRequest, { operationId: args.idempotency_key, text: args.text, model: args.model }, max) }),
    summarize: humanizationSummary,
  },
  {
    name: 'check_sources',
    product: 'plagiarism',
    title: 'Check sources (plagiarism)',
    description:
      'Look for sentence-level overlap with web sources and return the similar source sentence, similarity and link for each match. No match does not prove originality; each match needs human review. Uses the plagiarism word balance.',
    inputSchema: { text, idempotency_key: idempotencyKey },
    outputSchema: BffPlagiarismResponse,
    toInput: (args, max) => ({ product: 'plagiarism', ...parseRequest(BffPlagiarismRequest, { operationId: args.idempotency_key, text: args.text }, max) }),
    summarize: sourcesSummary,
  },
];
