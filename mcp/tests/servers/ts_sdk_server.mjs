// A small MCP server written with the official TypeScript SDK v2
// (`@modelcontextprotocol/server`, pinned by .ci/run), for the client's tests against a
// real SDK in each era over stdio.
//
//   node ts_sdk_server.mjs NPM_PREFIX ERA
//
// NPM_PREFIX is the folder the package was installed into with `npm install --prefix`;
// ERA is how the server is wired:
//   modern     serveStdio with legacy: 'reject' — the stateless 2026-07-28 revision only
//              (`initialize` is refused with -32022 naming it)
//   dual       serveStdio as the SDK's documentation shows it — both eras, the client's
//              opening decides
//   handshake  new McpServer + StdioServerTransport + connect — the handshake revisions
//              only (`server/discover` is an unknown method)
//
// Tools: `add` {a, b} (integers) → their sum as text; `fail` → an `isError` result;
// `ask` → `resultType` `input_required` (an elicitation), in the stateless era.
import { createRequire } from 'node:module';
import { join } from 'node:path';

const [prefix, era] = process.argv.slice(2);
const require = createRequire(join(prefix, 'package.json'));
const { McpServer, fromJsonSchema } = require('@modelcontextprotocol/server');
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

if (era === 'handshake') {
  await server().connect(new StdioServerTransport());
} else if (era === 'modern' || era === 'dual') {
  serveStdio(server, { legacy: era === 'modern' ? 'reject' : 'serve' });
} else {
  throw new Error(`unknown era ${era}`);
}
