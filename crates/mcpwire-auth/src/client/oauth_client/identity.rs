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
        let document_url = self
            .config
            .client_metadata_url
            .as_ref()
            .filter(|url| is_document_url(url));
        if cimd && let Some(url) = document_url {
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

/// Whether `url` can be a client ID: an `https` URL with a path and no
/// fragment (AUTH-24, AUTH-25). Another URL is not offered (with a
/// warning); the client registers instead, or has no identity.
fn is_document_url(url: &str) -> bool {
    let valid = url::Url::parse(url).is_ok_and(|parsed| {
        parsed.scheme() == "https"
            && parsed.host_str().is_some()
            && parsed.path() != "/"
            && parsed.fragment().is_none()
    });
    if !valid {
        tracing::warn!(
            url,
            "OAuth: client_metadata_url is not an https URL with a path; not used"
        );
    }
    valid
}

#[cfg(test)]
mod tests {
    use super::*;

    // AUTH-24, AUTH-25: only an https URL with a path is offered as client id.
    #[test]
    fn only_https_urls_with_a_path_are_offered_as_client_ids() {
        assert!(is_document_url("https://app.example/client.json"));
        assert!(!is_document_url("https://app.example/"));
        assert!(!is_document_url("http://app.example/client.json"));
        assert!(!is_document_url("https://app.example/c.json#x"));
        assert!(!is_document_url("not a url"));
    }
}
