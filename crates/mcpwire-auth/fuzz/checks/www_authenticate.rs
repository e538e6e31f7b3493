//! The property of the `www_authenticate` fuzz target, shared with the
//! test that replays its corpus (`tests/oauth_client.rs`).
//!
//! `WWW-Authenticate` is read by the OAuth client from a server it does not
//! trust yet. Beyond "never panics" on any header value (one value, and
//! each input line as one of several headers), it checks:
//! * parsing is bounded by the input: no more challenges than bytes, and no
//!   scheme, parameter name or value longer than the input;
//! * challenges and parameters written from the input's texts (a scheme
//!   token, parameters as tokens or quoted strings with escapes) parse back
//!   to what was written, names lower-cased, the typed accessors agreeing.

use http::{HeaderMap, HeaderValue};
use mcpwire_auth::client::challenge::{Challenge, parse, parse_headers};

/// Checks one input.
pub(crate) fn check(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let challenges = parse(&text);
    assert!(challenges.len() <= text.len());
    for challenge in &challenges {
        assert!(!challenge.scheme.is_empty() && challenge.scheme.len() <= text.len());
        for (name, value) in &challenge.params {
            assert!(name.len() <= text.len() && value.len() <= text.len());
            assert_eq!(*name, name.to_ascii_lowercase());
        }
    }
    let mut headers = HeaderMap::new();
    for line in data.split(|&byte| byte == b'\n') {
        if let Ok(value) = HeaderValue::from_bytes(line) {
            headers.append(http::header::WWW_AUTHENTICATE, value);
        }
    }
    let _ = parse_headers(&headers);
    check_round_trip(data);
}

/// Whether `byte` is an RFC 9110 `tchar`.
fn is_tchar(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte)
}

/// Challenges written from the input's bytes: `Scheme k="v", k2=v2, ...`.
fn check_round_trip(data: &[u8]) {
    let tokens: Vec<String> = data
        .split(|&byte| !is_tchar(byte))
        .filter(|token| !token.is_empty())
        .map(|token| String::from_utf8_lossy(token).into_owned())
        .collect();
    let texts: Vec<String> = data
        .split(|&byte| byte == b'\n')
        .map(|line| String::from_utf8_lossy(line).into_owned())
        .collect();
    let mut written = Vec::new();
    let mut expected = Vec::new();
    let mut tokens = tokens.into_iter();
    let mut texts = texts.into_iter();
    while let Some(scheme) = tokens.next() {
        let mut challenge = Challenge {
            scheme: scheme.clone(),
            params: Vec::new(),
        };
        let mut pieces = Vec::new();
        for _ in 0..scheme.len() % 4 {
            let (Some(name), Some(value)) = (tokens.next(), texts.next()) else {
                break;
            };
            // A quoted string holds any text but control characters other
            // than tab; `"` and `\` are escaped.
            let value: String = value
                .chars()
                .filter(|c| *c == '\t' || !c.is_control())
                .collect();
            let quoted = value.replace('\\', "\\\\").replace('"', "\\\"");
            pieces.push(format!("{name}=\"{quoted}\""));
            challenge.params.push((name.to_ascii_lowercase(), value));
        }
        written.push(if pieces.is_empty() {
            scheme
        } else {
            format!("{scheme} {}", pieces.join(", "))
        });
        expected.push(challenge);
    }
    let header = written.join(", ");
    let parsed = parse(&header);
    assert_eq!(parsed, expected, "{header:?} did not parse back");
    for (challenge, original) in parsed.iter().zip(&expected) {
        for (name, _) in &original.params {
            // The first parameter of a name wins.
            let first = original.params.iter().find(|(n, _)| n == name);
            assert_eq!(challenge.param(name), first.map(|(_, v)| v.as_str()));
        }
        let _ = (
            challenge.scopes(),
            challenge.error(),
            challenge.resource_metadata(),
        );
    }
}
