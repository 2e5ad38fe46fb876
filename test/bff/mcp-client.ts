import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** The official MCP client over real HTTP, for the BFF's `/mcp`. */
export async function connectMcp(bffUrl: string, token: string): Promise<Client> {
  const client = new Client({ name: 'redline-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${bffUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

type ToolResult = Awaited<ReturnType<Client['callTool']>>;

/** The JSON block of a tool result: the BFF's outcome, or `{ error }` for a tool error. */
export const toolJson = (result: ToolResult): any => JSON.parse((result.content as { text: string }[])[1]!.text);
export const toolSummary = (result: ToolResult): string => (result.content as { text: string }[])[0]!.text;

let counter = 0;
/** A fresh idempotency_key (16 to 128 URL-safe characters). */
export const newToolKey = () => `mcp-${process.pid}-${Date.now()}-${counter++}`.padEnd(16, 'x');
