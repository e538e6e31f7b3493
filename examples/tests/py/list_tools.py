"""Lists the tools of the stdio server given as the first argument with the
official Python SDK client (`mcp` from PyPI), calls add_note, and prints
what it saw as one JSON object."""
import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main() -> None:
    params = StdioServerParameters(command=sys.argv[1], args=[])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            result = await session.call_tool("add_note", {"title": "from", "body": "python"})
            print(json.dumps({
                "tools": [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools.tools],
                "result": result.model_dump(mode="json", by_alias=True, exclude_none=True),
            }))


asyncio.run(main())
