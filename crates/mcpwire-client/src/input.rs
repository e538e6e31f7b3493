//! Multi round-trip requests (2026-07-28): fulfilling the input requests
//! of an `input_required` answer with the client's handler, and retrying
//! with `inputResponses` and `requestState` until the server completes.
//!
//! The input requests get the same treatment as the server requests of the
//! handshake era (the sampling review, elicitation defaults and schema
//! check, `file://` roots), so one [`ClientHandler`](crate::ClientHandler)
//! serves both eras.

use mcpwire_jsonrpc::{ErrorObject, RequestId};
use mcpwire_session::{RequestContext, RequestOptions, TraceContext};
use mcpwire_types::methods::{CallTool, ClientMethod, GetPrompt, ReadResource, Request};
use mcpwire_types::{
    CallToolRequestParams, GetPromptRequestParams, InputRequest, InputRequestKind,
    InputRequiredResult, InputResponse, InputResponses, ReadResourceRequestParams, RequestParams,
};
use tokio::sync::mpsc;

use crate::answer::Answerer;
use crate::{Cancellation, Client, ClientError, HandlerContext};

/// The most `input_required` rounds [`Client::request_with_input`] goes
/// through before giving up on a server that keeps asking.
pub const MAX_INPUT_ROUNDS: usize = 16;

/// Params of a request that may be answered `input_required` and sent
/// again with the answers (`tools/call`, `prompts/get`, `resources/read`).
pub trait InputRetry: Clone + Send {
    /// Sets the answers and the server's state for the retry.
    fn set_retry(&mut self, responses: InputResponses, state: Option<String>);
}

macro_rules! input_retry {
    ($($params:ty),*) => {$(
        impl InputRetry for $params {
            fn set_retry(&mut self, responses: InputResponses, state: Option<String>) {
                self.input_responses = Some(responses);
                self.request_state = state;
            }
        }
    )*};
}

input_retry!(
    CallToolRequestParams,
    GetPromptRequestParams,
    ReadResourceRequestParams
);

impl Client {
    /// Sends `M` and, while the server answers `input_required`
    /// (2026-07-28), fulfils its input requests with the client's handler
    /// and sends the request again with `inputResponses` and the
    /// `requestState` it got back unchanged, up to [`MAX_INPUT_ROUNDS`]
    /// times. In the handshake revisions the server asks with requests of
    /// its own instead, which the handler answers the same way, so this
    /// is then just [`Client::request`].
    ///
    /// # Errors
    ///
    /// As [`Client::request`]; [`ClientError::InputFailed`] when the
    /// handler could not fulfil an input request; and
    /// [`ClientError::InputRequired`] with the last answer when the server
    /// still asks after [`MAX_INPUT_ROUNDS`] rounds.
    pub async fn request_with_input<M>(
        &self,
        mut params: M::Params,
        options: RequestOptions,
    ) -> Result<M::Result, ClientError>
    where
        M: ClientMethod,
        M::Params: InputRetry,
    {
        let mut last = None;
        for _ in 0..MAX_INPUT_ROUNDS {
            match self.request::<M>(params.clone(), options).await {
                Err(ClientError::InputRequired(input)) => {
                    let responses = self.fulfil_input(&input).await?;
                    params.set_retry(responses, input.request_state.clone());
                    last = Some(input);
                }
                other => return other,
            }
        }
        Err(last.map_or(ClientError::Closed, ClientError::InputRequired))
    }

    /// `tools/call` through [`Client::request_with_input`].
    ///
    /// # Errors
    ///
    /// As [`Client::request_with_input`].
    pub async fn call_tool_with_input(
        &self,
        params: CallToolRequestParams,
    ) -> Result<<CallTool as Request>::Result, ClientError> {
        self.request_with_input::<CallTool>(params, RequestOptions::default())
            .await
    }

    /// `prompts/get` through [`Client::request_with_input`].
    ///
    /// # Errors
    ///
    /// As [`Client::request_with_input`].
    pub async fn get_prompt_with_input(
        &self,
        params: GetPromptRequestParams,
    ) -> Result<<GetPrompt as Request>::Result, ClientError> {
        self.request_with_input::<GetPrompt>(params, RequestOptions::default())
            .await
    }

    /// `resources/read` through [`Client::request_with_input`].
    ///
    /// # Errors
    ///
    /// As [`Client::request_with_input`].
    pub async fn read_resource_with_input(
        &self,
        params: ReadResourceRequestParams,
    ) -> Result<<ReadResource as Request>::Result, ClientError> {
        self.request_with_input::<ReadResource>(params, RequestOptions::default())
            .await
    }

    /// Fulfils each input request of `input` with the client's handler, in
    /// key order, and returns the answers by key for the retry.
    ///
    /// # Errors
    ///
    /// [`ClientError::InputFailed`] naming the first request the handler
    /// (or the runtime's checks) refused.
    pub async fn fulfil_input(
        &self,
        input: &InputRequiredResult,
    ) -> Result<InputResponses, ClientError> {
        let mut responses = InputResponses::new();
        let requests = input.input_requests.iter().flat_map(|r| r.0.iter());
        for (key, request) in requests {
            let response =
                self.fulfil_one(key, request)
                    .await
                    .map_err(|error| ClientError::InputFailed {
                        key: key.clone(),
                        error,
                    })?;
            responses.insert(key.clone(), response);
        }
        Ok(responses)
    }

    async fn fulfil_one(
        &self,
        key: &str,
        request: &InputRequest,
    ) -> Result<InputResponse, ErrorObject> {
        let shared = self.shared();
        let answerer = Answerer {
            handler: &*shared.handler,
            capabilities: &shared.capabilities,
            roots: &shared.roots,
            open_urls: &shared.open_urls,
        };
        let context = |meta| self.input_context(key, meta);
        Ok(match &request.kind {
            InputRequestKind::CreateMessage(params) => {
                let context = context(params.meta.clone());
                InputResponse::CreateMessage(
                    answerer.create_message(params.clone(), context).await?,
                )
            }
            InputRequestKind::Elicit(params) => {
                let context = context(params.meta().cloned());
                InputResponse::Elicit(answerer.elicit(params.clone(), context).await?)
            }
            InputRequestKind::ListRoots(params) => {
                let params = params.clone().unwrap_or_else(RequestParams::default);
                let context = context(params.meta.clone());
                InputResponse::ListRoots(answerer.list_roots(params, context).await?)
            }
            InputRequestKind::Other { method, .. } => {
                return Err(ErrorObject::method_not_found(method));
            }
        })
    }

    /// The context of an input request: it has no JSON-RPC id (its key
    /// stands in), no progress token and no cancellation of its own.
    fn input_context(&self, key: &str, meta: Option<mcpwire_types::Meta>) -> HandlerContext {
        let request = RequestContext {
            version: self.server().version,
            client_capabilities: None,
            client_info: None,
            progress_token: None,
            log_level: None,
            trace: TraceContext::from_meta(meta.as_ref()),
        };
        // Nothing is ever sent on it: without a progress token the context
        // reports no progress.
        let (messages, _) = mpsc::channel(1);
        HandlerContext::new(
            RequestId::from(format!("input:{key}")),
            request,
            meta,
            Cancellation::never(),
            messages,
        )
    }
}
