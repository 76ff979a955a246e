"""A small MCP server written with the official Python SDK 2.x (`mcp`, pinned by
.ci/run), for the client's tests against a real SDK in each era over stdio and over
Streamable HTTP.

    python3 python_sdk_server.py ERA
    python3 python_sdk_server.py dual http

Over HTTP the SDK's `streamable_http_app` (with uvicorn, as `MCPServer.run` does) is
served on 127.0.0.1 at a port of the system's choosing, printed as the first line of
stdout. The SDK routes by the `MCP-Protocol-Version` header: a 2026-07-28 request is
served statelessly, any other (`initialize` without the header) by the handshake era
with sessions — so over HTTP it is always `dual`.

ERA is how the server is run:
  modern     the SDK's stateless serving loop only (`mcp.server.runner`'s modern stream:
             the SDK has no public switch for it on stdio) — `initialize` is refused
             with -32022 naming 2026-07-28
  dual       `MCPServer.run("stdio")`, as the SDK's documentation shows it — both eras,
             the client's first request decides
  handshake  the SDK's handshake-only loop (`mcp.server.runner.serve_loop`) —
             `server/discover` is an unknown method

Tools: `add` (a, b: integers) -> their sum as text; `fail` -> an error result;
`count` -> declares an integer `result` (outputSchema) and answers the string "5",
which the SDK's own check (pydantic, lax: "5" is an int to it) lets through.
"""

import sys
from typing import Annotated

import anyio
from mcp.server import runner
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.stdio import stdio_server
from mcp_types import CallToolResult, TextContent

ERA = sys.argv[1]
app = MCPServer("agentloop-python-sdk-test", version="1.0.0")


@app.tool()
def add(a: int, b: int) -> str:
    """Adds two integers."""
    return str(a + b)


@app.tool()
def fail() -> str:
    """Always fails."""
    raise ToolError("it failed on purpose")


@app.tool()
def count() -> Annotated[CallToolResult, int]:
    """Counts to five, but answers the number as a string."""
    return CallToolResult(
        content=[TextContent(type="text", text="5")], structured_content={"result": "5"}
    )


async def serve():
    server = app._lowlevel_server
    async with stdio_server() as (read, write):
        async with server.lifespan(server) as state:
            if ERA == "modern":
                await runner._serve_modern_stream(
                    server, read, write, lifespan_state=state, raise_exceptions=False
                )
            else:
                await runner.serve_loop(
                    server, read, write, lifespan_state=state,
                    init_options=server.create_initialization_options(),
                )


def serve_http():
    import socket

    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    print(sock.getsockname()[1], flush=True)
    config = uvicorn.Config(app.streamable_http_app(), log_level="warning")
    anyio.run(uvicorn.Server(config).serve, [sock])


if sys.argv[2:] == ["http"]:
    serve_http()
elif ERA == "dual":
    app.run("stdio")
elif ERA in ("modern", "handshake"):
    anyio.run(serve)
else:
    raise SystemExit("unknown era " + ERA)
