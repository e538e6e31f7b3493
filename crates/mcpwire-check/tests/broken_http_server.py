"""A deliberately broken Streamable HTTP server for mcpwire-check's tests.

Standard library only; listens on 127.0.0.1 (port chosen by the system,
printed as the endpoint URL on stdout) and speaks 2025-11-25 with these
HTTP defects, each to be reported by its rule:

  HTTP-09  a notification answered 200 with a body, not 202
  HTTP-45  an unknown MCP-Protocol-Version header accepted (not 400)
  HTTP-39  a session still answered after its DELETE (not 404)
  HTTP-03  a foreign Origin accepted on a loopback server (not 403)
  HTTP-02  a foreign Host accepted on a loopback server (a warning)
"""

import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, status, body, session=None):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        if session:
            self.send_header("mcp-session-id", session)
        self.end_headers()
        self.wfile.write(data)

    def do_DELETE(self):
        self.reply(200, {})

    def do_GET(self):
        self.send_response(405)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_POST(self):
        length = int(self.headers.get("content-length", "0"))
        message = json.loads(self.rfile.read(length) or b"{}")
        if "id" not in message:
            return self.reply(200, {"ok": True})
        method = message.get("method")
        if method == "initialize":
            result = {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "serverInfo": {"name": "broken-http", "version": "0.0.1"},
            }
            reply = {"jsonrpc": "2.0", "id": message["id"], "result": result}
            return self.reply(200, reply, session="s-1")
        if method == "ping":
            return self.reply(200, {"jsonrpc": "2.0", "id": message["id"], "result": {}})
        error = {"code": -32601, "message": "method not found"}
        return self.reply(200, {"jsonrpc": "2.0", "id": message["id"], "error": error})


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"http://127.0.0.1:{server.server_address[1]}/mcp", flush=True)
server.serve_forever()
