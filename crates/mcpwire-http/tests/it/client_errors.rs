//! HTTP refusals: statuses become error responses (401 and 403 keep their
//! status and challenge), the first POST's outcome for the legacy fallback,
//! and answers that cannot hold the response.

#![cfg(all(feature = "client", feature = "server"))]

use crate::client_support;

use std::time::Duration;

use client_support::*;
use http::{Method, StatusCode};
use mcpwire_http::client::{
    ClientOptions, Error, FirstPostOutcome, StatusError, StreamableHttpClient, codes,
};
use mcpwire_jsonrpc::{ErrorResponse, Message, Notification, Packet};
use serde_json::json;

async fn error_response(client: &mut StreamableHttpClient) -> ErrorResponse {
    match next_message(client).await {
        Message::Error(error) => error,
        other => panic!("expected an error response, got {other:?}"),
    }
}

#[tokio::test]
async fn unauthorized_and_forbidden_keep_their_status_and_challenge() {
    bounded(async {
        let server = serve(|request: Recorded| async move {
            let status = if request.rpc_id() == json!(1) {
                StatusCode::UNAUTHORIZED
            } else {
                StatusCode::FORBIDDEN
            };
            let mut answer = empty(status);
            answer.headers_mut().insert(
                "www-authenticate",
                "Bearer resource_metadata=\"http://x/.well-known/oauth-protected-resource\""
                    .parse()
                    .unwrap(),
            );
            answer
        })
        .await;
        let mut client = StreamableHttpClient::new(&server.url).unwrap();
        client
            .send(request(1, "tools/list", json!({})))
            .await
            .unwrap();
        let first = error_response(&mut client).await;
        assert_eq!(first.id, Some(1.into()));
        assert_eq!(first.error.code, codes::HTTP_ERROR);
        let status = StatusError::from_error_object(&first.error).unwrap();
        assert!(status.is_unauthorized());
        assert!(
            status
                .www_authenticate()
                .unwrap()
                .contains("resource_metadata")
        );
        assert_eq!(
            client.first_post_outcome(),
            Some(FirstPostOutcome::Refused(StatusCode::UNAUTHORIZED))
        );

        client
            .send(request(2, "tools/list", json!({})))
            .await
            .unwrap();
        let second = error_response(&mut client).await;
        assert!(
            StatusError::from_error_object(&second.error)
                .unwrap()
                .is_forbidden()
        );

        // A notification's refusal comes out of `send` itself.
        let refused = client
            .send(Packet::from(Notification::without_params(
                "notifications/initialized",
            )))
            .await;
        let Err(Error::Status(status)) = refused else {
            panic!("expected a status error, got {refused:?}");
        };
        assert_eq!(status.status(), StatusCode::FORBIDDEN);
        assert!(status.www_authenticate().is_some());
    })
    .await;
}

#[tokio::test]
async fn a_json_rpc_error_without_id_answers_the_posted_request() {
    bounded(async {
        let server = serve(|_request: Recorded| async move {
            json(
                StatusCode::BAD_REQUEST,
                &json!({"jsonrpc": "2.0", "id": null,
                        "error": {"code": -32000, "message": "Bad Request: Unsupported protocol version"}}),
            )
        })
        .await;
        let mut client = StreamableHttpClient::new(&server.url).unwrap();
        client.send(request(5, "server/discover", json!({}))).await.unwrap();
        let error = error_response(&mut client).await;
        assert_eq!(error.id, Some(5.into()));
        assert_eq!(error.error.code.0, -32000);
        assert_eq!(
            client.first_post_outcome(),
            Some(FirstPostOutcome::LegacyCandidate(StatusCode::BAD_REQUEST))
        );
    })
    .await;
}

#[tokio::test]
async fn with_detection_on_a_refused_first_post_is_a_legacy_candidate() {
    bounded(async {
        let server = serve(|request: Recorded| async move {
            if request.method == Method::POST {
                empty(StatusCode::METHOD_NOT_ALLOWED)
            } else {
                empty(StatusCode::OK)
            }
        })
        .await;
        let options = ClientOptions::new().detect_legacy(true);
        let mut client = StreamableHttpClient::with_options(&server.url, options).unwrap();
        let outcome = client.send(request(1, "initialize", json!({}))).await;
        let Err(Error::LegacyCandidate(status)) = outcome else {
            panic!("expected a legacy candidate, got {outcome:?}");
        };
        assert_eq!(status.status(), StatusCode::METHOD_NOT_ALLOWED);
        // Only the first POST is judged so; later ones are answered.
        client
            .send(request(2, "initialize", json!({})))
            .await
            .unwrap();
        let error = error_response(&mut client).await;
        assert_eq!(error.id, Some(2.into()));
        assert_eq!(error.error.code, codes::HTTP_ERROR);
    })
    .await;
}

#[tokio::test]
async fn with_detection_on_a_modern_refusal_reaches_the_engine() {
    bounded(async {
        let server = serve(|request: Recorded| async move {
            json(
                StatusCode::BAD_REQUEST,
                &json!({"jsonrpc": "2.0", "id": request.rpc_id(),
                        "error": {"code": -32022, "message": "Unsupported protocol version",
                                  "data": {"supported": ["2026-07-28"], "requested": "2099-01-01"}}}),
            )
        })
        .await;
        let options = ClientOptions::new().detect_legacy(true);
        let mut client = StreamableHttpClient::with_options(&server.url, options).unwrap();
        client.send(request(1, "server/discover", json!({}))).await.unwrap();
        let error = error_response(&mut client).await;
        assert_eq!(error.error.code.0, -32022);
        assert_eq!(
            client.first_post_outcome(),
            Some(FirstPostOutcome::Refused(StatusCode::BAD_REQUEST))
        );
    })
    .await;
}

#[tokio::test]
async fn answers_that_cannot_hold_the_response_fail_the_request() {
    bounded(async {
        let server = serve(|request: Recorded| async move {
            match request.rpc_id().as_i64() {
                Some(1) => empty(StatusCode::ACCEPTED),
                Some(2) => json(StatusCode::OK, &json!({"jsonrpc": "2.0", "method": "note"})),
                Some(3) => {
                    let mut answer = empty(StatusCode::OK);
                    answer
                        .headers_mut()
                        .insert("content-type", "text/plain".parse().unwrap());
                    answer
                }
                _ => {
                    tokio::time::sleep(Duration::from_secs(5)).await;
                    empty(StatusCode::OK)
                }
            }
        })
        .await;
        let options = ClientOptions::new().request_timeout(Duration::from_millis(200));
        let mut client = StreamableHttpClient::with_options(&server.url, options).unwrap();
        for id in 1..=4 {
            client
                .send(request(id, "tools/list", json!({})))
                .await
                .unwrap();
        }
        let mut failed = Vec::new();
        while failed.len() < 4 {
            match next_message(&mut client).await {
                Message::Error(error) => {
                    assert_eq!(
                        error.error.code,
                        codes::REQUEST_FAILED,
                        "{}",
                        error.error.message
                    );
                    failed.push(error.id.unwrap());
                }
                Message::Notification(note) => assert_eq!(note.method, "note"),
                other => panic!("unexpected {other:?}"),
            }
        }
        failed.sort();
        assert_eq!(failed, [1.into(), 2.into(), 3.into(), 4.into()]);
    })
    .await;
}
