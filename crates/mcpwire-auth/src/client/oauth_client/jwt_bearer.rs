//! The JWT bearer grant (RFC 7523 §2.1) with a given assertion, and with
//! an ID-JAG obtained from the user's identity provider by token exchange
//! (RFC 8693; enterprise-managed authorization).

use super::{OAuthClient, push_common};
use crate::client::discovery::Discovered;
use crate::client::error::Error;
use crate::client::store::StoredTokens;

/// Where and what to exchange for an ID-JAG.
pub(super) struct IdJagExchange<'a> {
    pub(super) endpoint: &'a str,
    pub(super) id_token: &'a str,
    pub(super) client_id: Option<&'a str>,
}

impl OAuthClient {
    /// The JWT bearer grant with `assertion`, by pre-registered credentials.
    pub(super) async fn jwt_bearer(
        &self,
        discovered: &Discovered,
        assertion: String,
        scopes: &[String],
    ) -> Result<StoredTokens, Error> {
        let credentials = self
            .config
            .preregistered
            .clone()
            .ok_or_else(|| Error::NoClientIdentity(discovered.server.issuer.clone()))?;
        let mut grant = vec![
            (
                "grant_type".to_owned(),
                "urn:ietf:params:oauth:grant-type:jwt-bearer".to_owned(),
            ),
            ("assertion".to_owned(), assertion),
        ];
        push_common(&mut grant, scopes, &discovered.resource);
        self.token(&discovered.server, Some(&credentials), grant, scopes)
            .await
    }

    /// Enterprise-managed authorization: an ID-JAG from the identity
    /// provider, then the JWT bearer grant with it.
    pub(super) async fn identity_assertion(
        &self,
        discovered: &Discovered,
        exchange: &IdJagExchange<'_>,
        scopes: &[String],
    ) -> Result<StoredTokens, Error> {
        if self.config.preregistered.is_none() {
            return Err(Error::NoClientIdentity(discovered.server.issuer.clone()));
        }
        let assertion = self
            .exchange_for_id_jag(exchange, discovered, scopes)
            .await?;
        self.jwt_bearer(discovered, assertion, scopes).await
    }

    /// Exchanges the user's ID token at the identity provider for an
    /// ID-JAG addressed to the authorization server (RFC 8693 §2.1).
    pub(super) async fn exchange_for_id_jag(
        &self,
        exchange: &IdJagExchange<'_>,
        discovered: &Discovered,
        scopes: &[String],
    ) -> Result<String, Error> {
        let mut form = vec![
            (
                "grant_type",
                "urn:ietf:params:oauth:grant-type:token-exchange",
            ),
            (
                "requested_token_type",
                "urn:ietf:params:oauth:token-type:id-jag",
            ),
            ("audience", discovered.server.issuer.as_str()),
            ("resource", discovered.resource.as_str()),
            ("subject_token", exchange.id_token),
            (
                "subject_token_type",
                "urn:ietf:params:oauth:token-type:id_token",
            ),
        ];
        let scope = scopes.join(" ");
        if !scope.is_empty() {
            form.push(("scope", scope.as_str()));
        }
        if let Some(client_id) = exchange.client_id {
            form.push(("client_id", client_id));
        }
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form)
            .finish();
        let (status, _, answer) = crate::client::fetch::post(
            &self.http,
            exchange.endpoint,
            "application/x-www-form-urlencoded",
            Vec::new(),
            body.into_bytes(),
        )
        .await?;
        let token = answer
            .get("access_token")
            .and_then(serde_json::Value::as_str);
        match token {
            Some(token) if status.is_success() => Ok(token.to_owned()),
            _ => Err(Error::OAuth {
                endpoint: "identity provider token endpoint",
                error: answer
                    .get("error")
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or("no access_token")
                    .to_owned(),
                description: answer
                    .get("error_description")
                    .and_then(serde_json::Value::as_str)
                    .map(str::to_owned),
            }),
        }
    }
}
