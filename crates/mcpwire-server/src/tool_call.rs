//! A `tools/call` as a future written out by hand: a plain call (no task,
//! no retry) polls its handler's own future directly, so that the call
//! needs no boxed async state machine of its own around the handler's;
//! everything rarer (task modes, retries, input rounds) goes on in the
//! general, boxed path.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};

use mcpwire_jsonrpc::{ErrorObject, RawJson};
use mcpwire_types::methods::ServerResult;
use mcpwire_types::{CallToolRequestParams, CallToolResult, ForRevision, ProtocolVersion};

use crate::catalog::ToolEntry;
use crate::dispatch::{ToolArguments, check_arguments, conclude_tool, unknown_tool};
use crate::input::{Answer, InputRequired};
use crate::tasks::Reply;
use crate::{BoxFuture, Context, HandlerError, Server};

/// One `tools/call`, from its decoded params to its reply.
///
/// Nothing runs before the first poll (the tool's lookup, the schema check
/// and the handler's own code then run inside the request's span and panic
/// guard, see `call.rs`).
pub(crate) struct ToolCall {
    state: State,
}

enum State {
    /// Not polled yet.
    Start {
        server: Server,
        params: Box<CallToolRequestParams>,
        raw_params: Option<RawJson>,
        ctx: Context,
    },
    /// The first run of the handler of a plain call.
    FirstRun(FirstRun),
    /// Anything else, on the general path.
    General(BoxFuture<'static, Result<Reply, ErrorObject>>),
    /// The reply was given.
    Done,
}

/// A plain call's first handler run, with what another run would need.
struct FirstRun {
    run: BoxFuture<'static, Result<CallToolResult, HandlerError>>,
    rest: Rounds,
}

/// What runs after the first need: the tool, its arguments for another
/// run, the request's context.
struct Rounds {
    server: Server,
    entry: Arc<ToolEntry>,
    arguments: ToolArguments,
    ctx: Context,
    version: ProtocolVersion,
}

impl ToolCall {
    /// The call of `params` (with the request's raw params, which a second
    /// run of the handler reads its arguments from).
    pub(crate) fn new(
        server: Server,
        params: Box<CallToolRequestParams>,
        raw_params: Option<RawJson>,
        ctx: Context,
    ) -> Self {
        Self {
            state: State::Start {
                server,
                params,
                raw_params,
                ctx,
            },
        }
    }
}

impl Future for ToolCall {
    type Output = Result<Reply, ErrorObject>;

    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        // The steps in their order; each either answers, waits, or hands
        // over to the next.
        let state = match std::mem::replace(&mut this.state, State::Done) {
            State::Start {
                server,
                params,
                raw_params,
                ctx,
            } => match start(server, params, raw_params, ctx) {
                Ok(next) => next,
                Err(reply) => return Poll::Ready(reply),
            },
            other => other,
        };
        let state = match state {
            State::FirstRun(mut first) => match first.run.as_mut().poll(cx) {
                Poll::Pending => {
                    this.state = State::FirstRun(first);
                    return Poll::Pending;
                }
                Poll::Ready(Err(HandlerError::InputRequired(input))) => {
                    State::General(Box::pin(after_first_run(first.rest, *input)))
                }
                Poll::Ready(outcome) => {
                    let Rounds { entry, version, .. } = &first.rest;
                    return Poll::Ready(tool_reply(entry, Ok(outcome), *version));
                }
            },
            other => other,
        };
        match state {
            State::General(mut general) => {
                let polled = general.as_mut().poll(cx);
                if polled.is_pending() {
                    this.state = State::General(general);
                }
                polled
            }
            // Polled after it finished: the reply was already given.
            _ => Poll::Pending,
        }
    }
}

/// The first step of a call: the tool's lookup, its task mode and its
/// arguments' check (TOOL-16), then the handler's first run for a plain
/// call; `Err` is the reply when no handler is to run.
fn start(
    server: Server,
    params: Box<CallToolRequestParams>,
    raw_params: Option<RawJson>,
    ctx: Context,
) -> Result<State, Result<Reply, ErrorObject>> {
    let Some(entry) = server.catalog().tool(&params.name) else {
        return Err(Err(unknown_tool(&params.name)));
    };
    let plain = server.runs_plain(&entry, &params, &ctx).map_err(Err)?;
    let retry = params.input_responses.is_some() || params.request_state.is_some();
    if !plain || retry {
        return Ok(State::General(Box::pin(async move {
            server.call_tool_reply(params, raw_params, ctx).await
        })));
    }
    let version = ctx.version();
    let mut arguments = params.arguments.unwrap_or_default();
    if let Some(refusal) = check_arguments(&entry, &mut arguments, version).map_err(Err)? {
        return Err(Ok(ServerResult::CallTool(Box::new(refusal)).into()));
    }
    let mut arguments = ToolArguments::new(arguments, raw_params);
    // A first call's round is empty: the handler sees the request's own
    // context, as `run_rounds` would give it.
    let run = arguments.run(&entry.handler, ctx.clone());
    Ok(State::FirstRun(FirstRun {
        run,
        rest: Rounds {
            server,
            entry,
            arguments,
            ctx,
            version,
        },
    }))
}

/// What follows a first run that asked for `input` (see
/// `Server::rounds_after_input`).
async fn after_first_run(rounds: Rounds, input: InputRequired) -> Result<Reply, ErrorObject> {
    let Rounds {
        server,
        entry,
        mut arguments,
        ctx,
        version,
    } = rounds;
    let answer = server
        .rounds_after_input("tools/call", &entry.tool.name, input, ctx, |ctx| {
            arguments.run(&entry.handler, ctx)
        })
        .await;
    let answer = match answer {
        Ok(Answer::Complete(result)) => Ok(Ok(result)),
        Ok(Answer::InputRequired(input)) => Err(input),
        Err(error) => Ok(Err(error)),
    };
    tool_reply(&entry, answer, version)
}

/// The reply to a call: what its handler gave, concluded (a tool error
/// becomes an `isError` result, a structured result is checked), or the
/// input it requires (2026-07-28).
fn tool_reply(
    entry: &ToolEntry,
    answer: Result<Result<CallToolResult, HandlerError>, mcpwire_types::InputRequiredResult>,
    version: ProtocolVersion,
) -> Result<Reply, ErrorObject> {
    match answer {
        Ok(outcome) => {
            let mut result = conclude_tool(entry, outcome, version)?;
            // Fitted to the request's revision and encoded here, as the
            // engine's `respond` would: no `ServerResult` box around it.
            result.fit_to(version);
            RawJson::from_serialize(&result)
                .map(Reply::Raw)
                .map_err(|error| ErrorObject::internal_error(error.to_string()))
        }
        Err(input) => Ok(ServerResult::InputRequired(Box::new(input)).into()),
    }
}
