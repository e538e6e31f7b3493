//! Multi round-trip requests for handlers: a tool, prompt or resource
//! handler answers "I need input" with [`InputRequired`], and reads the
//! client's answers on the retry through its [`Context`].
//!
//! A handler is written as one function that looks at what it already has:
//!
//! ```
//! use mcpwire_server::{Context, HandlerError, InputRequired};
//! use mcpwire_types::{CallToolResult, ElicitRequestParams, RequestedSchema};
//!
//! async fn greet(ctx: Context) -> Result<CallToolResult, HandlerError> {
//!     let name = ctx
//!         .elicit_response("user_name")
//!         .and_then(|answer| answer.content.as_ref())
//!         .and_then(|content| content.get("name"))
//!         .map(|name| format!("{name:?}"));
//!     match name {
//!         Some(name) => Ok(CallToolResult::text(format!("Hello, {name}!"))),
//!         None => Err(ctx
//!             .input_required()
//!             .elicit("user_name", ElicitRequestParams::form("Your name?", RequestedSchema::default()))
//!             .into()),
//!     }
//! }
//! ```
//!
//! In 2026-07-28 the runtime answers such a handler with an
//! `InputRequiredResult` (sealing the handler's state, see
//! `request_state.rs`), and the retry runs the handler again with the
//! answers. In the handshake revisions, which have no `input_required`, the
//! runtime sends the same requests to the client itself (sampling,
//! elicitation, roots as server-to-client requests) and runs the handler
//! again with the answers, so the handler works unchanged in both eras.

use std::future::Future;

use mcpwire_jsonrpc::ErrorObject;
use mcpwire_store::RequestIdentity;
use mcpwire_types::methods::{ClientResult, ServerRequest, method_info};
use mcpwire_types::{
    ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, IncludeContext, InputRequest, InputRequestKind, InputRequests,
    InputRequiredResult, InputResponse, InputResponses, ListRootsResult, McpErrorCode,
    MissingRequiredClientCapabilityData, ProtocolVersion, RequestParams,
};

use crate::{Context, HandlerError, RequestOptions, Server};

/// How many times, in the handshake revisions, the runtime fulfils a
/// handler's input requests itself before giving up on a handler that
/// never finishes.
const MAX_LOCAL_ROUNDS: usize = 16;

/// What a handler answers instead of its result when it needs the client
/// to fulfil requests first (elicitation, sampling, roots), optionally with
/// state of its own that comes back, verified, on the retry.
///
/// Build it with [`Context::input_required`], which leaves out requests the
/// client did not declare the capability for, and return it as
/// `Err(input_required.into())`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InputRequired {
    requests: InputRequests,
    state: Option<Vec<u8>>,
    allowed: Option<Allowed>,
    /// What the requests left out by [`InputRequired::request`] needed,
    /// for the -32021 error when nothing is left.
    missing: ClientCapabilities,
}

/// Which kinds of input request the client declared it can fulfil, down
/// to the elicitation mode (ELIC-06) and the sampling extras (SAMP-04,
/// SAMP-06).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Allowed {
    form_elicitation: bool,
    url_elicitation: bool,
    sampling: bool,
    sampling_tools: bool,
    sampling_context: bool,
    roots: bool,
}

impl Allowed {
    fn of(capabilities: &ClientCapabilities) -> Self {
        Self {
            form_elicitation: capabilities.supports_form_elicitation(),
            url_elicitation: capabilities.supports_url_elicitation(),
            sampling: capabilities.supports_sampling(),
            sampling_tools: capabilities.supports_sampling_tools(),
            sampling_context: capabilities.supports_sampling_context(),
            roots: capabilities.supports_roots(),
        }
    }

    fn permits(self, request: &InputRequest) -> bool {
        match &request.kind {
            InputRequestKind::Elicit(ElicitRequestParams::Form(_)) => self.form_elicitation,
            InputRequestKind::Elicit(ElicitRequestParams::Url(_)) => self.url_elicitation,
            InputRequestKind::CreateMessage(params) => {
                let tools = params.tools.as_ref().is_some_and(|tools| !tools.is_empty())
                    || params.tool_choice.is_some();
                let wide_context = matches!(
                    params.include_context,
                    Some(IncludeContext::ThisServer | IncludeContext::AllServers)
                );
                self.sampling
                    && (!tools || self.sampling_tools)
                    && (!wide_context || self.sampling_context)
            }
            InputRequestKind::ListRoots(_) => self.roots,
            InputRequestKind::Other { .. } => false,
        }
    }
}

