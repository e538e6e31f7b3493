//! A peer that misbehaves on the wire: garbage lines between valid
//! messages are answered with errors and do not disturb the session.

use mcpwire_client::Client;
use mcpwire_types::{ContentBlock, ProtocolVersion};
use serde_json::{Map, json};

use crate::support::{bounded, config, scripted};

const GARBAGE: [&str; 5] = [
    "this is not JSON",
    "{\"jsonrpc\": \"2.0\"",
    "{\"jsonrpc\": \"1.0\", \"id\": 7, \"method\": \"x\"}",
    "[]",
    "42",
];

#[tokio::test]
async fn garbage_lines_between_valid_messages_do_not_disturb_the_session() {
    bounded(async {
        let (transport, mut peer) = scripted();
        let script = async move {
            let initialize = peer.expect("initialize").await;
            for line in GARBAGE {
                peer.send_line(line);
            }
            peer.answer(
                &initialize["id"],
                &json!({
                    "protocolVersion": "2025-06-18",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "messy", "version": "1"}
                }),
            );
            peer.expect("notifications/initialized").await;
            peer
        };
        let connecting = Client::connect(transport, config().pinned(ProtocolVersion::V2025_06_18));
        let (client, mut peer) = tokio::join!(connecting, script);
        let client = client.unwrap();
        assert_eq!(client.server().info.as_ref().unwrap().name, "messy");

        // Garbage, then a ping from the server: each garbage line is
        // answered with one error, in order, before the ping's answer.
        for line in GARBAGE {
            peer.send_line(line);
        }
        peer.send(&json!({"jsonrpc": "2.0", "id": "p1", "method": "ping"}));
        let mut codes = Vec::new();
        loop {
            let message = peer.next().await.unwrap();
            if message["id"] == "p1" && message.get("result").is_some() {
                break;
            }
            codes.push(message["error"]["code"].as_i64().unwrap());
        }
        assert_eq!(codes, [-32700, -32700, -32600, -32600, -32600]);

        // A call still works, with garbage before its answer.
        let (result, ()) = tokio::join!(client.call_tool("echo", Map::new()), async {
            let request = peer.expect("tools/call").await;
            for line in GARBAGE {
                peer.send_line(line);
            }
            peer.answer(
                &request["id"],
                &json!({"content": [{"type": "text", "text": "ok"}]}),
            );
        });
        assert_eq!(result.unwrap().content, vec![ContentBlock::text("ok")]);
    })
    .await;
}
