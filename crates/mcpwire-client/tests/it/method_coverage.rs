//! Every method of every revision in the generated method table is sent
//! and handled through some public function of `mcpwire-client` or
//! `mcpwire-server`: a mapping table, checked both ways (no table method
//! without a mapping, no mapping without a table method).
//!
//! Each function is named by a closure that refers to it, so a renamed or
//! removed function breaks the build of this test rather than going
//! unnoticed. The closures are never called.

use std::collections::BTreeSet;

use mcpwire_client::{Client, ClientHandler, HandlerContext};
use mcpwire_jsonrpc::memory::MemoryTransport;
use mcpwire_server::{
    Arguments, Context, HandlerError, InputRequired, PromptArguments, Server, ServerBuilder,
};
use mcpwire_types::methods::{self, Direction, MethodKind, Ping, SubscriptionsListen};
use mcpwire_types::{
    CallToolResult, CreateMessageRequestParams, ElicitRequestParams, ElicitRequestURLParams,
    GetPromptResult, LoggingLevel, ProtocolVersion, ReadResourceResult, RequestParams,
};

/// A public function, named by a closure that refers to it.
type Reach = fn();

/// How one method is reached: who sends it, who handles it.
struct Mapping {
    method: &'static str,
    sent_by: Vec<Reach>,
    handled_by: Vec<Reach>,
}

fn map(method: &'static str, sent_by: Vec<Reach>, handled_by: Vec<Reach>) -> Mapping {
    Mapping {
        method,
        sent_by,
        handled_by,
    }
}

/// The public functions named, as [`Reach`]es. Each item is a path to a
/// function or a closure calling one (never run); the compiler checks both.
macro_rules! names {
    ($($item:expr),+ $(,)?) => {
        vec![$((|| {
            let _ = $item;
        }) as Reach),+]
    };
}

/// A concrete handler type for the builder functions generic over it.
type Handler<A, R> = fn(Context, A) -> std::future::Ready<Result<R, HandlerError>>;