impl InputRequired {
    /// An empty answer that does not filter by capability (the runtime
    /// still leaves out what the client cannot fulfil).
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `request` under `key`, unless the client cannot fulfil it.
    pub fn request(mut self, key: impl Into<String>, request: InputRequest) -> Self {
        if self.allowed.is_none_or(|allowed| allowed.permits(&request)) {
            self.requests.insert(key, request);
        } else {
            // `Other` never gets here: no client is allowed it.
            let _ = note_missing(&mut self.missing, &request.kind);
        }
        self
    }

    /// Asks the user, through the client, for what `params` describe.
    pub fn elicit(self, key: impl Into<String>, params: ElicitRequestParams) -> Self {
        self.request(key, InputRequestKind::Elicit(params).into())
    }

    /// Asks the client to sample its model.
    pub fn sample(self, key: impl Into<String>, params: CreateMessageRequestParams) -> Self {
        self.request(key, InputRequestKind::CreateMessage(params).into())
    }

    /// Asks the client for its roots.
    pub fn list_roots(self, key: impl Into<String>) -> Self {
        self.request(key, InputRequestKind::ListRoots(None).into())
    }

    /// State the handler gets back from [`Context::request_state`] on the
    /// retry. The client sees it only sealed (integrity-protected, not
    /// encrypted): keep secrets out of it.
    pub fn state(mut self, state: impl Into<Vec<u8>>) -> Self {
        self.state = Some(state.into());
        self
    }

    /// The requests so far, by key.
    pub fn requests(&self) -> &InputRequests {
        &self.requests
    }

    /// Its requests and state, for a task that waits on them.
    pub(crate) fn into_parts(self) -> (InputRequests, Option<Vec<u8>>) {
        (self.requests, self.state)
    }

    /// Whether it asks for nothing and carries no state.
    pub fn is_empty(&self) -> bool {
        self.requests.is_empty() && self.state.is_none()
    }
}

impl From<InputRequired> for HandlerError {
    fn from(input: InputRequired) -> Self {
        Self::InputRequired(Box::new(input))
    }
}

/// What the client sent back with a retry, as the handler sees it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Round {
    responses: InputResponses,
    state: Option<Vec<u8>>,
}

/// What a first call sees: no answers and no state.
pub(crate) static EMPTY_ROUND: Round = Round {
    responses: InputResponses(std::collections::BTreeMap::new()),
    state: None,
};

impl Round {
    /// Whether the round carries neither answers nor state.
    pub(crate) fn is_empty(&self) -> bool {
        self.responses.0.is_empty() && self.state.is_none()
    }

    /// A round that sees `responses` and the handler's own `state`.
    pub(crate) fn new(responses: InputResponses, state: Option<Vec<u8>>) -> Self {
        Self { responses, state }
    }
}

impl Context {
    /// An [`InputRequired`] that leaves out the requests this client did
    /// not declare the capability for (in 2026-07-28, the capabilities of
    /// the request's `_meta`).
    pub fn input_required(&self) -> InputRequired {
        InputRequired {
            allowed: Some(Allowed::of(self.client_capabilities())),
            ..InputRequired::default()
        }
    }

    /// Whether the client can answer elicitation requests.
    pub fn can_elicit(&self) -> bool {
        self.client_capabilities().elicitation.is_some()
    }

    /// Whether the client can answer sampling requests.
    pub fn can_sample(&self) -> bool {
        self.client_capabilities().sampling.is_some()
    }

    /// Whether the client can list its roots.
    pub fn can_list_roots(&self) -> bool {
        self.client_capabilities().roots.is_some()
    }

    /// The client's answers to the input requests of the previous round,
    /// by key (empty on a first call). Keys the handler did not ask for
    /// are best ignored.
    pub fn input_responses(&self) -> &InputResponses {
        &self.round().responses
    }

