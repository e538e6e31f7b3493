"""The Python SDK's client against a stdio MCP server, in one mode.

Usage: python_client.py MODE SERVER [ARGS...]; MODE is 'legacy' (the
initialize handshake) or 'auto' (server/discover first, 2026-07-28 when the
server speaks it). Prints one JSON object: what the client negotiated, the
tools it listed and what its calls returned, for the Rust test to check.
"""

import asyncio
import json
import sys

from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError


async def main(mode: str, command: list[str]) -> dict:
    server = StdioServerParameters(command=command[0], args=command[1:])
    async with Client(server, mode=mode, read_timeout_seconds=30) as client:
        tools = await client.list_tools()
        echo = await client.call_tool("echo", {"text": "hello from python"})
        add = await client.call_tool("add", {"a": 2, "b": 40})
        bad = await client.call_tool("echo", {})
        try:
            await client.call_tool("no-such-tool", {})
            unknown = None
        except MCPError as error:
            unknown = error.error.code
        return {
            "protocolVersion": client.protocol_version,
            "serverName": client.server_info.name if client.server_info else None,
            "tools": [tool.name for tool in tools.tools],
            "echo": [block.text for block in echo.content],
            "addStructured": add.structured_content,
            "badArgumentsIsError": bad.is_error,
            "unknownToolCode": unknown,
        }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1], sys.argv[2:]))))
