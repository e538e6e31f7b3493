//! The consent hook of the embedded authorization server: who approves an
//! authorization request, as whom, and with which scopes.

use super::clients::Client;

/// The authorization request a [`Consent`] decides on.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct ConsentRequest<'a> {
    /// The client asking.
    pub client: &'a Client,
    /// The scopes it asks for (possibly none).
    pub scopes: &'a [String],
    /// The resource the token will be bound to (RFC 8707), if named.
    pub resource: Option<&'a str>,
    /// Where the answer goes (already checked against the client's
    /// registered URIs): a consent page must show its host (AUTH-71), since
    /// a metadata-document client may name any.
    pub redirect_uri: &'a str,
}

/// What a [`Consent`] decided.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConsentDecision {
    /// Grant `scopes` (usually those requested, or fewer) to the client, on
    /// behalf of the user `subject`.
    Approve {
        /// The resource owner, the access token's `sub`.
        subject: String,
        /// The scopes granted.
        scopes: Vec<String>,
    },
    /// Refuse: the client gets `error=access_denied`.
    Deny,
}

/// Decides authorization requests. The embedded server has no login page:
/// a test, a development tool or a command-line prompt stands in for the
/// user here.
pub trait Consent: Send + Sync + 'static {
    /// Approves or denies `request`.
    fn decide(&self, request: &ConsentRequest<'_>) -> ConsentDecision;
}

/// Approves every request as one fixed user with the scopes asked for: the
/// default, for tests and local development.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutoApprove {
    subject: String,
}

impl AutoApprove {
    /// Approves everything as `subject`.
    pub fn as_subject(subject: impl Into<String>) -> Self {
        Self {
            subject: subject.into(),
        }
    }
}

impl Default for AutoApprove {
    /// Approves everything as `test-user`.
    fn default() -> Self {
        Self::as_subject("test-user")
    }
}

impl Consent for AutoApprove {
    fn decide(&self, request: &ConsentRequest<'_>) -> ConsentDecision {
        ConsentDecision::Approve {
            subject: self.subject.clone(),
            scopes: request.scopes.to_vec(),
        }
    }
}
