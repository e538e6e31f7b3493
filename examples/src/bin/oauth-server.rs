//! An MCP server protected by OAuth: Streamable HTTP behind mcpwire-auth's
//! bearer layer, with mcpwire-auth's embedded authorization server (for
//! development and tests only) issuing the tokens.
//!
//! ```text
//! cargo run -p mcpwire-examples --bin oauth-server [MCP_ADDRESS [AS_ADDRESS]]
//! ```
//!
//! Prints the MCP endpoint URL, then the authorization server's issuer URL.
//! A client without a token gets 401 with a `WWW-Authenticate` challenge
//! naming the protected resource metadata, finds the authorization server
//! there, registers (RFC 7591), gets a code with PKCE (the embedded server
//! approves at once as `test-user`) and calls the `whoami` tool with the
//! token, which answers who the token says the caller is.

#![allow(clippy::print_stdout)]

use std::sync::Arc;

use mcpwire::auth::metadata::ProtectedResourceMetadata;
use mcpwire::auth::resource::{AuthContext, BearerAuthLayer, JwtVerifier};
use mcpwire::http::server::{Config, StreamableHttp, serve};
use mcpwire::server::{Context, HandlerError, Server};
use mcpwire::types::{CallToolResult, Tool};
use mcpwire_auth::authorization_server::AuthorizationServer;
use serde_json::{Map, json};
use tower::Layer;

/// The scope the `whoami` tool needs.
const SCOPE: &str = "mcp:tools";

/// The MCP server: one tool reporting the caller's identity.
fn mcp_server() -> Result<Server, mcpwire::server::BuildError> {
    let mut whoami = Tool::new("whoami", Map::from_iter([("type".into(), json!("object"))]));
    whoami.description = Some("Says who the access token speaks for.".into());
    Server::builder("oauth-example", env!("CARGO_PKG_VERSION"))
        .tool(whoami, |ctx: Context, _arguments| async move {
            // The bearer layer put the validated identity in the HTTP
            // request's extensions; the runtime hands those on.
            let identity = AuthContext::from_transport_context(ctx.transport_context())
                .ok_or_else(|| HandlerError::tool("this request carried no identity"))?;
            let mut result = CallToolResult::text(format!(
                "subject={} client={} scopes={}",
                identity.subject.as_deref().unwrap_or("?"),
                identity.client_id.as_deref().unwrap_or("?"),
                identity.scopes.join(" ")
            ));
            result.structured_content = Some(json!({
                "subject": identity.subject,
                "client_id": identity.client_id,
                "scopes": identity.scopes,
            }));
            Ok(result)
        })
        .build()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_max_level(tracing::Level::INFO)
        .init();
    let mut args = std::env::args().skip(1);
    let mcp_address = args.next().unwrap_or_else(|| "127.0.0.1:0".to_owned());
    let as_address = args.next().unwrap_or_else(|| "127.0.0.1:0".to_owned());
    let mcp_listener = tokio::net::TcpListener::bind(&mcp_address).await?;
    let as_listener = tokio::net::TcpListener::bind(&as_address).await?;
    let resource = format!("http://{}/mcp", mcp_listener.local_addr()?);
    let issuer = format!("http://{}", as_listener.local_addr()?);

    // Development only: the embedded server approves every request.
    let authorization_server = AuthorizationServer::builder(issuer.as_str())
        .scopes_supported([SCOPE])
        .build()?;
    // The resource server reads the keys straight from the embedded server;
    // with a real one, use `JwksUri` and a `DocumentFetch` instead.
    let verifier = JwtVerifier::new(Arc::new(authorization_server.clone())).issuer(issuer.as_str());
    let mut metadata = ProtectedResourceMetadata::new(resource.as_str(), issuer.as_str());
    metadata.scopes_supported = Some(vec![SCOPE.to_owned()]);
    let layer = BearerAuthLayer::new(metadata, Arc::new(verifier))?.required_scopes([SCOPE]);

    let server = mcp_server()?;
    let mcp = StreamableHttp::with_runtime(Config::default(), move |transport| {
        server.run_session(transport)
    });

    println!("{resource}");
    println!("{issuer}");
    let authorization = tokio::spawn(serve(as_listener, authorization_server).into_future());
    // The layer wraps the whole endpoint, so it also answers the metadata
    // paths; it removes the Authorization header before the MCP service.
    serve(mcp_listener, layer.layer(mcp)).await?;
    authorization.abort();
    Ok(())
}