    /// The state the handler put in its previous [`InputRequired`],
    /// verified: a state the client changed never reaches a handler.
    pub fn request_state(&self) -> Option<&[u8]> {
        self.round().state.as_deref()
    }

    /// The answer under `key` if it is an elicitation result; an answer of
    /// another shape counts as missing, so the handler asks again.
    pub fn elicit_response(&self, key: &str) -> Option<&ElicitResult> {
        match self.input_responses().get(key) {
            Some(InputResponse::Elicit(result)) => Some(result),
            _ => None,
        }
    }

    /// The answer under `key` if it is a sampling result.
    pub fn sampling_response(&self, key: &str) -> Option<&CreateMessageResult> {
        match self.input_responses().get(key) {
            Some(InputResponse::CreateMessage(result)) => Some(result),
            _ => None,
        }
    }

    /// The answer under `key` if it is a roots result.
    pub fn roots_response(&self, key: &str) -> Option<&ListRootsResult> {
        match self.input_responses().get(key) {
            Some(InputResponse::ListRoots(result)) => Some(result),
            _ => None,
        }
    }
}

/// A handler's final answer: its result, or a request for input to send
/// to the client.
pub(crate) enum Answer<T> {
    Complete(T),
    InputRequired(InputRequiredResult),
}

/// The multi round-trip fields of a request, as the client sent them.
pub(crate) struct Retry {
    pub(crate) responses: Option<InputResponses>,
    pub(crate) state: Option<String>,
}

impl Server {
    /// Runs `handler` for a request of `method` on `name` (tool, prompt or
    /// resource), verifying the retry's state first and turning an
    /// [`InputRequired`] into what the revision allows.
    pub(crate) async fn run_rounds<T, F, Fut>(
        &self,
        method: &str,
        name: &str,
        retry: Retry,
        ctx: Context,
        mut handler: F,
    ) -> Result<Answer<T>, HandlerError>
    where
        F: FnMut(Context) -> Fut,
        Fut: Future<Output = Result<T, HandlerError>>,
    {
        let state = match retry.state {
            Some(sealed) if multi_round_trip(method, ctx.version()) => {
                let binding = state_binding(method, name, &ctx);
                let opened = self.inner.state_key.open(&binding, &sealed);
                Some(opened.ok_or_else(|| {
                    HandlerError::InvalidParams(
                        "requestState failed verification: it was not issued by this \
                             server for this request, or it was changed"
                            .to_owned(),
                    )
                })?)
            }
            _ => None,
        };
        let round = Round {
            responses: retry.responses.unwrap_or_default(),
            state,
        };
        let input = match handler(ctx.with_round(round)).await {
            Ok(result) => return Ok(Answer::Complete(result)),
            Err(HandlerError::InputRequired(input)) => *input,
            Err(other) => return Err(other),
        };
        self.rounds_after_input(method, name, input, ctx, handler)
            .await
    }

    /// Goes on after the first run of `handler` asked for `input`: in
    /// 2026-07-28 that is the answer (the client fulfils it and retries);
    /// in the handshake revisions the runtime fulfils it itself and runs
    /// the handler again, up to [`MAX_LOCAL_ROUNDS`] runs in all.
    pub(crate) async fn rounds_after_input<T, F, Fut>(
        &self,
        method: &str,
        name: &str,
        mut input: InputRequired,
        ctx: Context,
        mut handler: F,
    ) -> Result<Answer<T>, HandlerError>
    where
        F: FnMut(Context) -> Fut,
        Fut: Future<Output = Result<T, HandlerError>>,
    {
        let version = ctx.version();
        if multi_round_trip(method, version) {
            let binding = state_binding(method, name, &ctx);
            return self.input_required_result(input, &ctx, &binding);
        }
        if version.has_multi_round_trip() {
            return Err(HandlerError::Internal(format!(
                "{method} cannot answer input_required in {version}"
            )));
        }
        for runs in 1..=MAX_LOCAL_ROUNDS {
            // Boxed: the rare path, and a large future that would
            // otherwise make every call's future as large.
            let round = Box::pin(fulfil_locally(input, &ctx)).await?;
            if runs == MAX_LOCAL_ROUNDS {
                break;
            }
            input = match handler(ctx.with_round(round)).await {
                Ok(result) => return Ok(Answer::Complete(result)),
                Err(HandlerError::InputRequired(input)) => *input,
                Err(other) => return Err(other),
            };
        }
        Err(HandlerError::Internal(format!(
            "the handler of {method} {name} asked for input more than {MAX_LOCAL_ROUNDS} times"
        )))
    }

