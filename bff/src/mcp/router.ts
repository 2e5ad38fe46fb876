import express, { type NextFunction, type Request, type Response } from 'express';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { BffConfig } from '../config.ts';
import { HttpError, ledgerUnavailable } from '../errors.ts';
import { LedgerUnavailableError } from '../storage/faults.ts';
import type { Logger } from '../logging.ts';
import { takeRequest, type RateLimiter } from '../http/rate-limit.ts';
import type { OperationEngine } from '../operations/engine.ts';
import { missingScope, scopeChallenge, type Caller } from '../auth/bearer.ts';
import { scopeFor } from '../auth/scopes.ts';
import { errorSummary } from './summaries.ts';
import { inToolWords, TOOLS, type ToolDefinition } from './tools.ts';
import { notJsonRpc } from './json-rpc.ts';
import { refuseNonUtf8 } from '../http/json-body.ts';
import { bodyTooLarge } from '../http/answer.ts';

export interface McpRouterOptions {
  config: Pick<BffConfig, 'maxDocumentCharacters' | 'maxBodyBytes'>;
  engine: OperationEngine;
  logger: Logger;
  version: string;
  /** The member rate limit of /v1: a tool call counts as one request. */
  rateLimiter: RateLimiter;
  /** Authenticates the caller and sets `res.locals.caller` (auth/bearer.ts). */
  requireCaller: express.RequestHandler;
  /** The protected-resource metadata a scope challenge points to; undefined when OAuth is off. */
  resourceMetadataUrl(req: Request): URL | undefined;
}

export const MCP_PATH = '/mcp';

