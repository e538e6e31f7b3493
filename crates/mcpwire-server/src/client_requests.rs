//! Typed requests a handler sends to its client (sampling, elicitation,
//! roots), with the checks the runtime owes them: the capability each
//! needs as of the revision spoken (SAMP-04, SAMP-06, ELIC-06, ROOTS-08),
//! the answer's content against the requested schema (ELIC-16), and the
//! URL-mode elicitation helpers of 2025-11-25 (`notifications/elicitation/
//! complete`, the -32042 error).
//!
//! These are server-to-client requests, which exist in the handshake
//! revisions only; in 2026-07-28 a handler asks through
//! [`Context::input_required`] instead (see [`InputRequired`](crate::InputRequired)),
//! and reads the answers with [`Context::checked_elicit_response`] and the
//! other `*_response` accessors.

use mcpwire_session::SendError;
use mcpwire_types::methods::{ClientResult, ServerNotification, ServerRequest};
use mcpwire_types::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitationCompleteNotificationParams, ElicitationMismatch, IncludeContext, ListRootsResult,
    ProtocolVersion, RequestedSchema, URLElicitationRequiredData,
};

use crate::context::Command;
use crate::{Context, HandlerError, PeerRequestError, RequestOptions};

impl Context {
    /// Asks the client's model for a message (`sampling/createMessage`).
    ///
    /// Refused before anything is sent when the client did not declare
    /// `sampling`, when `tools` are given without `sampling.tools`
    /// (SAMP-04), or when `includeContext` asks for more than `none`
    /// without `sampling.context` (SAMP-06, from 2025-11-25 on, when that
    /// capability exists).
    ///
    /// # Errors
    ///
    /// [`PeerRequestError::Refused`] as above or when the revision has no
    /// server requests; otherwise the client's error (a user who denied the
    /// request answers -1), a timeout or the end of the session.
    pub async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        options: RequestOptions,
    ) -> Result<CreateMessageResult, PeerRequestError> {
        check_include_context(&params, self)?;
        mcpwire_types::check_tool_ordering(&params.messages)
            .map_err(|error| PeerRequestError::InvalidSamplingMessages(error.detail))?;
        match self
            .request(ServerRequest::CreateMessage(Box::new(params)), options)
            .await?
        {
            ClientResult::CreateMessage(result) => Ok(*result),
            _ => Err(PeerRequestError::UnexpectedResult),
        }
    }

    /// Asks the user, through the client, for what `params` describe
    /// (`elicitation/create`), in form or URL mode.
    ///
    /// The mode must be one the client declared (ELIC-06; an empty
    /// `elicitation` capability means form mode only). In form mode the
    /// answer of an `accept` is checked against the requested schema
    /// before the handler sees it (ELIC-16): content that does not match
    /// is [`PeerRequestError::InvalidElicitationContent`], naming each bad
    /// field.
    ///
    /// # Errors
    ///
    /// As [`Context::create_message`], and content that does not match.
    pub async fn elicit(
        &self,
        params: ElicitRequestParams,
        options: RequestOptions,
    ) -> Result<ElicitResult, PeerRequestError> {
        let schema = match &params {
            ElicitRequestParams::Form(form) => Some(form.requested_schema.clone()),
            ElicitRequestParams::Url(_) => None,
        };
        let result = match self
            .request(ServerRequest::Elicit(Box::new(params)), options)
            .await?
        {
            ClientResult::Elicit(result) => *result,
            _ => return Err(PeerRequestError::UnexpectedResult),
        };
        if let Some(schema) = schema {
            schema
                .check_result(&result)
                .map_err(PeerRequestError::InvalidElicitationContent)?;
        }
        Ok(result)
    }

    /// Asks the client for its roots (`roots/list`); refused when the
    /// client did not declare `roots` (ROOTS-08).
    ///
    /// # Errors
    ///
    /// As [`Context::create_message`].
    pub async fn list_roots(
        &self,
        options: RequestOptions,
    ) -> Result<ListRootsResult, PeerRequestError> {
        let request = ServerRequest::ListRoots(Box::default());
        match self.request(request, options).await? {
            ClientResult::ListRoots(result) => Ok(*result),
            _ => Err(PeerRequestError::UnexpectedResult),
        }
    }

    /// The elicitation answer under `key` of a multi round-trip retry,
    /// checked against the schema the handler asked with (ELIC-16):
    /// `None` when there is no elicitation answer under `key`, an error
    /// naming each bad field when an `accept` does not match.
    pub fn checked_elicit_response(
        &self,
        key: &str,
        schema: &RequestedSchema,
    ) -> Option<Result<&ElicitResult, ElicitationMismatch>> {
        let result = self.elicit_response(key)?;
        Some(schema.check_result(result).map(|()| result))
    }

    /// Tells the client that the URL-mode elicitation `elicitation_id`
    /// finished (`notifications/elicitation/complete`, 2025-11-25).
    ///
    /// It goes to this context's client only (ELIC-21), and not on the
    /// stream of this request, which may have ended: keep a clone of the
    /// context to call this once the out-of-band interaction is done.
    ///
    /// # Errors
    ///
    /// [`SendError::NotInRevision`] in revisions without URL elicitation;
    /// [`SendError::PeerLacksCapability`] when the client did not declare
    /// `elicitation.url`. A closed session sends nothing and is not an error.
    pub async fn elicitation_complete(
        &self,
        elicitation_id: impl Into<String>,
    ) -> Result<(), SendError> {
        const METHOD: &str = "notifications/elicitation/complete";
        let version = self.version();
        if !version.has_url_elicitation() || !version.has_handshake() {
            return Err(SendError::NotInRevision {
                method: METHOD,
                version,
            });
        }
        if !self.client_capabilities().supports_url_elicitation() {
            return Err(SendError::PeerLacksCapability {
                method: METHOD,
                capability: "elicitation.url",
            });
        }
        let params = ElicitationCompleteNotificationParams::new(elicitation_id);
        let command = Command::Notify {
            notification: ServerNotification::ElicitationComplete(Box::new(params)),
            related: None,
        };
        let _ = self.sender().send(command).await;
        Ok(())
    }
}

