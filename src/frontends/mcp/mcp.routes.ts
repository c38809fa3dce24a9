import type { FastifyInstance } from 'fastify';
import { AppError } from '../../platform/errors.js';

type McpModules = [typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js'), typeof import('./mcp.server.js')];
let mcpModules: Promise<McpModules> | undefined;

/** The MCP SDK loads with the first MCP request: a server that is never asked one does not hold it in memory. */
function loadMcp(): Promise<McpModules> {
  mcpModules ??= Promise.all([import('@modelcontextprotocol/sdk/server/streamableHttp.js'), import('./mcp.server.js')]);
  return mcpModules;
}

/**
 * POST /v1/mcp: the MCP server over Streamable HTTP, behind the management API's key auth and
 * rate limit (registered under it). Stateless: each POST gets a server for its key, answered as
 * JSON, so any instance can take any request and no session outlives it.
 */
export async function mcpRoutes(app: FastifyInstance): Promise<void> {
  app.post('', { schema: { hide: true } }, async (request, reply) => {
    const [{ StreamableHTTPServerTransport }, { buildMcpServer }] = await loadMcp();
    const server = buildMcpServer(app.services, { accountId: request.accountId, keyId: request.apiKeyId, scope: request.apiKeyScope, address: request.ip }, (err) =>
      request.log.error({ err }, 'MCP tool failed'),
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    // The transport writes the answer itself.
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });

  // No server-sent stream and no session to end: a stateless server answers only POST.
  const onlyPost = async () => {
    throw new AppError('method_not_allowed', 'The MCP endpoint takes POST only (Streamable HTTP without sessions).', { headers: { Allow: 'POST' } });
  };
  app.get('', { schema: { hide: true } }, onlyPost);
  app.delete('', { schema: { hide: true } }, onlyPost);
}