    /// The `input_required` answer: requests the client cannot fulfil are
    /// left out (a client MUST NOT be asked for an undeclared capability),
    /// and the state is sealed.
    fn input_required_result<T>(
        &self,
        input: InputRequired,
        ctx: &Context,
        binding: &str,
    ) -> Result<Answer<T>, HandlerError> {
        let allowed = Allowed::of(ctx.client_capabilities());
        let mut missing = input.missing;
        let mut requests = InputRequests::new();
        for (key, request) in input.requests.0 {
            // SAMP-07..10: a sampling request out of order is the handler's
            // mistake; it is never sent, in this era as in the handshake
            // ones (where `Peer::create_message` refuses it).
            if let InputRequestKind::CreateMessage(params) = &request.kind {
                mcpwire_types::check_tool_ordering(&params.messages).map_err(|error| {
                    HandlerError::Internal(format!("input request {key:?}: {error}"))
                })?;
            }
            if allowed.permits(&request) {
                requests.insert(key, request);
                continue;
            }
            note_missing(&mut missing, &request.kind).map_err(|method| {
                HandlerError::Internal(format!("{method} cannot be an input request"))
            })?;
        }
        if requests.is_empty() && input.state.is_none() {
            return Err(HandlerError::Rpc(missing_capability(missing)));
        }
        let mut result = InputRequiredResult::default();
        if !requests.is_empty() {
            result.input_requests = Some(requests);
        }
        result.request_state = input
            .state
            .map(|state| self.inner.state_key.seal(binding, &state));
        Ok(Answer::InputRequired(result))
    }
}

/// Whether a request of `method` in `version` is a multi round-trip one,
/// whose input requests and sealed state go back to the client.
fn multi_round_trip(method: &str, version: ProtocolVersion) -> bool {
    version.has_multi_round_trip()
        && method_info(method).is_some_and(|info| info.may_require_input_in(version))
}

/// What a request's sealed state is bound to (made only for the multi
/// round-trip requests that carry one): the request (method, and tool,
/// prompt or resource name), and the identity that sent it when an
/// authentication layer established one (a `RequestIdentity` among the
/// request's extensions, as sessions are bound), so that a state minted for
/// one user is refused for another: the spec's "authenticated principal,
/// rejecting state presented by a different principal" (MRTR server
/// requirements; ELIC-34, SEC-10).
fn state_binding(method: &str, name: &str, ctx: &Context) -> String {
    let owner = RequestIdentity::of(ctx.transport_context()).map(RequestIdentity::owner_key);
    binding_text(method, name, owner.as_deref())
}

/// The text a state is sealed to: the request, and its owner's key when
/// it has one (shared with the fuzz hooks, which seal and open as the
/// runtime does).
pub(crate) fn binding_text(method: &str, name: &str, owner: Option<&str>) -> String {
    match owner {
        // No method is named `owner`, so a bound binding never equals an
        // unbound one; the owner's length keeps it apart from the name.
        Some(owner) => format!("owner\n{}\n{owner}\n{method}\n{name}", owner.len()),
        None => format!("{method}\n{name}"),
    }
}

/// Adds to `missing` the client capabilities `kind` needs (the elicitation
/// mode, the sampling extras); a method that is no input request is
/// returned as the error.
fn note_missing(missing: &mut ClientCapabilities, kind: &InputRequestKind) -> Result<(), String> {
    match kind {
        InputRequestKind::Elicit(params) => {
            let needed = missing.elicitation.get_or_insert_with(Default::default);
            match params {
                ElicitRequestParams::Form(_) => needed.form = Some(Default::default()),
                ElicitRequestParams::Url(_) => needed.url = Some(Default::default()),
            }
        }
        InputRequestKind::CreateMessage(params) => {
            let needed = missing.sampling.get_or_insert_with(Default::default);
            if params.tools.is_some() || params.tool_choice.is_some() {
                needed.tools = Some(Default::default());
            }
            if params
                .include_context
                .is_some_and(|c| c != IncludeContext::None)
            {
                needed.context = Some(Default::default());
            }
        }
        InputRequestKind::ListRoots(_) => missing.roots = Some(Default::default()),
        InputRequestKind::Other { method, .. } => return Err(method.clone()),
    }
    Ok(())
}