impl HandlerError {
    /// The -32042 `URLElicitationRequiredError` (2025-11-25): the request
    /// cannot go on until the user completes `elicitations`, each a URL-mode
    /// elicitation with an `elicitationId` (ELIC-25). A list that is empty
    /// or has an elicitation without an id is a server bug, reported as an
    /// internal error instead (ELIC-24: never send -32042 without cause).
    pub fn url_elicitation_required(
        elicitations: Vec<mcpwire_types::ElicitRequestURLParams>,
    ) -> Self {
        if elicitations.is_empty() {
            return Self::Internal("a URL elicitation was required but none was named".to_owned());
        }
        if elicitations.iter().any(|e| e.elicitation_id.is_none()) {
            return Self::Internal(
                "a URL elicitation required by -32042 has no elicitationId".to_owned(),
            );
        }
        Self::Rpc(URLElicitationRequiredData::new(elicitations).to_error())
    }
}

/// SAMP-06: `includeContext` other than `none` needs `sampling.context`, a
/// capability that exists from 2025-11-25 on (before, the field was
/// allowed without one).
fn check_include_context(
    params: &CreateMessageRequestParams,
    ctx: &Context,
) -> Result<(), PeerRequestError> {
    let wide = matches!(
        params.include_context,
        Some(IncludeContext::ThisServer | IncludeContext::AllServers)
    );
    if wide
        && ctx.version() >= ProtocolVersion::V2025_11_25
        && !ctx.client_capabilities().supports_sampling_context()
    {
        return Err(PeerRequestError::Refused(SendError::PeerLacksCapability {
            method: "sampling/createMessage",
            capability: "sampling.context",
        }));
    }
    Ok(())
}
