//! The client's roots: the `file://` directories it exposes to the server,
//! set on the client and announced with `notifications/roots/list_changed`
//! when they change (ROOTS-02, ROOTS-03).

use std::sync::{Mutex, PoisonError};

use mcpwire_session::SendError;
use mcpwire_types::Root;
use mcpwire_types::methods::ClientNotification;

use crate::{Client, ClientError};

/// The roots set on the client; `None` leaves `roots/list` to the handler.
#[derive(Debug, Default)]
pub(crate) struct RootsState {
    roots: Mutex<Option<Vec<Root>>>,
}

impl RootsState {
    pub(crate) fn new(roots: Option<Vec<Root>>) -> Self {
        Self {
            roots: Mutex::new(roots),
        }
    }

    /// The roots set, if any.
    pub(crate) fn get(&self) -> Option<Vec<Root>> {
        self.roots
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn set(&self, roots: Vec<Root>) {
        *self.roots.lock().unwrap_or_else(PoisonError::into_inner) = Some(roots);
    }
}

/// Checks that `uri` is a root the client may expose: a `file://` URI
/// (ROOTS-03) with no `..` segment that would climb out of it (ROOTS-05).
///
/// # Errors
///
/// Why the URI is refused.
pub fn check_root_uri(uri: &str) -> Result<(), String> {
    let is_file = uri
        .get(..7)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("file://"));
    if !is_file {
        return Err(format!("root {uri:?} is not a file:// URI"));
    }
    let path = uri[7..].split(['?', '#']).next().unwrap_or_default();
    if path
        .split('/')
        .any(|segment| segment == ".." || segment.eq_ignore_ascii_case("%2e%2e"))
    {
        return Err(format!("root {uri:?} contains a '..' segment"));
    }
    Ok(())
}

/// Checks every root (see [`check_root_uri`]).
pub(crate) fn check_all(roots: &[Root]) -> Result<(), String> {
    roots.iter().try_for_each(|root| check_root_uri(&root.uri))
}

impl Client {
    /// Replaces the roots the client exposes; from now on `roots/list` is
    /// answered with them (the handler's
    /// [`list_roots`](crate::ClientHandler::list_roots) is no longer
    /// called). When the client declared `roots.listChanged` the server is
    /// told with `notifications/roots/list_changed` (ROOTS-02), in the
    /// revisions that have it.
    ///
    /// # Errors
    ///
    /// [`ClientError::InvalidRoot`] when a root is not a `file://` URI
    /// (ROOTS-03; nothing changes then), [`ClientError::Closed`].
    pub async fn set_roots(&self, roots: Vec<Root>) -> Result<(), ClientError> {
        check_all(&roots).map_err(ClientError::InvalidRoot)?;
        self.roots_state().set(roots);
        let notification = ClientNotification::RootsListChanged(Box::default());
        match self.notify(notification).await {
            // No `listChanged` declared, or a revision without the
            // notification: the server asks again when it wants to know.
            Err(ClientError::Refused(
                SendError::OwnCapabilityMissing { .. } | SendError::NotInRevision { .. },
            )) => Ok(()),
            other => other,
        }
    }

    /// The roots set with [`Client::set_roots`] or
    /// [`ClientBuilder::roots`](crate::ClientBuilder::roots), if any.
    pub fn roots(&self) -> Option<Vec<Root>> {
        self.roots_state().get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_file_uris_without_climbing_segments_are_roots_roots_03() {
        assert!(check_root_uri("file:///home/user/project").is_ok());
        assert!(check_root_uri("FILE:///C:/work").is_ok());
        assert!(check_root_uri("https://example.com/repo").is_err());
        assert!(check_root_uri("file:///home/user/../root").is_err());
        assert!(check_root_uri("file:///home/%2E%2E/etc").is_err());
        assert!(check_root_uri("/home/user").is_err());
        assert!(check_root_uri("").is_err());
    }
}