type McpServerClass = typeof import('@modelcontextprotocol/sdk/server/mcp.js').McpServer;
let sdk: Promise<[typeof import('@modelcontextprotocol/sdk/server/mcp.js'), typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js')]> | undefined;
/** The SDK's server, loaded by the first MCP call: a BFF that serves none saves its memory (about 4 MiB of heap). */
const loadSdk = () => (sdk ??= Promise.all([import('@modelcontextprotocol/sdk/server/mcp.js'), import('@modelcontextprotocol/sdk/server/streamableHttp.js')]));

const INTERNAL = () => HttpError.of(500, 'internal_error', 'Something went wrong in the BFF. Try again; if it persists, tell your administrator.');

/**
 * The team's MCP server at `POST /mcp`: stateless streamable HTTP (a fresh SDK server per
 * request, JSON responses), the tools in ./tools.ts. Every tool call is one operation through
 * the engine, so budgets, usage, the ledger and exactly-once forwarding are those of `/v1`.
 * BFF errors come back as tool errors (`isError`) with the BFF's code and message; JSON-RPC
 * errors are left to the SDK for protocol faults.
 */
export function mcpRouter({ config, engine, logger, version, rateLimiter, requireCaller, resourceMetadataUrl }: McpRouterOptions): express.Router {
  const router = express.Router();
  const runTool = async (tool: ToolDefinition, caller: Caller, args: Record<string, unknown>): Promise<CallToolResult> => {
    try {
      await takeRequest(rateLimiter, caller.member);
      const { outcome, chargedBefore } = await engine.call(caller.member, tool.toInput(args, config.maxDocumentCharacters));
      logger.info({ tool: tool.name, member: caller.member.id, via: caller.via, operationId: outcome.operationId, replayed: outcome.replayed }, 'mcp tool call');
      return {
        content: [
          { type: 'text', text: tool.summarize(outcome, chargedBefore) },
          { type: 'text', text: JSON.stringify(outcome) },
        ],
        structuredContent: outcome as unknown as Record<string, unknown>,
      };
    } catch (error) {
      // The ledger unavailable is said as on /v1 (a wait, then the same key), not as a fault in the BFF.
      const httpError = error instanceof HttpError ? error : error instanceof LedgerUnavailableError ? ledgerUnavailable(error.fault) : INTERNAL();
      const body = inToolWords(httpError.body);
      if (httpError.body.code === 'internal_error' && !(error instanceof HttpError)) logger.error({ tool: tool.name, err: { type: (error as Error)?.name, message: (error as Error)?.message } }, 'unexpected error in an MCP tool');
      logger.info({ tool: tool.name, member: caller.member.id, via: caller.via, code: httpError.body.code }, 'mcp tool call failed');
      return {
        isError: true,
        content: [
          { type: 'text', text: errorSummary(body) },
          { type: 'text', text: JSON.stringify({ error: body }) },
        ],
      };
    }
  };

  const serverFor = (McpServer: McpServerClass, caller: Caller) => {
    const server = new McpServer(
      { name: 'redline', title: 'Redline (team text analysis)', version },
      { instructions: 'AI-writing detection, humanizing and source checks for your team. Give every deliberate call a new idempotency_key and reuse it only to retry the same call.' },
    );
    for (const tool of TOOLS) {
      server.registerTool(
        tool.name,
        { title: tool.title, description: tool.description, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema.shape, annotations: { openWorldHint: true, destructiveHint: false, idempotentHint: true } },
        (args: Record<string, unknown>) => runTool(tool, caller, args),
      );
    }
    return server;
  };

  // Not strict: a body of valid JSON that is not an object or array is an invalid request, not a parse error.
  // The caller is asked again once the body is in: a revocation that reached this instance while
  // the body arrived stops the call before anything is sent or charged.
  router.post(MCP_PATH, requireCaller, express.json({ limit: config.maxBodyBytes, strict: false, verify: refuseNonUtf8 }), requireCaller, async (req: Request, res: Response) => {
    const problem = req.body === undefined ? undefined : notJsonRpc(req.body);
    if (problem) return void res.status(400).json({ jsonrpc: '2.0', id: null, error: { code: -32600, message: `Invalid Request: ${problem}.` } });
    const caller = res.locals.caller as Caller;
    const refused = refusedToolCall(req.body, caller);
    if (refused) {
      // Before the SDK runs the call: a 403 with the scope challenge is what lets a client sign in again for the scope (step-up).
      logger.info({ tool: refused.tool.name, member: caller.member.id, via: caller.via, code: 'insufficient_scope' }, 'mcp tool call refused');
      res.set('WWW-Authenticate', scopeChallenge(caller.scopes!, scopeFor(refused.tool.product), refused.reason, resourceMetadataUrl(req)));
      return void res.status(403).json(scopeRefusal(req.body, refused, caller));
    }
    const [{ McpServer }, { StreamableHTTPServerTransport }] = await loadSdk();
    const server = serverFor(McpServer, caller);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });

  router.all(MCP_PATH, (_req, res) => {
    res.status(405).set('Allow', 'POST').json({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'This MCP endpoint is stateless: send each JSON-RPC message as a POST.' } });
  });

  router.use((error: Error & { type?: string; limit?: number }, _req: Request, res: Response, next: NextFunction) => {
    if (error.type === 'entity.too.large') {
      // The /v1 message, which names the limit: an assistant cannot shorten to a size it is not told.
      return void res.status(413).json({ jsonrpc: '2.0', id: null, error: { code: -32600, message: bodyTooLarge(error.limit).body.message } });
    }
    if (error.type === 'entity.parse.failed') {
      return void res.status(400).json({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the body is not valid JSON.' } });
    }
    next(error);
  });

  return router;
}

/**
 * The JSON-RPC answer to a message refused for a scope. A batch is refused whole (nothing of it
 * runs) and answered as a batch: an error for each of its requests, each refused call's own
 * reason for it and, for the others, that they did not run because of the first.
 */
function scopeRefusal(body: unknown, refused: { id: unknown; reason: string }, caller: Caller) {
  const error = (id: unknown, message: string) => ({ jsonrpc: '2.0', id, error: { code: -32000, message, data: { error: { code: 'insufficient_scope', message } } } });
  const requests = Array.isArray(body) ? body.filter((message) => (message as { id?: unknown } | null)?.id !== undefined) : [];
  if (requests.length === 0) return error(refused.id, refused.reason);
  const notRun = `Not run: a call in the same batch was refused. ${refused.reason}`;
  return requests.map((message) => error((message as { id: unknown }).id, refusedToolCall(message, caller)?.reason ?? notRun));
}

/** The first tool call in a message (or batch) that the caller's sign-in does not allow, with why. */
function refusedToolCall(body: unknown, caller: Caller): { tool: ToolDefinition; id: unknown; reason: string } | undefined {
  for (const message of Array.isArray(body) ? body : [body]) {
    const { method, params, id } = (message ?? {}) as { method?: unknown; params?: { name?: unknown }; id?: unknown };
    if (method !== 'tools/call') continue;
    const tool = TOOLS.find((candidate) => candidate.name === params?.name);
    const reason = tool && missingScope(caller, scopeFor(tool.product));
    if (reason) return { tool: tool!, id: id ?? null, reason };
  }
  return undefined;
}