#[allow(clippy::too_many_lines, reason = "one entry per method of the table")]
fn mappings() -> Vec<Mapping> {
    vec![
        map(
            "completion/complete",
            names![Client::complete],
            names![|b: ServerBuilder| b.prompt_completion(
                "p",
                "a",
                |_ctx: Context, _value, _context| async { Ok(Vec::new()) }
            )],
        ),
        map(
            "elicitation/create",
            names![
                Context::elicit,
                |i: InputRequired, p: ElicitRequestParams| i.elicit("k", p),
            ],
            names![
                |h: &dyn ClientHandler, p: ElicitRequestParams, c: HandlerContext| drop(
                    h.elicit(p, c)
                ),
                |h: &dyn ClientHandler, p: ElicitRequestURLParams, c: HandlerContext| drop(
                    h.elicit_url(p, c)
                ),
            ],
        ),
        map(
            "initialize",
            names![Client::connect::<MemoryTransport>],
            names![Server::serve::<MemoryTransport>],
        ),
        map(
            "logging/setLevel",
            names![Client::set_log_level],
            names![Server::serve::<MemoryTransport>],
        ),
        map(
            "notifications/cancelled",
            // Dropping a call's future cancels it; a server request that
            // times out is cancelled by the engine.
            names![Client::request::<Ping>, Context::request],
            names![Context::cancellation, HandlerContext::cancellation],
        ),
        map(
            "notifications/elicitation/complete",
            names![|c: &Context| drop(c.elicitation_complete("id"))],
            names![Client::notifications],
        ),
        map(
            "notifications/initialized",
            names![Client::connect::<MemoryTransport>],
            names![Server::serve::<MemoryTransport>],
        ),
        map(
            "notifications/message",
            names![|c: &Context| drop(c.log(LoggingLevel::Info, None, "x"))],
            names![Client::notifications],
        ),
        map(
            "notifications/progress",
            names![Context::progress, HandlerContext::progress],
            names![
                Client::request_with_progress::<Ping>,
                Server::serve::<MemoryTransport>
            ],
        ),
        map(
            "notifications/prompts/list_changed",
            names![Server::remove_prompt],
            names![Client::notifications],
        ),
        map(
            "notifications/resources/list_changed",
            names![Server::remove_resource],
            names![Client::notifications],
        ),
        map(
            "notifications/resources/updated",
            names![|s: &Server| s.resource_updated("file:///x")],
            names![Client::notifications],
        ),
        // Accepted by the server's engine; no server hook exposes it yet.
        map(
            "notifications/roots/list_changed",
            names![Client::set_roots],
            names![Server::serve::<MemoryTransport>],
        ),
        map(
            "notifications/subscriptions/acknowledged",
            names![Server::serve::<MemoryTransport>],
            names![Client::notifications],
        ),
        map(
            "notifications/tasks/status",
            names![Server::serve::<MemoryTransport>],
            names![Client::task_status_updates],
        ),
        map(
            "notifications/tools/list_changed",
            names![Server::remove_tool],
            names![Client::notifications],
        ),
        map(
            "ping",
            names![Client::ping, Context::request],
            names![
                Server::serve::<MemoryTransport>,
                Client::connect::<MemoryTransport>
            ],
        ),
        map(
            "prompts/get",
            names![
                |c: &Client| drop(c.get_prompt("p", Default::default())),
                Client::get_prompt_with_input
            ],
            names![ServerBuilder::prompt::<Handler<PromptArguments, GetPromptResult>, _>],
        ),
        map(
            "prompts/list",
            names![Client::list_prompts, Client::list_all_prompts],
            names![Server::serve::<MemoryTransport>],
        ),
        map(
            "resources/list",
            names![Client::list_resources, Client::list_all_resources],
            names![Server::serve::<MemoryTransport>],
        ),
        map(
            "resources/read",
            names![
                |c: &Client| drop(c.read_resource("file:///x")),
                Client::read_resource_with_input
            ],
            names![ServerBuilder::resource::<Handler<String, ReadResourceResult>, _>],
        ),
        map(
            "resources/subscribe",
            names![|c: &Client| drop(c.subscribe("file:///x"))],
            names![Server::serve::<MemoryTransport>],
        ),
        map(
            "resources/templates/list",
            names![Client::list_resource_templates],
            names![Server::serve::<MemoryTransport>],
        ),
        map(
            "resources/unsubscribe",
            names![|c: &Client| drop(c.unsubscribe("file:///x"))],
            names![Server::serve::<MemoryTransport>],
        ),
        map(
            "roots/list",
            names![Context::list_roots, |i: InputRequired| i.list_roots("k")],
            names![
                |h: &dyn ClientHandler, p: RequestParams, c: HandlerContext| drop(
                    h.list_roots(p, c)
                ),
                Client::set_roots,
            ],
        ),
        map(
            "sampling/createMessage",
            names![
                Context::create_message,
                |i: InputRequired, p: CreateMessageRequestParams| i.sample("k", p)
            ],
            names![
                |h: &dyn ClientHandler, p: CreateMessageRequestParams, c: HandlerContext| drop(
                    h.create_message(p, c)
                ),
                Client::fulfil_input,
            ],
        ),
        map(
            "server/discover",
            names![Client::discover, Client::connect::<MemoryTransport>],
            names![Server::serve::<MemoryTransport>],
        ),
        map(
            "subscriptions/listen",
            names![Client::request::<SubscriptionsListen>],
            names![Server::serve::<MemoryTransport>],
        ),
        // The tasks methods: sent by the client's task API
        // (`src/tasks.rs`); the server side is the tasks extension work.
        map(
            "tasks/cancel",
            names![|c: &Client| drop(c.cancel_task("t"))],
            names![Server::serve::<MemoryTransport>],
        ),
        map(
            "tasks/get",
            names![|c: &Client| drop(c.get_task("t"))],
            names![Server::serve::<MemoryTransport>],
        ),
        map(
            "tasks/list",
            names![Client::list_tasks],
            names![Server::serve::<MemoryTransport>],
        ),
        map(
            "tasks/result",
            names![|c: &Client| drop(c.task_result("t")), |c: &Client| drop(
                c.task_tool_result("t")
            )],
            names![Server::serve::<MemoryTransport>],
        ),
        map(
            "tools/call",
            names![
                |c: &Client| drop(c.call_tool("t", ())),
                Client::call_tool_with_input
            ],
            names![ServerBuilder::tool::<Handler<Arguments, CallToolResult>, _>],
        ),
        map(
            "tools/list",
            names![Client::list_tools, Client::list_all_tools],
            names![Server::serve::<MemoryTransport>],
        ),
    ]
}

#[test]
fn every_method_of_every_revision_is_sent_and_handled_through_the_public_api() {
    let mappings = mappings();
    let mapped: BTreeSet<&str> = mappings.iter().map(|m| m.method).collect();
    assert_eq!(mapped.len(), mappings.len(), "a method is mapped twice");
    for mapping in &mappings {
        assert!(
            !mapping.sent_by.is_empty() && !mapping.handled_by.is_empty(),
            "{} needs a sender and a handler",
            mapping.method
        );
    }
    for version in ProtocolVersion::ALL {
        for info in methods::METHODS.iter().filter(|m| m.in_revision(version)) {
            assert!(
                mapped.contains(info.name),
                "{} ({version}) is not mapped to a public function",
                info.name
            );
        }
    }
    let known: BTreeSet<&str> = methods::METHODS.iter().map(|m| m.name).collect();
    let stale: Vec<&&str> = mapped.difference(&known).collect();
    assert!(
        stale.is_empty(),
        "mapped methods no revision has: {stale:?}"
    );
}

#[test]
fn input_requests_of_2026_07_28_are_methods_the_handshake_era_sends_as_requests() {
    // In 2026-07-28 sampling, elicitation and roots travel inside
    // `input_required` answers; the same public functions reach them.
    for info in methods::METHODS {
        if info.input_request_since.is_some() {
            assert_eq!(info.kind, MethodKind::Request, "{}", info.name);
            assert_eq!(info.direction, Direction::ServerToClient, "{}", info.name);
        }
    }
}
