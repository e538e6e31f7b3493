//! The client credentials grant: the client acting on its own behalf (the
//! `io.modelcontextprotocol/oauth-client-credentials` extension).

use super::{OAuthClient, push_common};
use crate::client::discovery::Discovered;
use crate::client::error::Error;
use crate::client::store::StoredTokens;

impl OAuthClient {
    /// Runs the client credentials grant for `scopes`.
    pub(super) async fn client_credentials(
        &self,
        discovered: &Discovered,
        scopes: &[String],
    ) -> Result<StoredTokens, Error> {
        let credentials = self.identity(&discovered.server, scopes).await?;
        let mut grant = vec![("grant_type".to_owned(), "client_credentials".to_owned())];
        push_common(&mut grant, scopes, &discovered.resource);
        self.token(&discovered.server, Some(&credentials), grant, scopes)
            .await
    }
}
