//! The bridge between marker types (`methods::CallTool`, ...) and the
//! routing enums: typed params into a [`ClientRequest`], a [`ServerResult`]
//! back into the typed result, through the [`ClientMethod`] impls
//! generated for every request a client sends (nothing is serialized
//! twice, nothing is downcast). A result of another kind is an error, never
//! a panic.

use mcpwire_types::methods::{ClientMethod, ClientRequest, ServerResult};

use crate::ClientError;

/// Wraps typed params into the request variant of `M`.
pub(crate) fn into_request<M: ClientMethod>(params: M::Params) -> ClientRequest {
    M::into_request(params)
}

/// Unwraps the typed result of `M` from what the server answered.
pub(crate) fn from_result<M: ClientMethod>(result: ServerResult) -> Result<M::Result, ClientError> {
    match result {
        ServerResult::InputRequired(input) => Err(ClientError::InputRequired(input)),
        result => M::from_result(result).map_err(|other| {
            ClientError::InvalidResult(format!(
                "a {} request was answered with a result of another kind: {other:?}",
                M::METHOD
            ))
        }),
    }
}

#[cfg(test)]
mod tests {
    use mcpwire_types::methods::{self, CallTool, ListTools, Ping, SetLevel};
    use mcpwire_types::{
        CallToolRequestParams, CallToolResult, EmptyResult, ListToolsResult, LoggingLevel,
        PaginatedRequestParams, SetLevelRequestParams,
    };

    use super::*;

    #[test]
    fn every_client_method_builds_its_own_variant() {
        let request = into_request::<CallTool>(CallToolRequestParams::new("echo"));
        assert_eq!(request.method(), "tools/call");
        let request = into_request::<ListTools>(PaginatedRequestParams::default());
        assert_eq!(request.method(), "tools/list");
        let request = into_request::<SetLevel>(SetLevelRequestParams::new(LoggingLevel::Info));
        assert_eq!(request.method(), "logging/setLevel");
        assert_eq!(
            into_request::<methods::Discover>(Default::default()).method(),
            "server/discover"
        );
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
}
