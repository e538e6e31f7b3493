//! `login` and `logout` against an OAuth-protected MCP server built here:
//! Streamable HTTP behind mcpwire-auth's bearer layer, with the embedded
//! authorization server (which approves at once) on 127.0.0.1; and the
//! stored tokens used by later commands, tasks included.

use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use mcpwire::http::server::{Config, StreamableHttp, serve};
use mcpwire::server::tasks::TaskOptions;
use mcpwire::server::{Context, Server};
use mcpwire::types::{CallToolResult, TaskSupport, Tool, ToolExecution};
use mcpwire_auth::authorization_server::AuthorizationServer;
use mcpwire_auth::metadata::ProtectedResourceMetadata;
use mcpwire_auth::resource::{BearerAuthLayer, JwtVerifier};
use serde_json::{Map, json};
use tokio::sync::oneshot;
use tower::Layer;

use crate::support::{Outcome, finish, mcpwire, temp_dir};

/// The scope the protected server demands.
const SCOPE: &str = "mcp:tools";

/// The protected server, running on a thread of its own until dropped.
struct ProtectedServer {
    url: String,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for ProtectedServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// An MCP server with one tool (`echo`, which may run as a task) behind
/// the bearer layer, and its authorization server.
fn start_protected_server() -> ProtectedServer {
    let (url_tx, url_rx) = std::sync::mpsc::channel();
    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    let thread = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let mcp_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let as_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let resource = format!("http://{}/mcp", mcp_listener.local_addr().unwrap());
            let issuer = format!("http://{}", as_listener.local_addr().unwrap());
            let authorization_server = AuthorizationServer::builder(issuer.as_str())
                .scopes_supported([SCOPE])
                .build()
                .unwrap();
            let verifier =
                JwtVerifier::new(Arc::new(authorization_server.clone())).issuer(issuer.as_str());
            let mut metadata = ProtectedResourceMetadata::new(resource.as_str(), issuer.as_str());
            metadata.scopes_supported = Some(vec![SCOPE.to_owned()]);
            let layer = BearerAuthLayer::new(metadata, Arc::new(verifier))
                .unwrap()
                .required_scopes([SCOPE]);
            let mut echo = Tool::new("echo", Map::from_iter([("type".into(), json!("object"))]));
            echo.execution = Some(ToolExecution {
                task_support: Some(TaskSupport::Optional),
                ..ToolExecution::default()
            });
            let server = Server::builder("protected", "1.0.0")
                .tasks(TaskOptions::new())
                .tool(echo, |_ctx: Context, _arguments| async move {
                    Ok(CallToolResult::text("echoed"))
                })
                .build()
                .unwrap();
            let mcp = StreamableHttp::new(Config::default(), move |transport| {
                let server = server.clone();
                tokio::spawn(async move {
                    let _ = server.serve(transport).await;
                });
            });
            url_tx.send(resource).unwrap();
            let authorization =
                tokio::spawn(serve(as_listener, authorization_server).into_future());
            tokio::select! {
                _ = serve(mcp_listener, layer.layer(mcp)).into_future() => {}
                _ = stop_rx => {}
            }
            authorization.abort();
        });
    });
    let url = url_rx.recv_timeout(Duration::from_secs(30)).unwrap();
    ProtectedServer {
        url,
        stop: Some(stop_tx),
        thread: Some(thread),
    }
}

/// Runs `mcpwire ARGS` with the given token file and no other token
/// location to fall back on.
fn run_with_tokens(args: &[&str], tokens: &std::path::Path) -> Outcome {
    let mut child = Command::new(mcpwire())
        .args(args)
        .env("MCPWIRE_TOKEN_FILE", tokens)
        .env_remove("MCPWIRE_LOGIN_CAPTURE")
        .current_dir(std::env::temp_dir())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    finish(&mut child)
}

#[test]
fn login_stores_private_tokens_that_later_commands_use_until_logout() {
    let server = start_protected_server();
    let dir = temp_dir("login");
    let tokens = dir.join("config").join("tokens.json");
    let url = server.url.as_str();

    let out = run_with_tokens(&["inspect", url], &tokens);
    assert_eq!(out.code(), Some(3), "{out:?}");
    assert!(
        out.stderr.contains(&format!("run `mcpwire login {url}`")),
        "{out:?}"
    );

    let out = run_with_tokens(&["login", url, "--redirect-capture"], &tokens);
    assert_eq!(out.code(), Some(0), "{out:?}");
    assert!(out.stdout.contains("Logged in to"), "{out:?}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&tokens).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "token file mode {mode:o}");
    }

    let out = run_with_tokens(&["--json", "inspect", url], &tokens);
    assert_eq!(out.code(), Some(0), "{out:?}");
    assert_eq!(out.json()["serverInfo"]["name"], "protected", "{out:?}");

    logout_forgets_the_tokens(url, &tokens);
}

fn logout_forgets_the_tokens(url: &str, tokens: &std::path::Path) {
    let out = run_with_tokens(&["logout", url], tokens);
    assert_eq!(out.code(), Some(0), "{out:?}");
    let stored: serde_json::Value =
        serde_json::from_slice(&std::fs::read(tokens).unwrap()).unwrap();
    assert_eq!(stored["tokens"], json!({}), "{stored}");
    let out = run_with_tokens(&["inspect", url], tokens);
    assert_eq!(out.code(), Some(3), "{out:?}");
}

/// `call --task` goes through the stored login like any other command.
#[test]
fn call_as_task_runs_through_the_stored_login() {
    let server = start_protected_server();
    let dir = temp_dir("login-tasks");
    let tokens = dir.join("tokens.json");
    let url = server.url.as_str();
    let out = run_with_tokens(&["login", url, "--redirect-capture"], &tokens);
    assert_eq!(out.code(), Some(0), "{out:?}");

    let out = run_with_tokens(&["call", "--task", url, "echo"], &tokens);
    assert_eq!(out.code(), Some(0), "{out:?}");
    assert!(out.stdout.contains("echoed"), "{out:?}");
    let line = out.stderr.lines().find(|l| l.starts_with("task ")).unwrap();
    assert!(
        line.ends_with(" working") || line.ends_with(" completed"),
        "{out:?}"
    );
}
