import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  BFF_PATHS,
  BffCostRequest,
  BffCostResponse,
  BffDetectRequest,
  BffDetectResponse,
  BffErrorBody,
  BffHumanizeRequest,
  BffHumanizeResponse,
  BffPlagiarismRequest,
  BffPlagiarismResponse,
  BffUsageResponse,
} from '@redline/shared';

/** The BFF's OpenAPI 3.1 document, generated from the shared zod schemas. */
export function buildOpenApiDocument(version: string) {
  const registry = new OpenAPIRegistry();
  // `.meta({ id })` makes a schema a named, reusable component.
  const named = <T extends z.ZodType>(id: string, schema: T) => schema.meta({ id }) as T;
  const bearer = registry.registerComponent('securitySchemes', 'memberToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'A member token (rl_...), created with `npm run members -- add NAME`.',
  });
  const error = named('Error', BffErrorBody);
  const errorResponses = {
    400: { description: 'Invalid input: the error says which field to fix.', content: { 'application/json': { schema: error } } },
    401: { description: 'Missing, unknown or revoked member token.', content: { 'application/json': { schema: error } } },
    402: { description: 'Not enough words left on the team plan (remaining figures included).', content: { 'application/json': { schema: error } } },
    403: { description: 'No subscription for the product, member budget exhausted, origin not allowed, or an OAuth sign-in whose grant lacks the product\'s scope (insufficient_scope).', content: { 'application/json': { schema: error } } },
    409: { description: 'The operation id was used for different work.', content: { 'application/json': { schema: error } } },
    410: { description: 'The result is older than the upstream replay window or the BFF result retention (24 hours by default).', content: { 'application/json': { schema: error } } },
    413: { description: 'Request body too large.', content: { 'application/json': { schema: error } } },
    415: { description: 'Content-Type is not application/json.', content: { 'application/json': { schema: error } } },
    429: { description: 'Member rate limit reached; honour Retry-After.', content: { 'application/json': { schema: error } } },
    502: { description: 'Provider aborted (nothing charged) or the BFF key was refused.', content: { 'application/json': { schema: error } } },
    503: { description: 'Busy, usage recording unavailable or the BFF ledger unavailable; retry with the same operation id after Retry-After.', content: { 'application/json': { schema: error } } },
    504: { description: 'Upstream unreachable; retry with the same operation id.', content: { 'application/json': { schema: error } } },
    500: {
      description: 'internal_error: a fault in the BFF, or a document that was split differently when first sent (start a new check with a new operation id).',
      content: { 'application/json': { schema: error } },
    },
  };
  // What the routes that run no operation can answer: no upstream, no operation id.
  const originRefused = { description: 'Origin not allowed.', content: { 'application/json': { schema: error } } };
  const { 400: invalid, 401: unauthorized, 413: tooLarge, 415: notJson, 429: rateLimited, 503: unavailable } = errorResponses;
  const operation = (path: string, summary: string, request: z.ZodType, response: z.ZodType) =>
    registry.registerPath({
      method: 'post',
      path,
      summary,
      security: [{ [bearer.name]: [] }],
      request: { body: { required: true, content: { 'application/json': { schema: request } } } },
      responses: { 200: { description: 'The result, with the BFF facts about the operation.', content: { 'application/json': { schema: response } } }, ...errorResponses },
    });
  operation(BFF_PATHS.detector, 'Check a text for AI-writing signals (sentence-level).', named('DetectRequest', BffDetectRequest), named('DetectResponse', BffDetectResponse));
  operation(BFF_PATHS.humanizer, 'Rewrite a text with a humanizer model.', named('HumanizeRequest', BffHumanizeRequest), named('HumanizeResponse', BffHumanizeResponse));
  operation(BFF_PATHS.plagiarism, 'Check a text for sentence-level source overlap.', named('PlagiarismRequest', BffPlagiarismRequest), named('PlagiarismResponse', BffPlagiarismResponse));
  registry.registerPath({
    method: 'post',
    path: BFF_PATHS.cost,
    summary: 'The word cost of a text, before sending it (nothing is sent upstream or stored).',
    security: [{ [bearer.name]: [] }],
    request: { body: { required: true, content: { 'application/json': { schema: named('CostRequest', BffCostRequest) } } } },
    responses: {
      200: { description: 'Words, characters and parts.', content: { 'application/json': { schema: named('CostResponse', BffCostResponse) } } },
      400: invalid,
      401: unauthorized,
      403: originRefused,
      413: tooLarge,
      415: notJson,
      429: rateLimited,
    },
  });
  registry.registerPath({
    method: 'get',
    path: BFF_PATHS.usage,
    summary: "The member's words charged and budgets per product.",
    security: [{ [bearer.name]: [] }],
    responses: {
      200: { description: 'Usage.', content: { 'application/json': { schema: named('Usage', BffUsageResponse) } } },
      401: unauthorized,
      403: originRefused,
      429: rateLimited,
      503: { ...unavailable, description: 'The BFF ledger unavailable; retry after Retry-After.' },
    },
  });
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: 'Redline BFF', version, description: 'Backend-for-frontend for the text analysis service. Every operation carries a client operation id: repeats with it are answered without a second charge.' },
  });
}
