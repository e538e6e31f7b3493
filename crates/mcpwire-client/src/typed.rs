//! The bridge between marker types (`methods::CallTool`, ...) and the
//! routing enums: typed params into a [`ClientRequest`], a [`ServerResult`]
//! back into the typed result.
//!
//! One table lists every request a client may send in some revision; the
//! conversions match on `M::METHOD` and move the boxed value across with
//! `Any`, so nothing is serialized twice. A marker whose types are not
//! those of its method, or a result of another kind, is an error, never a
//! panic.

use std::any::Any;

use mcpwire_types::methods::{self, ClientRequest, Request, ServerResult};

use crate::ClientError;

macro_rules! client_request_table {
    ($($name:ident),* $(,)?) => {
        /// The methods of the table, for the completeness test.
        #[cfg(test)]
        const ROUTED: &[&str] = &[$(<methods::$name as Request>::METHOD),*];

        /// Wraps typed params into the request variant of `M::METHOD`.
        pub(crate) fn into_request<M: Request>(params: M::Params) -> Result<ClientRequest, ClientError> {
            let params: Box<dyn Any> = Box::new(params);
            $(
                if M::METHOD == <methods::$name as Request>::METHOD {
                    return params
                        .downcast::<<methods::$name as Request>::Params>()
                        .map(ClientRequest::$name)
                        .map_err(|_| ClientError::UnknownMethod(M::METHOD));
                }
            )*
            Err(ClientError::UnknownMethod(M::METHOD))
        }

        /// Unwraps the typed result of `M` from what the server answered.
        pub(crate) fn from_result<M: Request>(result: ServerResult) -> Result<M::Result, ClientError> {
            let boxed: Box<dyn Any> = match result {
                ServerResult::InputRequired(input) => return Err(ClientError::InputRequired(input)),
                $(
                    ServerResult::$name(value) if M::METHOD == <methods::$name as Request>::METHOD => value,
                )*
                other => {
                    return Err(ClientError::InvalidResult(format!(
                        "a {} request was answered with a result of another kind: {other:?}",
                        M::METHOD
                    )));
                }
            };
            boxed
                .downcast::<M::Result>()
                .map(|value| *value)
                .map_err(|_| ClientError::UnknownMethod(M::METHOD))
        }
    };
}

// Every request a client sends in some revision. `initialize` is listed so
// that the engine, not this table, says it cannot be sent by hand.
client_request_table!(
    CallTool,
    CancelTask,
    Complete,
    Discover,
    GetPrompt,
    GetTask,
    GetTaskPayload,
    Initialize,
    ListPrompts,
    ListResourceTemplates,
    ListResources,
    ListTasks,
    ListTools,
    Ping,
    ReadResource,
    SetLevel,
    Subscribe,
    SubscriptionsListen,
    Unsubscribe,
);

#[cfg(test)]
mod tests {
    use mcpwire_types::methods::{CallTool, ListTools, Ping, SetLevel};
    use mcpwire_types::{
        CallToolRequestParams, CallToolResult, EmptyResult, ListToolsResult, LoggingLevel,
        PaginatedRequestParams, SetLevelRequestParams,
    };

    use super::*;

    #[test]
    fn every_client_method_in_the_table_builds_its_own_variant() {
        let request = into_request::<CallTool>(CallToolRequestParams::new("echo")).unwrap();
        assert_eq!(request.method(), "tools/call");
        let request = into_request::<ListTools>(PaginatedRequestParams::default()).unwrap();
        assert_eq!(request.method(), "tools/list");
        let request =
            into_request::<SetLevel>(SetLevelRequestParams::new(LoggingLevel::Info)).unwrap();
        assert_eq!(request.method(), "logging/setLevel");
        // Every client-sent request of every revision is routed.
        for info in methods::METHODS {
            if info.kind == methods::MethodKind::Request && info.direction.client_sends() {
                assert!(ROUTED.contains(&info.name), "{} is not routed", info.name);
            }
        }
    }

    #[test]
    fn a_result_of_another_kind_is_an_error_not_a_panic() {
        let tools = ServerResult::ListTools(Box::new(ListToolsResult::new(Vec::new())));
        let error = from_result::<CallTool>(tools).unwrap_err();
        assert!(matches!(error, ClientError::InvalidResult(_)), "{error:?}");
        // Same payload type (EmptyResult), other method: still refused.
        let set_level = ServerResult::SetLevel(Box::default());
        assert!(from_result::<Ping>(set_level).is_err());
        let ping = ServerResult::Ping(Box::default());
        assert_eq!(from_result::<Ping>(ping).unwrap(), EmptyResult::default());
        let call = ServerResult::CallTool(Box::new(CallToolResult::text("hi")));
        assert_eq!(
            from_result::<CallTool>(call).unwrap(),
            CallToolResult::text("hi")
        );
    }

    /// A marker of our own whose method is not a client request.
    struct NotAClientRequest;

    impl Request for NotAClientRequest {
        const METHOD: &'static str = "sampling/createMessage";
        type Params = mcpwire_types::CreateMessageRequestParams;
        type Result = mcpwire_types::CreateMessageResult;
    }

    /// A marker lying about its params type.
    struct WrongParams;

    impl Request for WrongParams {
        const METHOD: &'static str = "tools/call";
        type Params = PaginatedRequestParams;
        type Result = CallToolResult;
    }

    #[test]
    fn a_marker_that_is_not_a_client_request_or_lies_about_its_types_is_refused() {
        let params: mcpwire_types::CreateMessageRequestParams =
            serde_json::from_value(serde_json::json!({"messages": [], "maxTokens": 10})).unwrap();
        assert_eq!(
            into_request::<NotAClientRequest>(params).unwrap_err(),
            ClientError::UnknownMethod("sampling/createMessage")
        );
        assert_eq!(
            into_request::<WrongParams>(PaginatedRequestParams::default()).unwrap_err(),
            ClientError::UnknownMethod("tools/call")
        );
    }
}
