//! The `Authorizer` hook: its headers go on every POST, and a 401 it
//! answers with `Retry` sends the POST again, a bounded number of times.

#![cfg(all(feature = "client", feature = "server"))]

use crate::client_support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use client_support::*;
use http::{HeaderMap, HeaderValue, Method, StatusCode, Uri};
use mcpwire_http::client::{
    AuthFuture, Authorizer, ClientOptions, MAX_AUTH_RETRIES, Retry, StatusError,
    StreamableHttpClient,
};
use mcpwire_jsonrpc::Message;
use serde_json::json;

/// Sends a stale token until challenged, then a good one (when `fixes`).
#[derive(Debug, Default)]
struct TestAuthorizer {
    fixes: bool,
    renewed: AtomicBool,
    challenges: AtomicUsize,
}

impl Authorizer for TestAuthorizer {
    fn headers<'a>(
        &'a self,
        _method: &'a Method,
        _uri: &'a Uri,
    ) -> AuthFuture<'a, Result<HeaderMap, String>> {
        Box::pin(async move {
            let token = if self.renewed.load(Ordering::SeqCst) {
                "Bearer good"
            } else {
                "Bearer stale"
            };
            let mut headers = HeaderMap::new();
            headers.insert("authorization", HeaderValue::from_static(token));
            Ok(headers)
        })
    }

    fn challenged<'a>(
        &'a self,
        status: StatusCode,
        headers: &'a HeaderMap,
    ) -> AuthFuture<'a, Result<Retry, String>> {
        Box::pin(async move {
            assert_eq!(status, StatusCode::UNAUTHORIZED);
            assert!(headers.contains_key("www-authenticate"));
            self.challenges.fetch_add(1, Ordering::SeqCst);
            if self.fixes {
                self.renewed.store(true, Ordering::SeqCst);
            }
            Ok(Retry::Retry)
        })
    }
}

async fn guarded_server() -> TestServer {
    serve(|request: Recorded| async move {
        if request.header("authorization") == Some("Bearer good") {
            json(
                StatusCode::OK,
                &result(&request.rpc_id(), json!({"tools": []})),
            )
        } else {
            let mut answer = empty(StatusCode::UNAUTHORIZED);
            answer.headers_mut().insert(
                "www-authenticate",
                "Bearer error=\"invalid_token\"".parse().unwrap(),
            );
            answer
        }
    })
    .await
}

#[tokio::test]
async fn a_401_the_authorizer_answers_is_retried_with_its_new_headers() {
    bounded(async {
        let server = guarded_server().await;
        let authorizer = Arc::new(TestAuthorizer {
            fixes: true,
            ..TestAuthorizer::default()
        });
        let options = ClientOptions::new().authorizer(authorizer.clone());
        let mut client = StreamableHttpClient::with_options(&server.url, options).unwrap();
        client
            .send(request(1, "tools/list", json!({})))
            .await
            .unwrap();
        let answer = next_message(&mut client).await;
        assert!(matches!(answer, Message::Response(_)), "{answer:?}");
        assert_eq!(authorizer.challenges.load(Ordering::SeqCst), 1);
        let posts = server.posts_of("tools/list");
        let tokens: Vec<_> = posts
            .iter()
            .map(|post| post.header("authorization").unwrap().to_owned())
            .collect();
        assert_eq!(tokens, ["Bearer stale", "Bearer good"]);
    })
    .await;
}

#[tokio::test]
async fn an_authorizer_that_never_succeeds_is_asked_a_bounded_number_of_times() {
    bounded(async {
        let server = guarded_server().await;
        let authorizer = Arc::new(TestAuthorizer::default());
        let options = ClientOptions::new().authorizer(authorizer.clone());
        let mut client = StreamableHttpClient::with_options(&server.url, options).unwrap();
        client
            .send(request(1, "tools/list", json!({})))
            .await
            .unwrap();
        let Message::Error(error) = next_message(&mut client).await else {
            panic!("expected the 401 as an error response");
        };
        assert!(
            StatusError::from_error_object(&error.error)
                .unwrap()
                .is_unauthorized()
        );
        assert_eq!(
            authorizer.challenges.load(Ordering::SeqCst),
            MAX_AUTH_RETRIES
        );
        assert_eq!(server.posts_of("tools/list").len(), MAX_AUTH_RETRIES + 1);
    })
    .await;
}
