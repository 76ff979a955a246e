"""A small MCP server over stdio for the client's tests: the cases real servers do not
exercise (pagination, every content type, garbage, a line too long, a server that
exits, server-to-client requests, odd names and schemas). Standard library only.

Options (argv; and the environment variable FAKE_MCP_SCHEMA: every tool's default
inputSchema, as JSON, instead of {"type": "object"}):
  --version V        answer `initialize` with protocol version V (default: the client's)
  --no-init          answer nothing (read stdin until it closes)
  --banner           write a line that is not JSON before answering `initialize`
  --no-tools         declare no `tools` capability
  --tools SET        `basic` (default), `names`, `output` (tools with an
                     outputSchema), `pipe` (echo, block, write),
                     `family` (family), `many:N` (N tools t0000…) or `changing`
                     (echo and gone; after a call to gone, echo and added, for
                     good: see --state)
  --state PATH       (`changing`) the file whose presence says the list changed: a
                     call to gone creates it and sends notifications/tools/list_changed
                     before its answer, so a server started again lists the new tools
  --page-size N      `tools/list` pages of N tools (default: all on one page)
  --endless          every `tools/list` page has a `nextCursor`
  --stderr TEXT      write TEXT to stderr at start
  --pid-file PATH    write the process id to PATH at start
  --ignore-stdin-eof keep running (sleeping) after stdin closes
  --deaf             after `initialize`, stop reading stdin (sleep until killed)
  --init-result JSON answer `initialize` with this result
  --init-error       answer `initialize` with the error a 2026-07-28-only server gives
  --era ERA          `handshake` (default: `initialize`, and `server/discover` is an
                     unknown method), `modern` (the stateless 2026-07-28 revision only:
                     `server/discover`, `_meta` required on every request, `initialize`
                     refused with -32022) or `none` (every request gets -32601)
  --silent-probe     never answer `server/discover` (as some handshake servers do)
  --ignore-first-discover  (modern) leave the first `server/discover` unanswered, as a
                     server that was not up yet would
  --discover-result JSON  answer `server/discover` with this result
  --discover-error JSON   answer `server/discover` with this error object

The `methods` tool answers with the methods received so far (notifications too) and
the `_meta` of the `methods` call itself; `input` answers `resultType`
`input_required`; `odd_result` answers an unknown `resultType`.
"""

import base64
import json
import os
import sys
import time

ARGS = sys.argv[1:]


def option(name, default=None):
    if name in ARGS:
        return ARGS[ARGS.index(name) + 1]
    return default


def flag(name):
    return name in ARGS


OBJECT = {"type": "object"}
TYPED = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
# "hello", whose SHA-256 the tests know.
HELLO = base64.b64encode(b"hello").decode()


def tool(name, schema=None, **extra):
    if schema is None:
        schema = json.loads(os.environ.get("FAKE_MCP_SCHEMA", json.dumps(OBJECT)))
    entry = {"name": name, "description": "the " + name + " tool", "inputSchema": schema}
    entry.update(extra)
    return entry


def tool_set():
    chosen = option("--tools", "basic")
    if chosen == "basic":
        return [tool(n) for n in [
            "echo", "media", "fail", "rpc_fail", "garbage", "too_long", "big",
            "block", "exit", "ask", "env", "stray", "stderr", "say",
        ]]
    if chosen == "names":
        return [
            tool("echo"),
            tool("fs.read"),
            tool("dup"),
            tool("dup", {"type": "object", "properties": {}}),
            {"name": "no_schema", "description": "no inputSchema"},
            tool("look_ahead", {"type": "object", "properties": {"a": {"type": "string", "pattern": "a(?=b)"}}}),
            tool("string_root", {"type": "string"}),
            tool("ro", annotations={"readOnlyHint": True}),
            tool("idem", annotations={"idempotentHint": True, "readOnlyHint": False}),
            {"name": "titled", "title": "Only a title", "inputSchema": OBJECT},
            tool("x" * 70),
        ]
    if chosen == "output":
        # Tools with an outputSchema; a call answers `structuredContent` = its
        # argument "structured" (none without it), `isError` = its argument "error".
        return [
            tool("typed", outputSchema=TYPED),
            tool("typed_07", outputSchema={
                "$schema": "http://json-schema.org/draft-07/schema#",
                "type": "object", "dependencies": {"a": ["b"]}}),
            tool("typed_list", outputSchema={"type": "array", "items": {"type": "string"}}),
            tool("typed_null", outputSchema=None),
            tool("bad_output", outputSchema={"type": "dict"}),
            tool("draft_04_output", outputSchema={"$schema": "http://json-schema.org/draft-04/schema#"}),
        ]
    if chosen == "pipe":
        return [tool(n) for n in ["echo", "block", "write"]]
    if chosen == "family":
        return [tool("family")]
    if chosen == "changing":
        changed = os.path.exists(option("--state"))
        return [tool("echo"), tool("added" if changed else "gone")]
    if chosen.startswith("many:"):
        return [tool("t%04d" % i) for i in range(int(chosen[5:]))]
    raise SystemExit("unknown tool set " + chosen)


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def read():
    line = sys.stdin.readline()
    if not line:
        if flag("--ignore-stdin-eof"):
            while True:
                time.sleep(1)
        sys.exit(0)
    return json.loads(line)


