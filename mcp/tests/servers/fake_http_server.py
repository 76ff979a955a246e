"""A hostile MCP server over Streamable HTTP, for the client's bounds: it speaks the
stateless revision (2026-07-28) well enough to be listed, and misbehaves in the answer
to a `tools/call` of the tool it names, or — with a path `/open/BEHAVIOUR` — in its
answer to the opening `server/discover`.

    python3 fake_http_server.py

It serves on 127.0.0.1 at a port of the system's choosing, printed as the first line
of stdout. It refuses (400, HeaderMismatch) a POST whose `Mcp-Method` or `Mcp-Name`
header does not match the body, as the revision says a server must.

Behaviours (tool names):
  huge       a 1 MiB JSON body
  drip       a JSON body announced as 100 bytes, sent one byte every 0.1 s
  endless    an event stream of notifications, one every 0.05 s, never the answer
  flood      an event stream of notifications as fast as it can, never the answer
  redirect   307 to another origin, with a userinfo in the Location
  wrongtype  200 with a text/html body
  echo_auth  a JSON-RPC error whose message quotes the Authorization header it got
  ok         the answer, in an event stream after a ping request and a notification
  changed    the answer, in an event stream after notifications/tools/list_changed
  region     its `region` argument is marked `x-mcp-header: Region`: the answer is the
             `Mcp-Param-Region` header it got (refused, HeaderMismatch, when it does not
             match the argument)
  badmark    an `x-mcp-header` inside `items`, which makes the tool invalid

At the path `/sessions` it is a handshake-era server instead (2025-11-25) with
sessions: `server/discover` gets a 400 with no body, `initialize` a new
`Mcp-Session-Id` (s1, s2, …), and every later request must carry a live session (404
for an ended one) and `MCP-Protocol-Version: 2025-11-25`. Its tools: `whoami` answers
the session, `expire` ends it, `deleted` lists the sessions ended by a DELETE.
"""

import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SESSIONS = {"next": 1, "live": set(), "deleted": []}

TOOLS = ["huge", "drip", "endless", "flood", "redirect", "wrongtype", "echo_auth", "ok",
         "changed"]


def notification():
    return {"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "info", "data": "x" * 100}}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body, kind="application/json", extra=()):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def answer(self, rid, result):
        self.send(200, {"jsonrpc": "2.0", "id": rid, "result": result})

    def events(self, messages, pause):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        self.close_connection = True
        for message in messages:
            self.wfile.write(b"data: " + json.dumps(message).encode() + b"\n\n")
            self.wfile.flush()
            if pause:
                time.sleep(pause)

    def do_DELETE(self):
        if self.path != "/sessions":
            return self.send(405, b"", "text/plain")
        session = self.headers.get("Mcp-Session-Id")
        SESSIONS["live"].discard(session)
        SESSIONS["deleted"].append(session)
        self.send(200, b"", "text/plain")

    def sessions(self, body):
        method, rid = body.get("method"), body.get("id")
        if method == "server/discover":
            return self.send(400, b"", "text/plain")
        if method == "initialize":
            session = "s%d" % SESSIONS["next"]
            SESSIONS["next"] += 1
            SESSIONS["live"].add(session)
            result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                      "serverInfo": {"name": "sessions", "version": "1"}}
            response = {"jsonrpc": "2.0", "id": rid, "result": result}
            return self.send(200, response, extra=[("Mcp-Session-Id", session)])
        session = self.headers.get("Mcp-Session-Id")
        if session not in SESSIONS["live"]:
            return self.send(404 if session else 400, b"", "text/plain")
        if self.headers.get("MCP-Protocol-Version") != "2025-11-25":
            return self.send(400, b"", "text/plain")
        if rid is None:
            return self.send(202, b"", "text/plain")
        if method == "tools/list":
            tools = [{"name": t, "inputSchema": {"type": "object"}}
                     for t in ("whoami", "expire", "deleted")]
            return self.answer(rid, {"tools": tools})
        name = body["params"]["name"]
        if name == "expire":
            SESSIONS["live"].discard(session)
        text = {"whoami": session, "expire": "expired",
                "deleted": ",".join(SESSIONS["deleted"])}[name]
        self.answer(rid, {"content": [{"type": "text", "text": text}]})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path == "/sessions":
            return self.sessions(body)
        if "method" not in body:
            # A reply to our ping.
            self.send(202, b"", "text/plain")
            return
        method, rid = body["method"], body.get("id")
        params = body.get("params") or {}
        name = params.get("name")
        if self.headers.get("Mcp-Method") != method or (
            method == "tools/call" and self.headers.get("Mcp-Name") != name
        ):
            error = {"code": -32020, "message": "Header mismatch"}
            self.send(400, {"jsonrpc": "2.0", "id": rid, "error": error})
            return
        if method == "server/discover":
            if self.path.startswith("/open/"):
                return self.misbehave(self.path[len("/open/"):], rid)
            return self.answer(rid, {
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}},
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "hostile", "version": "1"}},
            })
        if method == "tools/list":
            tools = [{"name": t, "inputSchema": {"type": "object"}} for t in TOOLS]
            region = {"type": "string", "x-mcp-header": "Region"}
            tools.append({"name": "region", "inputSchema": {
                "type": "object", "properties": {"region": region}}})
            marked = {"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}}
            tools.append({"name": "badmark", "inputSchema": {
                "type": "object", "properties": {"items": marked}}})
            return self.answer(rid, {"tools": tools})
        if method == "tools/call" and name == "region":
            got = self.headers.get("Mcp-Param-Region")
            if got != params["arguments"].get("region"):
                error = {"code": -32020, "message": "Header mismatch: Mcp-Param-Region"}
                return self.send(400, {"jsonrpc": "2.0", "id": rid, "error": error})
            return self.answer(rid, {"content": [{"type": "text", "text": str(got)}]})
        if method == "tools/call":
            return self.misbehave(name, rid)
        self.send(404, {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no"}})

    def misbehave(self, behaviour, rid):
        if behaviour == "huge":
            result = {"content": [{"type": "text", "text": "x" * (1 << 20)}]}
            self.answer(rid, result)
        elif behaviour == "drip":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "100")
            self.end_headers()
            while True:
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.1)
        elif behaviour == "endless":
            self.events(iter(notification, None), 0.05)
        elif behaviour == "flood":
            self.events(iter(notification, None), 0)
        elif behaviour == "redirect":
            location = "http://user:s3cret-in-location@127.0.0.2:9/mcp"
            self.send(307, b"", "text/plain", [("Location", location)])
        elif behaviour == "wrongtype":
            self.send(200, b"<html>hello</html>", "text/html")
        elif behaviour == "echo_auth":
            message = "refused: " + str(self.headers.get("Authorization"))
            self.send(200, {"jsonrpc": "2.0", "id": rid, "error": {"code": -32000, "message": message}})
        elif behaviour == "ok":
            ping = {"jsonrpc": "2.0", "id": "p1", "method": "ping"}
            answer = {"jsonrpc": "2.0", "id": rid,
                      "result": {"content": [{"type": "text", "text": "fine"}]}}
            self.events([ping, notification(), {"jsonrpc": "2.0", "id": 999, "result": {}}, answer], 0)
        elif behaviour == "changed":
            changed = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
            answer = {"jsonrpc": "2.0", "id": rid,
                      "result": {"content": [{"type": "text", "text": "changed"}]}}
            self.events([changed, answer], 0)
        else:
            self.send(500, b"unknown behaviour", "text/plain")


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
