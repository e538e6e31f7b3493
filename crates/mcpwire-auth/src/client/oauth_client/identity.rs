//! Who the client is at an authorization server: stored or pre-registered
//! credentials, a Client ID Metadata Document URL, or a dynamic
//! registration (AUTH-22's order).

use super::OAuthClient;
use crate::client::Grant;
use crate::client::discovery::AuthorizationServer;
use crate::client::error::Error;
use crate::client::store::{ClientCredentials, TokenAuthMethod};
use crate::client::token::{ApplicationType, Registration, register};

impl OAuthClient {
    /// Who the client is at `server`: its stored registration, the
    /// pre-registered credentials, its metadata document URL, or a new
    /// registration.
    pub(super) async fn identity(
        &self,
        server: &AuthorizationServer,
        scopes: &[String],
    ) -> Result<ClientCredentials, Error> {
        if let Some(stored) = self.store.client(&server.issuer) {
            return Ok(stored);
        }
        if let Some(preregistered) = &self.config.preregistered {
            return Ok(preregistered.clone());
        }
        let cimd = server
            .metadata
            .as_ref()
            .and_then(|metadata| metadata.client_id_metadata_document_supported)
            == Some(true);
        if cimd && let Some(url) = &self.config.client_metadata_url {
            let mut credentials = ClientCredentials::public(url.clone());
            credentials.auth_method = Some(TokenAuthMethod::None);
            return Ok(credentials);
        }
        if server.registration_endpoint.is_none() {
            return Err(Error::NoClientIdentity(server.issuer.clone()));
        }
        let mut grant_types = vec!["authorization_code".to_owned(), "refresh_token".to_owned()];
        if self.config.grant == Grant::ClientCredentials {
            grant_types = vec!["client_credentials".to_owned()];
        }
        let registration = Registration {
            client_name: self.config.client_name.clone(),
            redirect_uri: self.config.redirect_uri.clone(),
            application_type: self
                .config
                .application_type
                .unwrap_or_else(|| ApplicationType::for_redirect_uri(&self.config.redirect_uri)),
            grant_types,
            scope: (!scopes.is_empty()).then(|| scopes.join(" ")),
        };
        let credentials = register(&self.http, server, &registration).await?;
        self.store.set_client(&server.issuer, &credentials)?;
        Ok(credentials)
    }
}
