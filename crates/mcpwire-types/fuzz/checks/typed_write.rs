//! The property of the `typed_write` fuzz target, shared with the test that
//! replays its corpus (`tests/schema/fuzz_corpus.rs`).
//!
//! The JSON writer of `mcpwire-jsonrpc` against serde_json on every shape
//! the MCP model produces: the input, read by serde_json as a `Value`, is
//! decoded into each params, result, content and capability type that
//! accepts it (leniently, as a peer's message is), and each decoded value
//! is written by `to_json_vec` and by `serde_json::to_vec`: the bytes must
//! be the same. Each value fitted to every revision
//! (`ForRevision::fit_to`, what is really sent) is written the same way.
//! Reading the routing enums (`ClientRequest::decode`, ... for every method
//! of the method table) must not panic either.

use mcpwire_jsonrpc::{RawJson, to_json_vec};
use mcpwire_types::methods::{
    ClientNotification, ClientRequest, ClientResult, METHODS, ServerNotification, ServerRequest,
    ServerResult,
};
use mcpwire_types::tasks_extension::{CreatedTask, DetailedTask, TaskAck, UpdateTaskRequestParams};
use mcpwire_types::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Checks one input.
pub(crate) fn check(data: &[u8]) {
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    every_type(&value);
    let Ok(raw) = RawJson::from_serialize(&value) else {
        return;
    };
    for info in METHODS {
        let method = info.name;
        let _ = ClientRequest::decode(method, Some(&raw)).map(|r| r.encode_params());
        let _ = ServerRequest::decode(method, Some(&raw)).map(|r| r.encode_params());
        let _ = ClientNotification::decode(method, Some(&raw)).map(|n| n.encode_params());
        let _ = ServerNotification::decode(method, Some(&raw)).map(|n| n.encode_params());
        let _ = ClientResult::decode(method, &raw).map(|r| r.encode());
        let _ = ServerResult::decode(method, &raw).map(|r| r.encode());
    }
}

/// Both writers give the same bytes for `value`.
fn same_bytes<T: Serialize>(value: &T, type_name: &str) {
    let ours = to_json_vec(value).ok();
    let reference = serde_json::to_vec(value).ok();
    if ours != reference {
        let show = |bytes: &Option<Vec<u8>>| {
            bytes
                .as_ref()
                .map(|b| String::from_utf8_lossy(b).into_owned())
        };
        assert_eq!(
            show(&ours),
            show(&reference),
            "the writers disagree on a {type_name}"
        );
    }
}

fn one<T: Serialize + DeserializeOwned>(value: &Value, type_name: &str) {
    if let Ok(typed) = serde_json::from_value::<T>(value.clone()) {
        same_bytes(&typed, type_name);
    }
}

fn fitted<T: Serialize + DeserializeOwned + ForRevision + Clone>(value: &Value, type_name: &str) {
    if let Ok(typed) = serde_json::from_value::<T>(value.clone()) {
        same_bytes(&typed, type_name);
        for version in ProtocolVersion::ALL {
            let mut copy = typed.clone();
            copy.fit_to(version);
            same_bytes(&copy, type_name);
        }
    }
}

macro_rules! types {
    ($value:ident: $check:ident: $($name:ident)*) => {
        $( $check::<$name>($value, stringify!($name)); )*
    };
}

fn every_type(value: &Value) {
    types!(value: fitted:
        ClientCapabilities RootsCapability SamplingCapability ElicitationCapability
        ClientTasksCapability ServerCapabilities PromptsCapability ResourcesCapability
        ToolsCapability ServerTasksCapability Annotations Implementation CompleteRequestParams
        CompletionReference PromptReference ResourceTemplateReference CompleteResult Completion
        ContentBlock SamplingContent ElicitRequestFormParams ElicitRequestURLParams ElicitResult
        ElicitationCompleteNotificationParams RequestedSchema UnsupportedProtocolVersionData
        MissingRequiredClientCapabilityData URLElicitationRequiredData InitializeRequestParams
        InitializeResult DiscoverResult LoggingLevel SetLevelRequestParams
        LoggingMessageNotificationParams InputRequests InputResponses InputRequiredResult
        InputResponseRequestParams Prompt PromptArgument PromptMessage ListPromptsResult
        GetPromptRequestParams GetPromptResult Resource ResourceTemplate ListResourcesResult
        ListResourceTemplatesResult ResourceRequestParams ReadResourceRequestParams
        ReadResourceResult SubscribeRequestParams UnsubscribeRequestParams
        ResourceUpdatedNotificationParams RequestParams NotificationParams
        PaginatedRequestParams EmptyResult Root ListRootsResult CreateMessageRequestParams
        SamplingMessage ModelPreferences ModelHint ToolChoice CreateMessageResult
        SubscriptionFilter SubscriptionsListenRequestParams
        SubscriptionsAcknowledgedNotificationParams SubscriptionsListenResult Task TaskMetadata
        RelatedTaskMetadata TaskAugmentedRequestParams CreateTaskResult GetTaskPayloadResult
        ListTasksResult Tool ToolAnnotations ToolExecution CallToolRequestParams CallToolResult
        ListToolsResult CancelledNotificationParams ProgressNotificationParams
        ElicitRequestParams ResourceContents PrimitiveSchemaDefinition SamplingMessageContent
        InputRequest InputResponse
    );
    types!(value: one:
        ClientTaskRequests SamplingTaskRequests ElicitationTaskRequests ServerTaskRequests
        ToolsTaskRequests Role ProgressToken IconTheme Icon CompleteArgument CompleteContext
        TextContent MediaContent ResourceLink TextResourceContents BlobResourceContents
        EmbeddedResource ToolUseContent ToolResultContent ElicitAction ElicitValue NumberType
        StringSchema StringFormat NumberSchema BooleanSchema UntitledSingleSelectEnumSchema
        EnumOption TitledSingleSelectEnumSchema UntitledMultiSelectEnumSchema UntitledEnumItems
        TitledMultiSelectEnumSchema TitledEnumItems LegacyTitledEnumSchema Meta CacheScope
        IncludeContext ToolChoiceMode SubscriptionsListenResultMetaObject TaskStatus CreatedTask
        DetailedTask UpdateTaskRequestParams TaskAck TaskSupport
    );
}
