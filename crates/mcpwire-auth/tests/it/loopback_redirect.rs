//! The native-app user agent: the loopback listener receives the
//! authorization response the browser is redirected to (RFC 8252 §7.3).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http::{Method, Request};
use mcpwire_auth::client::{HttpFetch, HyperFetch, LoopbackRedirect, Opener, UserAgent};

/// An opener standing in for the browser: it remembers the URL and
/// requests `callback` (as the authorization server's redirect would),
/// then a stray path first, which the listener must skip.
fn browser(callback: String, opened: Arc<Mutex<Vec<String>>>) -> Opener {
    Arc::new(move |url: &str| {
        opened.lock().unwrap().push(url.to_owned());
        let callback = callback.clone();
        tokio::spawn(async move {
            let http = HyperFetch::new();
            let stray = callback.replace("/callback?", "/favicon.ico?");
            for target in [stray, callback] {
                let request = Request::builder()
                    .method(Method::GET)
                    .uri(target)
                    .body(Bytes::new())
                    .unwrap();
                let _ = http.fetch(request).await;
            }
        });
        Ok(())
    })
}

// AUTH-63, AUTH-68: the loopback redirect URI of a native client.
#[tokio::test]
async fn the_loopback_listener_returns_the_redirect_it_receives_and_skips_other_paths() {
    let opened = Arc::new(Mutex::new(Vec::new()));
    // The port is only known once bound: bind once to learn a free port.
    let probe = LoopbackRedirect::bind(0, "/callback", Arc::new(|_: &str| Ok(())))
        .await
        .unwrap();
    let port: u16 = probe
        .redirect_uri()
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/callback")
        .parse()
        .unwrap();
    drop(probe);
    let callback = format!("http://127.0.0.1:{port}/callback?code=abc&state=xyz");
    let agent = LoopbackRedirect::bind(
        port,
        "callback",
        browser(callback.clone(), Arc::clone(&opened)),
    )
    .await
    .unwrap()
    .timeout(Duration::from_secs(10));
    assert_eq!(
        agent.redirect_uri(),
        format!("http://127.0.0.1:{port}/callback")
    );
    let answer = agent
        .authorize("https://as.example/authorize?x=1", agent.redirect_uri())
        .await
        .unwrap();
    assert_eq!(answer, callback);
    assert_eq!(
        *opened.lock().unwrap(),
        ["https://as.example/authorize?x=1"]
    );
}

// AUTH-63: the loopback listener is bounded in time.
#[tokio::test]
async fn the_loopback_listener_gives_up_when_nobody_comes_back() {
    let agent = LoopbackRedirect::bind(0, "/callback", Arc::new(|_: &str| Ok(())))
        .await
        .unwrap()
        .timeout(Duration::from_millis(200));
    let error = agent
        .authorize("https://as.example/authorize", agent.redirect_uri())
        .await
        .unwrap_err();
    assert!(error.to_string().contains("in time"), "{error}");
    let refused =
        LoopbackRedirect::bind(0, "/cb", Arc::new(|_: &str| Err("no browser".to_owned())))
            .await
            .unwrap();
    let error = refused
        .authorize("https://as.example/a", refused.redirect_uri())
        .await
        .unwrap_err();
    assert!(error.to_string().contains("no browser"), "{error}");
}
