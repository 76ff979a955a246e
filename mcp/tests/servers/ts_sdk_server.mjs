// A small MCP server written with the official TypeScript SDK v2
// (`@modelcontextprotocol/server`, pinned by .ci/run), for the client's tests against a
// real SDK in each era over stdio and over Streamable HTTP.
//
//   node ts_sdk_server.mjs NPM_PREFIX ERA [http]
//
// NPM_PREFIX is the folder the package was installed into with `npm install --prefix`;
// ERA is how the server is wired:
//   modern     serveStdio (http: createMcpHandler) with legacy: 'reject' — the
//              stateless 2026-07-28 revision only (`initialize` is refused with -32022
//              naming it)
//   dual       serveStdio (http: createMcpHandler) as the SDK's documentation shows
//              it — both eras, the client's opening decides (over HTTP the handshake
//              era is served statelessly, with no session)
//   handshake  new McpServer + StdioServerTransport + connect (http: one
//              WebStandardStreamableHTTPServerTransport per session, with session ids)
//              — the handshake revisions only (`server/discover` is an unknown method,
//              over HTTP a 400 for a request outside a session)
//
// With `http`, it serves on 127.0.0.1 at a port of the system's choosing, which it
// prints on its stdout as the first line, wrapping the SDK's web-standard handler in
// `node:http` (the `@modelcontextprotocol/node` adapter is not installed). When
// AGENTLOOP_TEST_TOKEN is set, a request without `Authorization: Bearer <it>` gets 401.
//
// Tools: `add` {a, b} (integers) → their sum as text; `fail` → an `isError` result;
// `ask` → `resultType` `input_required` (an elicitation), in the stateless era.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';

const [prefix, era, transport = 'stdio'] = process.argv.slice(2);
const require = createRequire(join(prefix, 'package.json'));
const {
  McpServer,
  fromJsonSchema,
  createMcpHandler,
  WebStandardStreamableHTTPServerTransport,
} = require('@modelcontextprotocol/server');
const { serveStdio, StdioServerTransport } = require('@modelcontextprotocol/server/stdio');

const object = (properties, required) =>
  fromJsonSchema({ type: 'object', properties, required });

function server() {
  const server = new McpServer(
    { name: 'agentloop-ts-sdk-test', version: '1.0.0' },
    { capabilities: { tools: {} } },
  );
  server.registerTool(
    'add',
    {
      description: 'Adds two integers.',
      inputSchema: object({ a: { type: 'integer' }, b: { type: 'integer' } }, ['a', 'b']),
    },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  server.registerTool(
    'fail',
    { description: 'Always fails.', inputSchema: object({}, []) },
    async () => ({ content: [{ type: 'text', text: 'it failed on purpose' }], isError: true }),
  );
  server.registerTool(
    'ask',
    { description: 'Asks the user for a name.', inputSchema: object({}, []) },
    async () => ({
      resultType: 'input_required',
      inputRequests: {
        name: {
          method: 'elicitation/create',
          params: {
            mode: 'form',
            message: 'Your name?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
          },
        },
      },
    }),
  );
  return server;
}

/** Serves `handle` (a web-standard Request → Response function) on loopback. */
function listen(handle) {
  const token = process.env.AGENTLOOP_TEST_TOKEN;
  const http = createServer(async (req, res) => {
    if (token !== undefined && req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401, { 'content-type': 'text/plain' }).end('a bearer token is needed');
      return;
    }
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'DELETE';
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method,
      headers,
      body: hasBody ? Buffer.concat(chunks) : undefined,
    });
    const response = await handle(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) {
      for await (const chunk of response.body) res.write(chunk);
    }
    res.end();
  });
  http.listen(0, '127.0.0.1', () => console.log(String(http.address().port)));
}

/** The handshake era with sessions: a transport (and server) per session. */
function sessions() {
  const open = new Map();
  return async (request) => {
    const id = request.headers.get('mcp-session-id');
    if (id !== null && open.has(id)) return open.get(id).handleRequest(request);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => open.set(id, transport),
      onsessionclosed: (id) => open.delete(id),
    });
    await server().connect(transport);
    return transport.handleRequest(request);
  };
}

if (transport === 'http') {
  if (era === 'handshake') {
    listen(sessions());
  } else if (era === 'modern' || era === 'dual') {
    const handler = createMcpHandler(server, { legacy: era === 'modern' ? 'reject' : 'stateless' });
    listen(handler.fetch);
  } else {
    throw new Error(`unknown era ${era}`);
  }
} else if (era === 'handshake') {
  await server().connect(new StdioServerTransport());
} else if (era === 'modern' || era === 'dual') {
  serveStdio(server, { legacy: era === 'modern' ? 'reject' : 'serve' });
} else {
  throw new Error(`unknown era ${era}`);
}
