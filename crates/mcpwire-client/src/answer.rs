//! Answering the server's requests (sampling, elicitation, roots): the
//! checks the runtime makes around the application's [`ClientHandler`],
//! the same whether the request came as a server request (handshake era)
//! or as an input request of a 2026-07-28 `input_required` answer.

use mcpwire_jsonrpc::{ErrorCode, ErrorObject};
use mcpwire_types::methods::{ClientResult, ServerRequest};
use mcpwire_types::{
    ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitAction,
    ElicitRequestParams, ElicitResult, ListRootsResult, RequestParams,
};

use crate::roots::{self, RootsState};
use crate::url_elicitation::OpenUrlElicitations;
use crate::{ClientHandler, HandlerContext};

/// What answering a server request needs besides the request itself.
#[derive(Clone, Copy)]
pub(crate) struct Answerer<'a> {
    pub(crate) handler: &'a dyn ClientHandler,
    /// What this client declared (the engine already refused requests for
    /// capabilities it lacks entirely; the finer checks are here).
    pub(crate) capabilities: &'a ClientCapabilities,
    pub(crate) roots: &'a RootsState,
    /// Where URL-mode elicitations the user accepted are remembered.
    pub(crate) open_urls: &'a OpenUrlElicitations,
}

impl Answerer<'_> {
    /// Answers one server request.
    pub(crate) async fn answer(
        self,
        request: ServerRequest,
        context: HandlerContext,
    ) -> Result<ClientResult, ErrorObject> {
        match request {
            ServerRequest::CreateMessage(params) => self
                .create_message(*params, context)
                .await
                .map(|result| ClientResult::CreateMessage(Box::new(result))),
            ServerRequest::Elicit(params) => self
                .elicit(*params, context)
                .await
                .map(|result| ClientResult::Elicit(Box::new(result))),
            ServerRequest::ListRoots(params) => self
                .list_roots(*params, context)
                .await
                .map(|result| ClientResult::ListRoots(Box::new(result))),
            // Tasks run on this client are not offered (no `tasks` capability
            // is declared by default); `ping` never gets here.
            other => Err(ErrorObject::method_not_found(other.method())),
        }
    }

    /// Sampling: the capability for tools (SAMP-05), the order of tool
    /// blocks (SAMP-07..10), then the request review, the model, and the result review (SAMP-02).
    pub(crate) async fn create_message(
        self,
        params: CreateMessageRequestParams,
        context: HandlerContext,
    ) -> Result<CreateMessageResult, ErrorObject> {
        if !self.capabilities.supports_sampling() {
            return Err(ErrorObject::method_not_found("sampling/createMessage"));
        }
        let uses_tools = params.tools.is_some() || params.tool_choice.is_some();
        if uses_tools && !self.capabilities.supports_sampling_tools() {
            return Err(ErrorObject::new(
                ErrorCode::INVALID_PARAMS,
                "this client did not declare sampling.tools: tools and toolChoice are not accepted",
            ));
        }
        // SAMP-07, SAMP-08, SAMP-10 bind both sides: a request whose
        // tool_use / tool_result blocks are out of order never reaches the
        // user or the model.
        mcpwire_types::check_tool_ordering(&params.messages)
            .map_err(|error| ErrorObject::new(ErrorCode::INVALID_PARAMS, error.detail))?;
        let params = self
            .handler
            .review_sampling_request(params, context.clone())
            .await?;
        let result = self.handler.create_message(params, context.clone()).await?;
        self.handler.review_sampling_result(result, context).await
    }

    /// Elicitation: the declared modes (ELIC-09), then the handler, then
    /// defaults (ELIC-13) and the schema check (ELIC-15) of a form answer.
    pub(crate) async fn elicit(
        self,
        params: ElicitRequestParams,
        context: HandlerContext,
    ) -> Result<ElicitResult, ErrorObject> {
        let form = match params {
            ElicitRequestParams::Url(params) => {
                if !self.capabilities.supports_url_elicitation() {
                    return Err(undeclared_mode("url"));
                }
                let id = params.elicitation_id.clone();
                let mut result = self.handler.elicit_url(params, context).await?;
                if let (Some(id), ElicitAction::Accept) = (id, result.action) {
                    self.open_urls.opened(&id);
                }
                // ELIC-20: a URL-mode answer carries no content.
                result.content = None;
                return Ok(result);
            }
            ElicitRequestParams::Form(form) => form,
        };
        if !self.capabilities.supports_form_elicitation() {
            return Err(undeclared_mode("form"));
        }
        let schema = form.requested_schema.clone();
        let mut result = self
            .handler
            .elicit(ElicitRequestParams::Form(form), context)
            .await?;
        if let Some(content) = result.content.as_mut() {
            schema.apply_defaults(content);
        }
        if let Err(mismatch) = schema.check_result(&result) {
            tracing::warn!(%mismatch, "the elicitation answer does not match the requested schema; not sent");
            return Err(ErrorObject::internal_error(format!(
                "the client's elicitation answer does not match the requested schema: {mismatch}"
            )));
        }
        Ok(result)
    }

    /// Roots: those set on the client, or the handler's, all `file://`
    /// URIs (ROOTS-03; otherwise -32603, ROOTS-04).
    pub(crate) async fn list_roots(
        self,
        params: RequestParams,
        context: HandlerContext,
    ) -> Result<ListRootsResult, ErrorObject> {
        if !self.capabilities.supports_roots() {
            return Err(ErrorObject::method_not_found("roots/list"));
        }
        if let Some(roots) = self.roots.get() {
            return Ok(ListRootsResult::new(roots));
        }
        let result = self.handler.list_roots(params, context).await?;
        if let Err(reason) = roots::check_all(&result.roots) {
            tracing::warn!(%reason, "the handler's roots are not all file:// URIs; not sent");
            return Err(ErrorObject::internal_error(reason));
        }
        Ok(result)
    }
}

/// ELIC-09: a mode the client did not declare is invalid params.
fn undeclared_mode(mode: &str) -> ErrorObject {
    ErrorObject::new(
        ErrorCode::INVALID_PARAMS,
        format!("this client did not declare {mode}-mode elicitation"),
    )
}
