//! Request routing abuse (issue 17 item 4): a request id reused across two
//! POSTs of one session, and a second `initialize` on a live session, are
//! answered with errors and leave the session and its requests intact.

use mcpwire_http::server::Config;
use serde_json::json;

use crate::server_support::*;

#[tokio::test]
async fn a_request_id_reused_while_in_flight_is_refused_and_the_first_is_answered() {
    let server = TestServer::start(Config::default(), test_runtime()).await;
    let client = Client::connect(server.addr, V2025_11_25).await;
    let slow = request(
        7,
        "tools/call",
        json!({"name": "wait", "arguments": {"pause_ms": 1500}}),
    );
    let first = {
        let client = client.clone();
        tokio::spawn(async move { client.post(&slow).await })
    };
    // Let the first request reach the runtime before reusing its id.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let reuse = request(
        7,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "b"}}),
    );
    let refused = within(client.post(&reuse)).await;
    assert_eq!(refused.status(), 200);
    let answer = &refused.messages()[0];
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    // The first POST still gets its own answer.
    let first = within(first).await.unwrap();
    let answer = &first.messages()[0];
    assert_eq!(answer["id"], 7);
    assert_eq!(answer["result"]["content"][0]["text"], "waited", "{answer}");
    // Once answered, the id may be used again.
    let again = within(client.post(&reuse)).await;
    assert_eq!(again.messages()[0]["result"]["content"][0]["text"], "b");
    let stats = server.service.stats().await;
    assert_eq!(stats.open_streams, 0, "{stats:?}");
}

#[tokio::test]
async fn a_repeated_id_inside_a_batch_is_refused_whole() {
    let server = TestServer::start(Config::default(), test_runtime()).await;
    let client = Client::connect(server.addr, V2025_03_26).await;
    let batch = format!(
        "[{},{}]",
        request(3, "tools/list", json!({})),
        request(3, "tools/list", json!({}))
    );
    let reply = within(client.post(&batch)).await;
    assert_eq!(reply.status(), 200);
    assert_eq!(reply.messages()[0]["error"]["code"], -32600);
    let reply = within(client.post(&request(4, "tools/list", json!({})))).await;
    assert!(reply.messages()[0]["result"]["tools"].is_array());
}

#[tokio::test]
async fn a_second_initialize_gets_an_error_and_the_session_lives_on() {
    let server = TestServer::start(Config::default(), test_runtime()).await;
    for version in [V2025_03_26, V2025_06_18, V2025_11_25] {
        let client = Client::connect(server.addr, version).await;
        // Alone, with the session id.
        let reply = within(client.post(&initialize(version))).await;
        assert_eq!(reply.status(), 200, "{version}");
        assert!(reply.messages()[0]["error"].is_object(), "{version}");
        let reply = within(client.post(&request(5, "tools/list", json!({})))).await;
        assert_eq!(reply.status(), 200, "{version}: the session was closed");
        assert!(reply.messages()[0]["result"]["tools"].is_array());
        if version == V2025_03_26 {
            // Inside a batch.
            let batch = format!(
                "[{},{}]",
                initialize(version).replace("\"id\":0", "\"id\":8"),
                request(9, "tools/list", json!({}))
            );
            let reply = within(client.post(&batch)).await;
            assert_eq!(reply.status(), 200);
            let reply = within(client.post(&request(10, "tools/list", json!({})))).await;
            assert_eq!(
                reply.status(),
                200,
                "the session was closed by a batched initialize"
            );
        }
    }
}
