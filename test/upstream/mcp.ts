import express, { type NextFunction, type Request, type Response } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import {
  DEFAULT_DETECTOR_VERSION,
  DEFAULT_HUMANIZER_MODEL,
  DetectRequest,
  DetectorVersion,
  HumanizeRequest,
  HumanizerModel,
  MCP_MAX_BODY_BYTES,
  McpIdempotencyKey,
  NO_SUBSCRIPTION_ERROR_CODE,
  type Product,
} from '@redline/shared';
import type { AccountState } from './ledger.ts';

/** What one idempotent operation answered (see app.ts `perform`). */
export type OperationOutcome = { status: number; body: unknown; headers?: Record<string, string> } | { drop: true };

export interface McpDeps {
  accountForKey(apiKey: string): AccountState | undefined;
  perform(product: Product, account: AccountState, body: never, idempotencyKey: string, endpoint: string): Promise<OperationOutcome>;
}

const CREDENTIAL_PARAMETERS = /^(api[_-]?key|key|token|access[_-]?token|authorization)$/i;

type ToolResult = { content: { type: 'text'; text: string }[]; isError?: boolean };

function toolResult(outcome: OperationOutcome): ToolResult {
  if ('drop' in outcome) return { isError: true, content: [{ type: 'text', text: JSON.stringify({ status: 503, detail: 'Connection lost.' }) }] };
  const text = JSON.stringify(outcome.status === 200 ? outcome.body : { status: outcome.status, ...(outcome.body as object) });
  return outcome.status === 200 ? { content: [{ type: 'text', text }] } : { isError: true, content: [{ type: 'text', text }] };
}

/**
 * The remote MCP server (streamable HTTP, JSON-RPC) at /api/mcp, stateless: exactly two
 * tools, `detect_ai_text` and `humanize_text`, each requiring an `idempotency_key` of 16 to
 * 128 URL-safe characters and sharing the REST products' word balances. A local client
 * authenticates with `Authorization: Bearer <API key>`; credentials in the URL are refused.
 */
export function mcpRouter(deps: McpDeps): express.Router {
  const router = express.Router();

  router.post('/', express.json({ limit: MCP_MAX_BODY_BYTES }), async (req, res) => {
    if (Object.keys(req.query).some((name) => CREDENTIAL_PARAMETERS.test(name))) {
      return void res.status(400).json({ detail: 'Do not put credentials in the MCP URL. Send Authorization: Bearer <API key>.' });
    }
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.get('authorization') ?? '')?.[1];
    const account = bearer ? deps.accountForKey(bearer) : undefined;
    if (!account) {
      res.set('WWW-Authenticate', 'Bearer');
      return void res.status(401).json({ detail: bearer ? 'Invalid API key.' : 'Authentication credentials were not provided.' });
    }

    const run = async (product: Product, body: unknown, idempotencyKey: string): Promise<ToolResult> => {
      if (account.balances[product] === undefined) {
        return toolResult({ status: 403, body: { error_code: NO_SUBSCRIPTION_ERROR_CODE, detail: `No active subscription for the ${product}.` } });
      }
      return toolResult(await deps.perform(product, account, body as never, idempotencyKey, `mcp:${product}`));
    };

    const server = new McpServer({ name: 'text-analysis-double', version: '1.0.0' });
    server.registerTool(
      'detect_ai_text',
      {
        description: 'Analyse text for AI-writing signals with sentence-level detail.',
        inputSchema: { text: z.string(), version: DetectorVersion.default(DEFAULT_DETECTOR_VERSION), idempotency_key: McpIdempotencyKey },
      },
      async ({ text, version, idempotency_key }) => {
        const parsed = DetectRequest.safeParse({ text, version });
        if (!parsed.success) return toolResult({ status: 400, body: { detail: parsed.error.issues[0]!.message } });
        return run('detector', parsed.data, idempotency_key);
      },
    );
    server.registerTool(
      'humanize_text',
      {
        description: 'Rewrite the supplied text and return an editable result.',
        inputSchema: { text: z.string(), model: HumanizerModel.default(DEFAULT_HUMANIZER_MODEL), idempotency_key: McpIdempotencyKey },
      },
      async ({ text, model, idempotency_key }) => {
        const parsed = HumanizeRequest.safeParse({ text, model });
        if (!parsed.success) return toolResult({ status: 400, body: { detail: parsed.error.issues[0]!.message } });
        return run('humanizer', parsed.data, idempotency_key);
      },
    );

    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });

  router.all('/', (_req, res) => {
    res.status(405).set('Allow', 'POST').json({ detail: 'The MCP endpoint takes POST (stateless streamable HTTP).' });
  });

  router.use((error: Error & { type?: string }, _req: Request, res: Response, next: NextFunction) => {
    if (error.type === 'entity.too.large') {
      return void res.status(413).json({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Request body exceeds 1 MiB.' } });
    }
    if (error.type === 'entity.parse.failed') {
      return void res.status(400).json({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error.' } });
    }
    next(error);
  });

  return router;
}
