//! `logs`: prints log messages and change notifications until Ctrl-C
//! (or `--duration`).

use std::time::Duration;

use mcpwire::client::{ClientError, RequestOptions};
use mcpwire::types::methods::{ServerNotification, SubscriptionsListen};
use mcpwire::types::{SubscriptionFilter, SubscriptionsListenRequestParams};
use serde_json::{Value, json};
use tokio::sync::broadcast::error::RecvError;

use crate::cli::{GlobalOptions, LogsArgs};
use crate::error::CliResult;
use crate::output::line;
use crate::session::{self, log_line, parse_level};
use crate::target::resolve;

use super::no_more_words;

/// `logs`: prints log messages and change notifications until Ctrl-C
/// (or `--duration`).
pub(crate) async fn logs(args: &LogsArgs, global: &GlobalOptions) -> CliResult {
    let (target, rest) = resolve(&args.target.words, &args.target.command, global)?;
    no_more_words(&rest)?;
    let level = parse_level(&args.level)?;
    let json_mode = global.json;
    let duration = args.duration.map(Duration::from_secs);
    session::run(
        &target,
        global,
        level,
        false,
        |client, _transport| async move {
            let mut notifications = client.notifications();
            // In 2026-07-28 change notifications flow only while a
            // `subscriptions/listen` request is open; hold one for as long as we follow.
            let listener = (!client.server().version.has_handshake()).then(|| {
                let client = client.clone();
                tokio::spawn(async move {
                    let filter = SubscriptionFilter {
                        tools_list_changed: Some(true),
                        prompts_list_changed: Some(true),
                        resources_list_changed: Some(true),
                        ..SubscriptionFilter::default()
                    };
                    // The request is held open until its timeout, then renewed,
                    // for as long as `logs` follows.
                    loop {
                        let params = SubscriptionsListenRequestParams::new(filter.clone());
                        let options = RequestOptions {
                            timeout: Some(Duration::from_secs(24 * 3600)),
                            ..RequestOptions::default()
                        };
                        match client.request::<SubscriptionsListen>(params, options).await {
                            Err(ClientError::TimedOut) => continue,
                            Err(error) => {
                                eprintln!("warning: subscriptions/listen failed: {error}");
                            }
                            Ok(_) => {}
                        }
                        break;
                    }
                })
            });
            if !json_mode {
                eprintln!(
                    "following {}; press Ctrl-C to stop",
                    client
                        .server()
                        .info
                        .as_ref()
                        .map_or("the server", |i| i.name.as_str())
                );
            }
            let follow = async {
                loop {
                    match notifications.recv().await {
                        Ok(notification) => print_notification(&notification, json_mode),
                        Err(RecvError::Lagged(missed)) => {
                            eprintln!("warning: {missed} notifications were missed");
                        }
                        Err(RecvError::Closed) => return,
                    }
                }
            };
            match duration {
                Some(duration) => {
                    let _ = tokio::time::timeout(duration, follow).await;
                }
                None => follow.await,
            }
            if let Some(listener) = listener {
                listener.abort();
            }
            Ok(())
        },
    )
    .await
}

/// Prints one notification of `logs`.
fn print_notification(notification: &ServerNotification, json_mode: bool) {
    let params: Value = notification
        .encode_params()
        .ok()
        .and_then(|raw| serde_json::from_str(raw.get()).ok())
        .unwrap_or_default();
    if json_mode {
        let value = json!({"method": notification.method(), "params": params});
        line(serde_json::to_string(&value).unwrap_or_default());
        return;
    }
    match notification {
        ServerNotification::LoggingMessage(message) => {
            line(log_line(
                message.level,
                message.logger.as_deref(),
                &message.data,
            ));
        }
        ServerNotification::ResourceUpdated(updated) => {
            line(format!("{}: {}", notification.method(), updated.uri));
        }
        _ => line(notification.method()),
    }
}
