//! The output schemas the client remembers from `tools/list` are bounded in
//! bytes as well as in entries, over a real TCP socket on 127.0.0.1: a
//! server listing tools whose schemas are a MiB each cannot make the client
//! hold more than the default 4 MiB of them. A tool whose schema was
//! forgotten has its results taken unchecked, which is how the test sees
//! what is remembered.

use mcpwire_client::{Client, ClientError};
use mcpwire_stdio::StdioTransport;
use mcpwire_types::ProtocolVersion;
use serde_json::{Map, json};
use tokio::net::TcpStream;

use crate::support::{bounded, loopback, pinned, tool_pages_server};

/// How many tools the server lists, one per page.
const TOOLS: usize = 6;

/// How long each tool's `outputSchema` is: a quarter of the default bound,
/// plus its other keywords, so that three fit and four do not.
const SCHEMA_TEXT: usize = 1024 * 1024;

/// A scripted 2025-06-18 server listing [`TOOLS`] tools, `big-1` to
/// `big-6`, one per page, each with an output schema of [`SCHEMA_TEXT`]
/// bytes requiring `n`; every call answers structured content without
/// `n`, which a remembered schema refuses.
async fn schema_server(stream: TcpStream) {
    let tool = |n: usize| {
        json!({
            "name": format!("big-{n}"),
            "inputSchema": {"type": "object"},
            "outputSchema": {
                "type": "object",
                "description": "x".repeat(SCHEMA_TEXT),
                "properties": {"n": {"type": "integer"}},
                "required": ["n"]
            }
        })
    };
    let call = json!({"content": [], "structuredContent": {}});
    tool_pages_server(stream, TOOLS, tool, Some(call)).await;
}

#[tokio::test]
async fn remembered_output_schemas_are_bounded_in_bytes() {
    bounded(async {
        let (client_end, server_end) = loopback().await;
        tokio::spawn(schema_server(server_end));
        let (read, write) = client_end.into_split();
        let client = Client::builder(pinned(ProtocolVersion::V2025_06_18))
            .connect(StdioTransport::new(read, write))
            .await
            .unwrap();
        let listed = client.list_all_tools().await.unwrap();
        assert_eq!(listed.len(), TOOLS);

        let mut checked = Vec::new();
        for n in 1..=TOOLS {
            let name = format!("big-{n}");
            match client.call_tool(&name, Map::new()).await {
                Ok(_) => {}
                Err(ClientError::InvalidStructuredContent { tool, .. }) => checked.push(tool),
                Err(other) => panic!("{name}: unexpected error {other:?}"),
            }
        }
        // Three schemas of a MiB fit in the default 4 MiB, four do not:
        // before the byte bound the client remembered all six (1,024 were
        // allowed, counted in entries only). The cache forgets the schema
        // learned longest ago first, so the three listed last are kept.
        let last_three: Vec<String> = (TOOLS - 2..=TOOLS).map(|n| format!("big-{n}")).collect();
        assert_eq!(checked, last_three, "schemas remembered");
        client.close().await;
    })
    .await;
}
