//! The refresh token grant (OAuth 2.1 §4.3), at the issuer that granted
//! the tokens.

use super::{FlowState, OAuthClient};
use crate::client::discovery::discover;
use crate::client::error::Error;
use crate::client::store::StoredTokens;

impl OAuthClient {
    /// Refreshes `tokens` at their issuer (OAuth 2.1 §4.3).
    pub(super) async fn refresh(
        &self,
        state: &mut FlowState,
        tokens: &StoredTokens,
    ) -> Result<StoredTokens, Error> {
        let refresh_token = tokens.refresh_token.clone().ok_or_else(|| Error::Invalid {
            what: "the stored tokens",
            reason: "no refresh token".to_owned(),
        })?;
        let discovered = match state.discovered.clone() {
            Some(discovered) if discovered.server.issuer == tokens.issuer => discovered,
            _ => discover(&self.http, &self.server, None).await?,
        };
        if discovered.server.issuer != tokens.issuer {
            return Err(Error::IssuerMismatch {
                expected: tokens.issuer.clone(),
                claimed: discovered.server.issuer,
            });
        }
        let credentials = self.identity(&discovered.server, &tokens.scopes).await?;
        let grant = vec![
            ("grant_type".to_owned(), "refresh_token".to_owned()),
            ("refresh_token".to_owned(), refresh_token.clone()),
            ("resource".to_owned(), discovered.resource.clone()),
        ];
        let mut fresh = self
            .token(
                &discovered.server,
                Some(&credentials),
                grant,
                &tokens.scopes,
            )
            .await?;
        // A server may keep the refresh token without sending it again.
        if fresh.refresh_token.is_none() {
            fresh.refresh_token = Some(refresh_token);
        }
        self.store.set_tokens(self.key(), Some(&fresh))?;
        state.discovered = Some(discovered);
        Ok(fresh)
    }
}
