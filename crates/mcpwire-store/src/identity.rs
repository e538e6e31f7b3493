//! Who sent a request, as the application's authentication established
//! it: the [`RequestIdentity`] that crosses instances and binds sessions,
//! tasks and `requestState` to their owner.

/// Who sent a request, as the application's authentication established
/// it: the one request extension that crosses instances.
///
/// A POST's `http::Extensions` reach the handlers of its requests
/// (`Context::transport_context` in `mcpwire-server`, an
/// `http::Extensions`) on the instance that received it. When the session's
/// runtime runs on another instance, the message bus carries the POST there
/// without them, except this value, serialized as JSON: insert one into
/// the request's extensions (a small layer after the authentication layer,
/// mapping its verified claims) and handlers, and task binding
/// (`TaskOptions::requestor`), see it wherever the runtime runs. Opt-in:
/// without it nothing about the requester leaves the receiving instance.
/// Keep it small (it travels with every message) and put no secrets in it
/// (it passes through the bus's Redis).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct RequestIdentity {
    /// Whom the credentials name (a token's `sub`).
    pub subject: String,
    /// The client the credentials were issued to, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// The scopes granted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
    /// Any other claims the application wants carried.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub claims: serde_json::Map<String, serde_json::Value>,
}

impl RequestIdentity {
    /// What a session created with this identity is bound to: the subject
    /// and the client, so that neither another user nor another client of
    /// the same user can take the session over.
    pub fn owner_key(&self) -> String {
        match &self.client_id {
            Some(client) => format!("{}\n{client}", self.subject),
            None => self.subject.clone(),
        }
    }

    /// The identity of `subject`, with no client, scopes or claims.
    pub fn new(subject: impl Into<String>) -> Self {
        Self {
            subject: subject.into(),
            ..Self::default()
        }
    }

    /// With the client the credentials were issued to.
    #[must_use]
    pub fn client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// With the scopes granted.
    #[must_use]
    pub fn scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// With one more claim.
    #[must_use]
    pub fn claim(mut self, name: impl Into<String>, value: serde_json::Value) -> Self {
        self.claims.insert(name.into(), value);
        self
    }

    /// The identity among a request's transport context (the
    /// `http::Extensions` of its POST), for handlers and
    /// `TaskOptions::requestor`.
    pub fn of(context: Option<&(dyn std::any::Any + Send + Sync)>) -> Option<&Self> {
        context?.downcast_ref::<http::Extensions>()?.get::<Self>()
    }
}
