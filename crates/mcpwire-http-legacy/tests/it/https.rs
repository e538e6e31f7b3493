//! HTTPS: the legacy client, and the automatic fallback to it, reach a
//! legacy server over TLS through mcpwire-http's client, verifying the
//! server against the roots they are given.

use crate::support;

use mcpwire_client::Client;
use mcpwire_http::client::{BuildError, ClientOptions};
use mcpwire_http_legacy::auto::{AutoOptions, TransportKind, connect_auto};
use mcpwire_http_legacy::client::{Error, LegacyClientOptions, LegacySseClient};
use mcpwire_http_legacy::server::Config;
use mcpwire_types::ProtocolVersion;
use support::tls::{listen_tls, trusting_options};
use support::{
    HANDSHAKE_ERA, client_config, exercise, legacy, runtime, runtime_speaking, sessions_settle_at,
    within,
};

#[tokio::test]
async fn the_legacy_client_speaks_https_to_a_server_signed_by_a_trusted_root() {
    let service = legacy(Config::default(), runtime());
    let server = listen_tls(service.clone()).await;
    let port = server.addr.port();
    for url in [server.url("/sse"), format!("https://localhost:{port}/sse")] {
        let options = LegacyClientOptions::new().http(trusting_options());
        let transport = within(LegacySseClient::connect(&url, options))
            .await
            .unwrap();
        assert_eq!(transport.endpoint().scheme_str(), Some("https"), "{url}");
        let client = within(Client::connect(
            transport,
            client_config(Some(ProtocolVersion::V2024_11_05)),
        ))
        .await
        .unwrap();
        exercise(&client).await;
        within(client.close()).await;
        sessions_settle_at(&service, 0).await;
    }
}

#[tokio::test]
async fn the_automatic_transport_falls_back_to_the_legacy_one_over_https() {
    let server = listen_tls(legacy(Config::default(), runtime_speaking(&HANDSHAKE_ERA))).await;
    let options = AutoOptions::new()
        .streamable(trusting_options())
        .legacy(LegacyClientOptions::new().http(trusting_options()));
    let transport = connect_auto(&server.url("/sse"), options).unwrap();
    let choice = transport.choice();
    let client = within(Client::connect(transport, client_config(None)))
        .await
        .unwrap();
    assert_eq!(choice.get(), Some(TransportKind::LegacySse));
    assert_eq!(client.server().version, ProtocolVersion::V2025_11_25);
    exercise(&client).await;
    within(client.close()).await;
}

#[tokio::test]
async fn https_refuses_a_server_no_trusted_root_vouches_for() {
    let server = listen_tls(legacy(Config::default(), runtime())).await;
    let url = server.url("/sse");
    // The system's roots do not know the test CA (and a machine may have
    // none at all).
    let outcome = within(LegacySseClient::connect(&url, LegacyClientOptions::new())).await;
    assert!(
        matches!(
            outcome,
            Err(Error::Request(_) | Error::Build(BuildError::NoRootCertificates))
        ),
        "{outcome:?}"
    );
    let no_roots = LegacyClientOptions::new().http(ClientOptions::new().native_roots(false));
    let outcome = LegacySseClient::connect(&url, no_roots).await;
    assert!(
        matches!(outcome, Err(Error::Build(BuildError::NoRootCertificates))),
        "{outcome:?}"
    );
    let garbage =
        LegacyClientOptions::new().http(ClientOptions::new().add_root_certificate(vec![1, 2, 3]));
    let outcome = LegacySseClient::connect(&url, garbage).await;
    assert!(
        matches!(
            outcome,
            Err(Error::Build(BuildError::InvalidCertificate(_)))
        ),
        "{outcome:?}"
    );
}
