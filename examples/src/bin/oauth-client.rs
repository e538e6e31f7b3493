//! A client for the `oauth-server` example: logs in with mcpwire-auth's
//! OAuth client, then calls the `whoami` tool over Streamable HTTP.
//!
//! ```text
//! cargo run -p mcpwire-examples --bin oauth-client -- http://127.0.0.1:PORT/mcp
//! ```
//!
//! The first request gets 401; the OAuth client reads the challenge,
//! discovers the authorization server, registers, and sends the "browser"
//! to the authorization URL through its `UserAgent` hook. Here the hook is
//! [`RedirectCapture`], which visits the URL itself and reads the redirect:
//! right for the embedded authorization server, which approves at once.
//! With a real one, use `LoopbackRedirect` with an `Opener` that starts the
//! user's browser.

#![allow(clippy::print_stdout)]

use std::sync::Arc;

use mcpwire::client::{Client, ClientConfig};
use mcpwire::http::client::{ClientOptions, HttpClient, StreamableHttpClient, parse_url};
use mcpwire::types::{ClientCapabilities, ContentBlock, Implementation};
use mcpwire_auth::client::{
    HttpFetch, HyperFetch, MemoryStore, OAuthClient, OAuthConfig, RedirectCapture,
};
use serde_json::Map;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::args()
        .nth(1)
        .ok_or("usage: oauth-client MCP_URL (as printed by oauth-server)")?;
    let http: Arc<dyn HttpFetch> = Arc::new(HyperFetch::new());
    let config = OAuthConfig::new("mcpwire oauth example", "http://127.0.0.1:9/callback");
    let oauth = OAuthClient::new(
        &url,
        config,
        http.clone(),
        Arc::new(RedirectCapture::new(http)),
        Arc::new(MemoryStore::default()),
    )?;

    // One request without a token, to be challenged (MCP authorization).
    let uri = parse_url(&url)?;
    let probe = HttpClient::for_endpoint(&uri, &ClientOptions::default())?;
    let request = http::Request::post(uri)
        .header(http::header::CONTENT_TYPE, "application/json")
        .body(bytes::Bytes::from_static(b"{}"))?;
    let answer = probe
        .request(request)
        .await
        .map_err(|error| error.to_string())?;
    if !oauth
        .handle_challenge(answer.status(), answer.headers())
        .await?
    {
        return Err(format!("the server answered {} and no login helps", answer.status()).into());
    }
    println!("logged in");

    let transport = StreamableHttpClient::new(&url)?;
    for (name, value) in &oauth.authorization_headers("POST", &url).await? {
        transport.set_header(name.clone(), value.clone());
    }
    let info = Implementation::new("oauth-client", env!("CARGO_PKG_VERSION"));
    let client = Client::connect(
        transport,
        ClientConfig::new(info, ClientCapabilities::default()),
    )
    .await?;
    let result = client.call_tool("whoami", Map::new()).await?;
    for block in &result.content {
        if let ContentBlock::Text(text) = block {
            println!("whoami: {}", text.text);
        }
    }
    Ok(())
}
