//! Runtime tests of the `ChangeFeed` hook: a server publishes the changes
//! it makes, announces the changes a feed delivers from other instances to
//! its own sessions without publishing them again, and answers a `missed`
//! change by announcing every list and every followed resource.

use crate::support;

use std::sync::{Arc, Mutex};

use mcpwire_server::{Change, ChangeFeed, ChangeSink, Context, Server};
use mcpwire_types::{CallToolResult, ReadResourceResult, Resource, Tool};
use serde_json::{Value, json};
use support::{RawPeer, serve, stateless_meta, with_meta};

const CONFIG: &str = "file:///project/config.json";

/// A feed that records what it was asked to publish and keeps the sink.
#[derive(Default)]
struct RecordingFeed {
    published: Mutex<Vec<Change>>,
    sink: Mutex<Option<ChangeSink>>,
}

impl ChangeFeed for RecordingFeed {
    fn publish(&self, change: &Change) {
        self.published.lock().unwrap().push(change.clone());
    }

    fn attach(&self, sink: ChangeSink) {
        *self.sink.lock().unwrap() = Some(sink);
    }
}

impl RecordingFeed {
    fn deliver(&self, change: Change) -> bool {
        self.sink.lock().unwrap().as_ref().unwrap().deliver(change)
    }

    fn published(&self) -> Vec<Change> {
        self.published.lock().unwrap().clone()
    }
}

fn server(feed: &Arc<RecordingFeed>) -> Server {
    Server::builder("fed", "1.0.0")
        .enable_tools()
        .enable_prompts()
        .resource(Resource::new(CONFIG, "config"), |_ctx: Context, _uri| {
            std::future::ready(Ok(ReadResourceResult::new(Vec::new())))
        })
        .change_feed(feed.clone())
        .build()
        .unwrap()
}

async fn listen(peer: &mut RawPeer, filter: Value) {
    let params = with_meta(json!({"notifications": filter}), &stateless_meta(json!({})));
    peer.send_request(1, "subscriptions/listen", params).await;
    let ack = peer.recv().await;
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
}

#[tokio::test]
async fn local_changes_are_published_and_delivered_ones_are_announced_but_not_published_again() {
    let feed = Arc::new(RecordingFeed::default());
    let server = server(&feed);
    let (mut peer, _task) = serve(&server);
    listen(
        &mut peer,
        json!({"toolsListChanged": true, "resourceSubscriptions": [CONFIG]}),
    )
    .await;
    server
        .add_tool(Tool::without_arguments("late"), |_ctx: Context, _args| {
            std::future::ready(Ok(CallToolResult::text("ok")))
        })
        .unwrap();
    assert_eq!(feed.published(), [Change::Tools]);
    let listed = peer.recv().await;
    assert_eq!(listed["method"], "notifications/tools/list_changed");

    assert!(feed.deliver(Change::ResourceUpdated(CONFIG.to_owned())));
    let updated = peer.recv().await;
    assert_eq!(updated["method"], "notifications/resources/updated");
    assert_eq!(updated["params"]["uri"], CONFIG);
    assert_eq!(
        feed.published(),
        [Change::Tools],
        "a delivered change was published"
    );
    peer.expect_silence().await;
}

#[tokio::test]
async fn a_missed_change_announces_every_list_and_every_followed_resource() {
    let feed = Arc::new(RecordingFeed::default());
    let server = server(&feed);
    let (mut peer, _task) = serve(&server);
    listen(
        &mut peer,
        json!({
            "toolsListChanged": true,
            "promptsListChanged": true,
            "resourcesListChanged": true,
            "resourceSubscriptions": [CONFIG]
        }),
    )
    .await;
    assert!(feed.deliver(Change::Missed));
    let mut methods = Vec::new();
    for _ in 0..4 {
        let message = peer.recv().await;
        if message["method"] == "notifications/resources/updated" {
            assert_eq!(message["params"]["uri"], CONFIG);
        }
        methods.push(message["method"].as_str().unwrap().to_owned());
    }
    methods.sort();
    assert_eq!(
        methods,
        [
            "notifications/prompts/list_changed",
            "notifications/resources/list_changed",
            "notifications/resources/updated",
            "notifications/tools/list_changed",
        ]
    );
    peer.expect_silence().await;
    assert!(feed.published().is_empty());
}

#[tokio::test]
async fn a_sink_reports_its_server_gone_once_dropped() {
    let feed = Arc::new(RecordingFeed::default());
    let server = server(&feed);
    assert!(feed.deliver(Change::Tools));
    drop(server);
    assert!(!feed.deliver(Change::Tools));
}
