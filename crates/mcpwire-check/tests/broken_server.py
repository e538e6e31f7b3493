"""A deliberately broken MCP stdio server for mcpwire-check's tests.

Standard library only. It speaks 2025-11-25 and plants one defect per rule;
the test expects each to be reported by that rule:

  STDIO-02  a line on stdout that is not JSON-RPC
  LIFE-10   initialize with an unknown revision answered with an error
  PING-01   ping answered with an error
  BASE-20   an unknown method answered -32600; bad tools/call params -32603
  TOOL-04   a tool whose inputSchema has no root "type": "object"
  TOOL-05   an outputSchema that is not a valid JSON Schema
  TOOL-09   a tool name with a space and "!"
  TOOL-10   a tool listed twice (on two pages)
  TOOL-16   an unknown tool answered with a result, not -32602
  PAGE-05   an invalid cursor answered with the first page
  LIFE-15   stdin's end ignored (exits only on SIGTERM)
  RES-04    a resources/list page whose resource has no name
  COMP-02   completion/complete answered with 150 values

and, found only with --call-tools:

  TOOL-14   structuredContent that does not fit the tool's outputSchema
  PROG-03   progress that goes backwards
  CANCEL-05 a slow tool with progress that still answers after its
            cancellation (one line at a time: the cancel is read too late)
"""

import json
import sys
import time

OUT = sys.stdout

KNOWN = {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}

PAGE_1 = [
    {"name": "echo", "inputSchema": {"type": "object"}},
    {"name": "no type", "inputSchema": {"properties": {}}},
    {"name": "bad name!", "inputSchema": {"type": "object"}},
]
PAGE_2 = [
    {"name": "echo", "inputSchema": {"type": "object"}},
    {
        "name": "weird-output",
        "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object", "properties": {"x": {"type": "nonsense"}}},
    },
    {
        "name": "structured",
        "inputSchema": {"type": "object"},
        "outputSchema": {
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "required": ["n"],
        },
    },
    {"name": "backwards", "inputSchema": {"type": "object"}},
    {"name": "slow", "inputSchema": {"type": "object"}},
]


def send(message):
    print(json.dumps(message), file=OUT, flush=True)


def progress(params, values, pause):
    token = (params.get("_meta") or {}).get("progressToken")
    for value in values:
        if token is not None:
            send({
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {"progressToken": token, "progress": value},
            })
        time.sleep(pause)


def call_tool(params):
    name = params.get("name")
    text = {"content": [{"type": "text", "text": "done"}]}
    if name == "structured":
        structured = {"n": "not a number"}
        block = {"type": "text", "text": json.dumps(structured)}
        return {"content": [block], "structuredContent": structured}
    if name == "backwards":
        progress(params, [2, 1], 0.01)
        return text
    if name == "slow":
        progress(params, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.1)
        return text
    return {"content": [{"type": "text", "text": "no such tool"}], "isError": True}


def answer(request):
    method, params = request.get("method"), request.get("params") or {}
    if method == "initialize":
        if params.get("protocolVersion") not in KNOWN:
            return None, {"code": -32602, "message": "unsupported protocol version"}
        return {
            "protocolVersion": "2025-11-25",
            "capabilities": {
                "tools": {},
                "resources": {},
                "prompts": {},
                "completions": {},
            },
            "serverInfo": {"name": "broken", "version": "0.0.1"},
        }, None
    if method == "ping":
        return None, {"code": -32601, "message": "no ping here"}
    if method == "tools/list":
        if params.get("cursor") == "p2":
            return {"tools": PAGE_2}, None
        return {"tools": PAGE_1, "nextCursor": "p2"}, None
    if method == "tools/call":
        if not isinstance(params.get("name"), str):
            return None, {"code": -32603, "message": "internal error"}
        return call_tool(params), None
    if method == "resources/list":
        return {"resources": [{"uri": "note://1"}]}, None
    if method == "resources/read":
        return {"contents": [{"uri": "note://1", "text": "one"}]}, None
    if method == "resources/templates/list":
        return {"resourceTemplates": [{"name": "note", "uriTemplate": "note://{id}"}]}, None
    if method == "prompts/list":
        prompt = {"name": "greet", "arguments": [{"name": "who", "required": True}]}
        return {"prompts": [prompt]}, None
    if method == "completion/complete":
        values = [f"v{i}" for i in range(150)]
        return {"completion": {"values": values, "hasMore": False}}, None
    return None, {"code": -32600, "message": "what?"}


def main():
    print("hello from the broken server", flush=True)
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if "id" not in message or "method" not in message:
            continue
        result, error = answer(message)
        reply = {"jsonrpc": "2.0", "id": message["id"]}
        if error is None:
            reply["result"] = result
        else:
            reply["error"] = error
        send(reply)
    time.sleep(60)


main()