def result(id, value):
    if ERA == "modern" and isinstance(value, dict):
        # Every stateless result says what it is and who answered.
        value = dict(value)
        value.setdefault("resultType", "complete")
        value.setdefault("_meta", {"io.modelcontextprotocol/serverInfo": SERVER_INFO})
    send({"jsonrpc": "2.0", "id": id, "result": value})


def text(value):
    return {"content": [{"type": "text", "text": value}]}


def call(id, name, arguments):
    if name.startswith("typed"):
        answer = text(json.dumps(arguments.get("structured"), sort_keys=True))
        if "structured" in arguments:
            answer["structuredContent"] = arguments["structured"]
        if arguments.get("error"):
            answer["isError"] = True
        result(id, answer)
    elif name == "echo":
        result(id, {"content": [{"type": "text", "text": json.dumps(arguments, sort_keys=True)}],
                    "structuredContent": arguments})
    elif name == "media":
        result(id, {"content": [
            {"type": "text", "text": "all kinds", "annotations": {"audience": ["user"]}},
            {"type": "image", "data": HELLO, "mimeType": "image/png"},
            {"type": "audio", "data": HELLO, "mimeType": "audio/wav"},
            {"type": "resource", "resource": {"uri": "mem://a", "mimeType": "text/plain", "text": "A"}},
            {"type": "resource", "resource": {"uri": "mem://b", "blob": HELLO}},
            {"type": "resource_link", "uri": "mem://c", "name": "c", "size": 5},
            {"type": "hologram", "depth": 3, "_meta": {"x": 1}},
        ], "structuredContent": {"kinds": 7}, "_meta": {"at": time.time()}})
    elif name == "fail":
        result(id, {"content": [{"type": "text", "text": "it went wrong: " + arguments.get("why", "")}],
                    "isError": True})
    elif name == "rpc_fail":
        send({"jsonrpc": "2.0", "id": id, "error": {"code": -32000, "message": "boom", "data": {"why": "test"}}})
    elif name == "garbage":
        sys.stdout.write("this is not json\n")
        sys.stdout.flush()
    elif name == "too_long":
        sys.stdout.write("x" * int(arguments["bytes"]) + "\n")
        sys.stdout.flush()
    elif name == "big":
        result(id, text("b" * int(arguments["bytes"])))
    elif name == "block":
        # Opening a FIFO for reading blocks until a writer opens it; reading then
        # blocks until the writer writes or closes it.
        with open(arguments["path"]) as fifo:
            data = fifo.read()
        result(id, text("read " + data))
    elif name == "write":
        # Opening a FIFO for writing blocks until a reader opens it (a `block` call).
        with open(arguments["path"], "w") as fifo:
            fifo.write(arguments["text"])
        result(id, text("wrote " + arguments["text"]))
    elif name == "family":
        # A child in the server's process group, then both ids in a file (renamed
        # into place, so a reader sees it whole), then a wait that only a signal ends.
        # (Imported here: the other tests' servers start as fast as before.)
        import subprocess
        child = subprocess.Popen(["sleep", "600"])
        with open(arguments["path"] + ".tmp", "w") as f:
            f.write("%d %d" % (os.getpid(), child.pid))
        os.rename(arguments["path"] + ".tmp", arguments["path"])
        time.sleep(600)
        result(id, text("the family slept"))
    elif name == "gone":
        # The list changes for good, and the client is told before the answer.
        with open(option("--state"), "w") as f:
            f.write("changed")
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        result(id, text("gone, and the list changed"))
    elif name == "added":
        result(id, text("added ran"))
    elif name == "exit":
        sys.exit(int(arguments["code"]))
    elif name == "ask":
        # Requests to the client and a notification, before the answer.
        send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hi"}})
        send({"jsonrpc": "2.0", "id": "p1", "method": "ping"})
        send({"jsonrpc": "2.0", "id": 7, "method": "roots/list"})
        answers = {}
        while len(answers) < 2:
            message = read()
            answers[str(message.get("id"))] = message
        result(id, {"content": [], "structuredContent": answers})
    elif name == "env":
        result(id, {"content": [], "structuredContent": sorted(os.environ)})
    elif name == "stray":
        # An answer to a request nobody made, then the real one.
        result(999999, text("stray"))
        result(id, text("after the stray"))
    elif name == "say":
        # A raw line (with "ID" standing for this request's id), then a real answer.
        sys.stdout.write(arguments["line"].replace('"ID"', json.dumps(id)) + "\n")
        sys.stdout.flush()
        result(id, text("said"))
    elif name == "stderr":
        sys.stderr.write("a line on stderr that must not be recorded\n")
        sys.stderr.flush()
        result(id, text("wrote to stderr"))
    else:
        send({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": "Unknown tool: " + name}})


ERA = option("--era", "handshake")
MODERN = "2026-07-28"
SERVER_INFO = {"name": "fake", "version": "1"}
RECEIVED = []


def envelope_error(params):
    """Why a modern request's `_meta` envelope is not acceptable, or None."""
    meta = (params or {}).get("_meta")
    if not isinstance(meta, dict):
        return "no _meta"
    if meta.get("io.modelcontextprotocol/protocolVersion") != MODERN:
        return "no protocolVersion " + MODERN
    if not isinstance(meta.get("io.modelcontextprotocol/clientCapabilities"), dict):
        return "no clientCapabilities"
    return None


def modern(message, tools, page_size):
    """Answers a request in the stateless era; True when it was handled here."""
    method, id, params = message.get("method"), message.get("id"), message.get("params")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": id, "error": {
            "code": -32022, "message": "Unsupported protocol version",
            "data": {"supported": [MODERN], "requested": params["protocolVersion"]}}})
        return True
    if id is None:
        return True
    why = envelope_error(params)
    if why:
        send({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": "Invalid params: " + why}})
        return True
    if method == "server/discover":
        if flag("--ignore-first-discover") and RECEIVED.count("server/discover") == 1:
            return True
        capabilities = {} if flag("--no-tools") else {"tools": {}}
        result(id, {"resultType": "complete", "supportedVersions": [MODERN],
                    "capabilities": capabilities, "instructions": "for tests",
                    "_meta": {"io.modelcontextprotocol/serverInfo": SERVER_INFO},
                    "ttlMs": 60000, "cacheScope": "private"})
        return True
    if method == "tools/call" and params["name"] == "input":
        result(id, {"resultType": "input_required", "inputRequests": {
            "name": {"method": "elicitation/create", "params": {"message": "Your name?"}},
            "root": {"method": "roots/list"}}, "requestState": "opaque"})
        return True
    if method == "tools/call" and params["name"] == "odd_result":
        result(id, {"resultType": "partial", "content": []})
        return True
    return False


def main():
    if option("--pid-file"):
        with open(option("--pid-file"), "w") as f:
            f.write(str(os.getpid()))
    if flag("--no-init"):
        # Answers nothing, ever.
        while sys.stdin.readline():
            pass
        if flag("--ignore-stdin-eof"):
            while True:
                time.sleep(1)
        sys.exit(0)
    if option("--stderr"):
        sys.stderr.write(option("--stderr") + "\n")
        sys.stderr.flush()
    tools = tool_set()
    page_size = int(option("--page-size", "0")) or max(len(tools), 1)
    while True:
        message = read()
        method, id = message.get("method"), message.get("id")
        RECEIVED.append(method)
        if ERA == "none":
            if id is not None:
                send({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found"}})
            continue
        if method == "server/discover" and flag("--silent-probe"):
            continue
        if method == "server/discover" and option("--discover-error"):
            send({"jsonrpc": "2.0", "id": id, "error": json.loads(option("--discover-error"))})
            continue
        if method == "server/discover" and option("--discover-result"):
            send({"jsonrpc": "2.0", "id": id, "result": json.loads(option("--discover-result"))})
            continue
        if method == "tools/call" and message["params"]["name"] == "methods":
            result(id, {"content": [], "structuredContent": {
                "methods": RECEIVED, "meta": message["params"].get("_meta")}})
            continue
        if ERA == "modern" and modern(message, tools, page_size):
            continue
        if method == "initialize":
            if flag("--banner"):
                sys.stdout.write("fake server starting\n")
                sys.stdout.flush()
            if option("--init-result"):
                result(id, json.loads(option("--init-result")))
                continue
            if flag("--init-error"):
                send({"jsonrpc": "2.0", "id": id, "error": {
                    "code": -32022, "message": "Unsupported protocol version",
                    "data": {"supported": ["2026-07-28"], "requested": message["params"]["protocolVersion"]}}})
                continue
            version = option("--version", message["params"]["protocolVersion"])
            capabilities = {} if flag("--no-tools") else {"tools": {}}
            result(id, {"protocolVersion": version, "capabilities": capabilities,
                        "serverInfo": {"name": "fake", "version": "1"},
                        "instructions": "for tests"})
            if flag("--deaf"):
                while True:
                    time.sleep(1)
        elif method == "tools/list":
            tools = tool_set()
            cursor = (message.get("params") or {}).get("cursor")
            start = int(cursor[5:]) if cursor else 0
            page = {"tools": tools[start:start + page_size]}
            if flag("--endless"):
                page["nextCursor"] = "page-" + str(start)
            elif start + page_size < len(tools):
                page["nextCursor"] = "page-" + str(start + page_size)
            if ERA == "modern":
                # Cache hints, which a list read once per run needs nothing of.
                page.update({"ttlMs": 300000, "cacheScope": "public"})
            result(id, page)
        elif method == "tools/call":
            call(id, message["params"]["name"], message["params"].get("arguments", {}))
        elif id is not None:
            send({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found"}})


main()
