//! Capability gating: which capability each method needs, on either side
//! (LIFE-14: use only what both sides declared).

use mcpwire_types::methods::{ClientRequest, ServerNotification, ServerRequest};
use mcpwire_types::{ClientCapabilities, ProtocolVersion, ServerCapabilities};

use crate::SendError;

/// The server capability a request from the client needs, as a dotted path,
/// when the server lacks it; such a request is answered with -32601.
pub(crate) fn missing_server_capability(
    method: &str,
    version: ProtocolVersion,
    caps: &ServerCapabilities,
) -> Option<&'static str> {
    let (needed, present) = match method {
        "tools/list" | "tools/call" => ("tools", caps.supports_tools()),
        "resources/list" | "resources/read" | "resources/templates/list" => {
            ("resources", caps.supports_resources())
        }
        "resources/subscribe" | "resources/unsubscribe" => {
            ("resources.subscribe", caps.supports_resource_subscribe())
        }
        "prompts/list" | "prompts/get" => ("prompts", caps.supports_prompts()),
        "logging/setLevel" => ("logging", caps.supports_logging()),
        // 2024-11-05 had no `completions` capability; the method existed for
        // servers with prompts or resource templates.
        "completion/complete" if !version.has_completions_capability() => (
            "completions",
            caps.supports_completions() || caps.supports_prompts() || caps.supports_resources(),
        ),
        "completion/complete" => ("completions", caps.supports_completions()),
        "tasks/list" => ("tasks.list", caps.supports_task_list()),
        "tasks/cancel" => ("tasks.cancel", caps.supports_task_cancel()),
        "tasks/get" | "tasks/result" => ("tasks", caps.tasks.is_some()),
        _ => return None,
    };
    (!present).then_some(needed)
}

/// Checks that the client declared what a server request needs.
pub(crate) fn check_server_request(
    request: &ServerRequest,
    client: &ClientCapabilities,
) -> Result<(), SendError> {
    let method = request.method();
    let missing = |capability| Err(SendError::PeerLacksCapability { method, capability });
    match request {
        ServerRequest::CreateMessage(params) => {
            if !client.supports_sampling() {
                return missing("sampling");
            }
            if params.tools.as_ref().is_some_and(|tools| !tools.is_empty())
                && !client.supports_sampling_tools()
            {
                return missing("sampling.tools");
            }
            Ok(())
        }
        ServerRequest::Elicit(params) => match &**params {
            mcpwire_types::ElicitRequestParams::Form(_) if !client.supports_form_elicitation() => {
                missing("elicitation.form")
            }
            mcpwire_types::ElicitRequestParams::Url(_) if !client.supports_url_elicitation() => {
                missing("elicitation.url")
            }
            _ => Ok(()),
        },
        ServerRequest::ListRoots(_) if !client.supports_roots() => missing("roots"),
        ServerRequest::ListTasks(_) if !client.supports_task_list() => missing("tasks.list"),
        ServerRequest::CancelTask(_) if !client.supports_task_cancel() => missing("tasks.cancel"),
        ServerRequest::GetTask(_) | ServerRequest::GetTaskPayload(_) if client.tasks.is_none() => {
            missing("tasks")
        }
        _ => Ok(()),
    }
}

/// Checks that this server declared what a notification it sends needs, and
/// that the client can take it.
pub(crate) fn check_server_notification(
    notification: &ServerNotification,
    server: &ServerCapabilities,
    client: &ClientCapabilities,
) -> Result<(), SendError> {
    let method = notification.method();
    let own = |capability| Err(SendError::OwnCapabilityMissing { method, capability });
    match notification {
        ServerNotification::ToolListChanged(_) if !server.supports_tools_list_changed() => {
            own("tools.listChanged")
        }
        ServerNotification::PromptListChanged(_) if !server.supports_prompts_list_changed() => {
            own("prompts.listChanged")
        }
        ServerNotification::ResourceListChanged(_) if !server.supports_resources_list_changed() => {
            own("resources.listChanged")
        }
        ServerNotification::ResourceUpdated(_) if !server.supports_resource_subscribe() => {
            own("resources.subscribe")
        }
        ServerNotification::LoggingMessage(_) if !server.supports_logging() => own("logging"),
        ServerNotification::ElicitationComplete(_) if !client.supports_url_elicitation() => {
            Err(SendError::PeerLacksCapability {
                method,
                capability: "elicitation.url",
            })
        }
        _ => Ok(()),
    }
}

/// The server capability a client request needs, for a client about to send it.
pub(crate) fn check_client_request(
    request: &ClientRequest,
    version: ProtocolVersion,
    server: &ServerCapabilities,
) -> Result<(), SendError> {
    let method = request.method();
    match missing_server_capability(method, version, server) {
        Some(capability) => Err(SendError::PeerLacksCapability { method, capability }),
        None => Ok(()),
    }
}
