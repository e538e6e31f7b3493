//! A child's stderr lines become `info` events of target `mcpwire_stdio::child`, never errors.

use std::fmt::Debug;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcpwire_jsonrpc::{Inbound, Notification, Packet};
use mcpwire_stdio::{ShutdownOutcome, StdioClient};
use tokio::time::timeout;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};

const LIMIT: Duration = Duration::from_secs(20);

#[derive(Clone, Debug, PartialEq, Eq)]
struct Captured {
    target: String,
    level: Level,
    server: Option<String>,
    message: Option<String>,
}

/// A subscriber that records every event, so the test needs no
/// `tracing-subscriber`.
#[derive(Clone, Default)]
struct Capture {
    events: Arc<Mutex<Vec<Captured>>>,
}

#[derive(Default)]
struct Fields {
    server: Option<String>,
    message: Option<String>,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        match field.name() {
            "server" => self.server = Some(value.to_owned()),
            "message" => self.message = Some(value.to_owned()),
            _ => {}
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        match field.name() {
            "server" => self.server = Some(format!("{value:?}")),
            "message" => self.message = Some(format!("{value:?}")),
            _ => {}
        }
    }
}

impl Subscriber for Capture {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let mut fields = Fields::default();
        event.record(&mut fields);
        self.events.lock().unwrap().push(Captured {
            target: event.metadata().target().to_owned(),
            level: *event.metadata().level(),
            server: fields.server,
            message: fields.message,
        });
    }

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}

// A current-thread runtime runs the forwarding task on this thread, where
// the capturing subscriber is the default.
#[tokio::test(flavor = "current_thread")]
async fn each_stderr_line_is_an_info_event_naming_the_server() {
    let capture = Capture::default();
    let _default = tracing::subscriber::set_default(capture.clone());

    let script = r#"printf 'starting up\nerror: not really an error\r\n\n\377 bad byte\n' >&2
printf '{"jsonrpc":"2.0","method":"ready"}\n'
printf 'no newline at the end' >&2
exec cat"#;
    let (mut transport, server) = StdioClient::new("sh")
        .args(["-c", script])
        .server_name("probe")
        .spawn()
        .unwrap();
    let ready = timeout(LIMIT, transport.recv()).await.unwrap();
    assert_eq!(
        ready.unwrap().unwrap(),
        Inbound::from(Packet::from(Notification::without_params("ready")))
    );
    let outcome = timeout(LIMIT, server.shutdown()).await.unwrap().unwrap();
    assert!(
        matches!(outcome, ShutdownOutcome::ExitedOnEof(_)),
        "{outcome:?}"
    );

    let events = capture.events.lock().unwrap().clone();
    let forwarded: Vec<&Captured> = events
        .iter()
        .filter(|event| event.target == "mcpwire_stdio::child" && event.level == Level::INFO)
        .collect();
    let messages: Vec<&str> = forwarded
        .iter()
        .map(|event| event.message.as_deref().unwrap_or_default())
        .collect();
    assert_eq!(
        messages,
        [
            "starting up",
            "error: not really an error",
            "\u{FFFD} bad byte",
            "no newline at the end",
        ]
    );
    assert!(
        forwarded
            .iter()
            .all(|event| event.server.as_deref() == Some("probe"))
    );
    // Whatever the server wrote, nothing was reported as a warning or error.
    assert!(
        events
            .iter()
            .all(|event| event.level != Level::WARN && event.level != Level::ERROR),
        "{events:?}"
    );
}
