//! The generated method table, markers and routing enums: lookups, revision
//! ranges, and decoding by method with the two distinct failure kinds.

use mcpwire_jsonrpc::{ErrorCode, RawJson};
use mcpwire_types::methods::{
    CallTool, ClientNotification, ClientRequest, ClientResult, DecodeError, Direction, ListTools,
    METHODS, MethodKind, Notification, Progress, Request, ServerRequest, ServerResult, method_info,
};
use mcpwire_types::{
    CallToolRequestParams, CallToolResult, PaginatedRequestParams, ProtocolVersion,
};

fn raw(json: &str) -> RawJson {
    RawJson::from_string(json.to_owned()).unwrap()
}

#[test]
fn method_table_is_sorted_unique_and_every_name_is_found() {
    assert!(METHODS.windows(2).all(|pair| pair[0].name < pair[1].name));
    for info in METHODS {
        assert_eq!(method_info(info.name), Some(info));
        assert!(info.first <= info.last, "{}", info.name);
        assert_eq!(
            info.kind == MethodKind::Request,
            info.result_type.is_some(),
            "{}",
            info.name
        );
    }
    assert_eq!(method_info("tools/unknown"), None);
}

#[test]
fn revision_ranges_follow_the_schemas() {
    let v = |name: &str| method_info(name).unwrap();
    assert!(v("ping").in_revision(ProtocolVersion::V2025_11_25));
    assert!(!v("ping").in_revision(ProtocolVersion::V2026_07_28));
    assert!(v("server/discover").in_revision(ProtocolVersion::V2026_07_28));
    assert!(!v("server/discover").in_revision(ProtocolVersion::V2025_11_25));
    assert!(!v("elicitation/create").in_revision(ProtocolVersion::V2025_03_26));
    assert!(v("tasks/get").in_revision(ProtocolVersion::V2025_11_25));
    assert!(!v("tasks/get").in_revision(ProtocolVersion::V2026_07_28));
    let sampling = v("sampling/createMessage");
    assert!(!sampling.in_revision(ProtocolVersion::V2026_07_28));
    assert!(sampling.is_input_request_in(ProtocolVersion::V2026_07_28));
    assert!(!sampling.is_input_request_in(ProtocolVersion::V2025_11_25));
    assert!(v("tools/call").may_require_input_in(ProtocolVersion::V2026_07_28));
    assert!(!v("tools/list").may_require_input_in(ProtocolVersion::V2026_07_28));
    assert_eq!(v("ping").direction, Direction::Both);
    assert_eq!(v("tools/call").direction, Direction::ClientToServer);
    assert_eq!(v("roots/list").direction, Direction::ServerToClient);
}

#[test]
fn markers_name_the_method_and_its_types() {
    fn method_of<R: Request>() -> &'static str {
        R::METHOD
    }
    fn params_of<R: Request>(params: R::Params) -> R::Params {
        params
    }
    assert_eq!(method_of::<CallTool>(), "tools/call");
    assert_eq!(<Progress as Notification>::METHOD, "notifications/progress");
    let params: CallToolRequestParams =
        serde_json::from_str(r#"{"name": "echo", "arguments": {"x": 1}}"#).unwrap();
    assert_eq!(params_of::<CallTool>(params.clone()), params);
    let _: Option<<CallTool as Request>::Result> = None::<CallToolResult>;
    let _: Option<<ListTools as Request>::Params> = None::<PaginatedRequestParams>;
}

#[test]
fn decoding_matches_the_method_and_reports_its_name_back() {
    let params = raw(r#"{"name": "echo"}"#);
    let request = ClientRequest::decode("tools/call", Some(&params)).unwrap();
    assert!(matches!(&request, ClientRequest::CallTool(p) if p.name == "echo"));
    assert_eq!(request.method(), "tools/call");
    let encoded = request.encode_params().unwrap();
    let value: serde_json::Value = serde_json::from_str(encoded.get()).unwrap();
    assert_eq!(value["name"], "echo");
}

#[test]
fn unknown_methods_and_the_other_sides_methods_are_method_not_found() {
    for (method, error) in [
        (
            "tools/unknown",
            ClientRequest::decode("tools/unknown", None).unwrap_err(),
        ),
        (
            "sampling/createMessage",
            ClientRequest::decode("sampling/createMessage", None).unwrap_err(),
        ),
        (
            "tools/call",
            ServerRequest::decode("tools/call", None).unwrap_err(),
        ),
        (
            "notifications/message",
            ClientNotification::decode("notifications/message", None).unwrap_err(),
        ),
    ] {
        assert!(
            matches!(&error, DecodeError::UnknownMethod(name) if name == method),
            "{error}"
        );
        assert_eq!(error.code(), Some(ErrorCode::METHOD_NOT_FOUND));
    }
}

#[test]
fn absent_params_read_as_an_empty_object() {
    let request = ClientRequest::decode("tools/list", None).unwrap();
    assert_eq!(request, ClientRequest::ListTools(Box::default()));
    let error = ClientRequest::decode("tools/call", None).unwrap_err();
    assert!(matches!(
        error,
        DecodeError::InvalidParams {
            method: "tools/call",
            ..
        }
    ));
    assert_eq!(error.code(), Some(ErrorCode::INVALID_PARAMS));
    assert!(
        error.to_string().contains("missing field `name`"),
        "{error}"
    );
}

#[test]
fn params_of_the_wrong_shape_are_invalid_params_naming_the_method() {
    let params = raw(r#"{"name": 42}"#);
    let error = ClientRequest::decode("tools/call", Some(&params)).unwrap_err();
    assert!(
        matches!(
            error,
            DecodeError::InvalidParams {
                method: "tools/call",
                ..
            }
        ),
        "{error}"
    );
    let params = raw("[1, 2]");
    let error = ClientRequest::decode("resources/read", Some(&params)).unwrap_err();
    assert_eq!(error.code(), Some(ErrorCode::INVALID_PARAMS));
}

#[test]
fn results_decode_by_method_and_input_required_is_recognized() {
    let empty = raw("{}");
    assert!(matches!(
        ServerResult::decode("ping", &empty).unwrap(),
        ServerResult::Ping(_)
    ));
    assert!(matches!(
        ClientResult::decode("ping", &empty).unwrap(),
        ClientResult::Ping(_)
    ));
    let input_required = raw(r#"{"resultType": "input_required", "requestState": "abc"}"#);
    let decoded = ServerResult::decode("tools/call", &input_required).unwrap();
    assert!(
        matches!(decoded, ServerResult::InputRequired(_)),
        "{decoded:?}"
    );
    let complete = raw(r#"{"resultType": "complete", "content": []}"#);
    assert!(matches!(
        ServerResult::decode("tools/call", &complete).unwrap(),
        ServerResult::CallTool(_)
    ));
    let error = ServerResult::decode("tools/call", &empty).unwrap_err();
    assert!(
        matches!(
            error,
            DecodeError::InvalidResult {
                method: "tools/call",
                ..
            }
        ),
        "{error}"
    );
    assert_eq!(error.code(), None);
    assert!(matches!(
        ServerResult::decode("roots/list", &empty),
        Err(DecodeError::UnknownMethod(_))
    ));
}