impl InputRequired {
    /// The error for input whose every request was left out because the
    /// client did not declare the capability it needs; `None` when nothing
    /// was left out. Where the revision has it (2026-07-28,
    /// `stateless_era`), -32021 with `data.requiredCapabilities`; in the
    /// handshake revisions, which have no such code, an Invalid Request
    /// error saying the same, with the same data.
    pub(crate) fn unfulfillable(&self, stateless_era: bool) -> Option<ErrorObject> {
        if !self.requests.is_empty() || self.missing == ClientCapabilities::default() {
            return None;
        }
        if stateless_era {
            return Some(missing_capability(self.missing.clone()));
        }
        let data = MissingRequiredClientCapabilityData::new(self.missing.clone());
        let needed = serde_json::to_string(&self.missing).unwrap_or_default();
        let error = ErrorObject::invalid_request(format!(
            "the client did not declare the capabilities this request needs: {needed}"
        ));
        Some(error.clone().with_data(&data).unwrap_or(error))
    }
}

/// The -32021 error naming the capabilities a request needed.
fn missing_capability(missing: ClientCapabilities) -> ErrorObject {
    let code = McpErrorCode::MissingRequiredClientCapability;
    let error = ErrorObject::new(code.error_code(), code.default_message());
    let data = MissingRequiredClientCapabilityData::new(missing);
    error.clone().with_data(&data).unwrap_or(error)
}

/// In the handshake revisions: sends the input requests to the client as
/// requests of their own and collects the answers for the next round.
async fn fulfil_locally(input: InputRequired, ctx: &Context) -> Result<Round, HandlerError> {
    if input.requests.is_empty() {
        if let Some(error) = input.unfulfillable(false) {
            return Err(HandlerError::Rpc(error));
        }
        return Err(HandlerError::Internal(
            "the handler asked for input but named no request".to_owned(),
        ));
    }
    // TASK-26, TASK-29: a task waiting on the client is `input_required`
    // until every answer is in.
    let task = crate::tasks::waiting_for_input(ctx, &input.requests).await;
    let mut responses = InputResponses::new();
    for (key, request) in input.requests.0 {
        let outgoing = match request.kind {
            InputRequestKind::Elicit(params) => ServerRequest::Elicit(Box::new(params)),
            InputRequestKind::CreateMessage(params) => {
                ServerRequest::CreateMessage(Box::new(params))
            }
            InputRequestKind::ListRoots(params) => {
                ServerRequest::ListRoots(Box::new(params.unwrap_or_else(RequestParams::default)))
            }
            InputRequestKind::Other { method, .. } => {
                return Err(HandlerError::Internal(format!(
                    "{method} cannot be an input request"
                )));
            }
        };
        let answer = ctx
            .request(outgoing, RequestOptions::default())
            .await
            .map_err(|error| {
                HandlerError::Internal(format!(
                    "{} has no multi round-trip requests, and sending input request {key} \
                     to the client failed: {error}",
                    ctx.version()
                ))
            })?;
        let response = match answer {
            ClientResult::Elicit(result) => InputResponse::Elicit(*result),
            ClientResult::CreateMessage(result) => InputResponse::CreateMessage(*result),
            ClientResult::ListRoots(result) => InputResponse::ListRoots(*result),
            _ => {
                return Err(HandlerError::Internal(format!(
                    "the client answered input request {key} with an unexpected result"
                )));
            }
        };
        responses.insert(key, response);
    }
    if let Some(task) = task {
        task.answered(ctx, &responses).await;
    }
    Ok(Round {
        responses,
        state: input.state,
    })
}
