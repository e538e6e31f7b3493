//! The MCP server's 401 and 403 answers: DPoP nonce retries, discovery and
//! a new authorization (or a refresh) on 401, scope step-up on 403
//! `insufficient_scope`.

use std::sync::atomic::Ordering;

use http::{HeaderMap, StatusCode};

use super::dpop::dpop_nonce;
use super::{FlowState, OAuthClient};
use crate::client::Grant;
use crate::client::authorize::select_scopes;
use crate::client::challenge::{Challenge, parse_headers};
use crate::client::discovery::discover;
use crate::client::error::Error;

impl OAuthClient {
    /// Handles a 401 or 403 answer from the MCP server. `Ok(true)`: new
    /// credentials are in place, retry the request; `Ok(false)`: nothing
    /// more can be done (the answer stands).
    ///
    /// # Errors
    ///
    /// A flow was attempted and failed (discovery, a refused server,
    /// registration, the user agent, the token request).
    pub async fn handle_challenge(
        &self,
        status: StatusCode,
        headers: &HeaderMap,
    ) -> Result<bool, Error> {
        let challenges = parse_headers(headers);
        let challenge = challenges
            .iter()
            .find(|c| {
                c.scheme.eq_ignore_ascii_case("bearer") || c.scheme.eq_ignore_ascii_case("dpop")
            })
            .or_else(|| challenges.first())
            .cloned();
        // A DPoP nonce challenge (RFC 9449 §9): retry with the new nonce,
        // once per nonce value.
        let nonce_challenge = challenges
            .iter()
            .any(|c| c.scheme.eq_ignore_ascii_case("dpop") && c.error() == Some("use_dpop_nonce"));
        if status == StatusCode::UNAUTHORIZED
            && nonce_challenge
            && let Some(nonce) = dpop_nonce(headers)
        {
            let mut nonces = self.nonces();
            if nonces.resource.as_deref() != Some(nonce.as_str()) {
                nonces.resource = Some(nonce);
                return Ok(true);
            }
        }
        let mut state = self.flow.lock().await;
        match status {
            StatusCode::UNAUTHORIZED => self.unauthorized(&mut state, challenge.as_ref()).await,
            StatusCode::FORBIDDEN => self.forbidden(&mut state, challenge.as_ref()).await,
            _ => Ok(false),
        }
    }

    pub(super) async fn unauthorized(
        &self,
        state: &mut FlowState,
        challenge: Option<&Challenge>,
    ) -> Result<bool, Error> {
        // Discovery runs again on every 401: the resource may have moved to
        // another authorization server (SEP-2352).
        let discovered = discover(&self.http, &self.server, challenge).await?;
        let held = self.tokens();
        if let Some(tokens) = &held {
            if tokens.issuer == discovered.server.issuer
                && tokens.refresh_token.is_some()
                && self.consecutive.load(Ordering::Relaxed) == 0
            {
                state.discovered = Some(discovered.clone());
                if self.refresh(state, tokens).await.is_ok() {
                    self.consecutive.fetch_add(1, Ordering::Relaxed);
                    return Ok(true);
                }
            }
            if tokens.issuer != discovered.server.issuer {
                tracing::info!(
                    old = tokens.issuer.as_str(),
                    new = discovered.server.issuer.as_str(),
                    "OAuth: the resource names another authorization server; authorizing again"
                );
                state.requested.clear();
            }
            self.store.set_tokens(self.key(), None)?;
        }
        let scopes = select_scopes(
            challenge.and_then(Challenge::scopes),
            &discovered,
            self.config.request_offline_access && self.config.grant == Grant::AuthorizationCode,
        );
        state.discovered = Some(discovered.clone());
        self.obtain(state, &discovered, scopes).await?;
        Ok(true)
    }

    pub(super) async fn forbidden(
        &self,
        state: &mut FlowState,
        challenge: Option<&Challenge>,
    ) -> Result<bool, Error> {
        let Some(challenge) = challenge.filter(|c| c.error() == Some("insufficient_scope")) else {
            return Ok(false);
        };
        let Some(needed) = challenge.scopes() else {
            return Ok(false);
        };
        // Already asked for every scope the server wants: asking again would
        // loop (the retry limit of the step-up flow).
        if needed.iter().all(|scope| state.requested.contains(scope)) {
            tracing::info!(
                ?needed,
                "OAuth: insufficient scope persists after step-up; giving up"
            );
            return Ok(false);
        }
        let discovered = match state.discovered.clone() {
            Some(discovered) => discovered,
            None => discover(&self.http, &self.server, Some(challenge)).await?,
        };
        // The union with what was held, so earlier permissions survive.
        let mut scopes = state.requested.clone();
        if let Some(tokens) = self.tokens() {
            for scope in tokens.scopes {
                if !scopes.contains(&scope) {
                    scopes.push(scope);
                }
            }
        }
        for scope in needed {
            if !scopes.contains(&scope) {
                scopes.push(scope);
            }
        }
        state.discovered = Some(discovered.clone());
        self.obtain(state, &discovered, scopes).await?;
        Ok(true)
    }
}
