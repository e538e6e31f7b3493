//! The rules that decide, from the members found in an object, which JSON-RPC message it is or why it is none.

use crate::classify::ClassifyError;
use crate::error::ErrorObject;
use crate::id::RequestId;
use crate::message::{ErrorResponse, Message, Notification, Request, Response};
use crate::raw::RawJson;
use crate::syntax::Probe;

/// Names of JSON kinds, as they appear in error messages.
pub(crate) struct Kind;

impl Kind {
    pub(crate) const NULL: &'static str = "null";
    pub(crate) const BOOLEAN: &'static str = "a boolean";
    pub(crate) const NUMBER: &'static str = "a number";
    pub(crate) const STRING: &'static str = "a string";
    pub(crate) const ARRAY: &'static str = "an array";
    pub(crate) const OBJECT: &'static str = "an object";

    /// The kind of a raw JSON value, from its first byte.
    fn of_raw(raw: &RawJson) -> &'static str {
        match raw.get().as_bytes().first() {
            Some(b'{') => Self::OBJECT,
            Some(b'[') => Self::ARRAY,
            Some(b'"') => Self::STRING,
            Some(b't' | b'f') => Self::BOOLEAN,
            Some(b'n') => Self::NULL,
            _ => Self::NUMBER,
        }
    }
}

impl Probe<'_> {
    /// The kind, naming non-integers as such, for members that want integers.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            // Said plainly, since "found a number" would puzzle where integers are welcome.
            Self::Float => "a number with a fraction or an exponent",
            other => other.plain_kind(),
        }
    }

    /// The kind, with every number just "a number".
    pub(crate) fn plain_kind(&self) -> &'static str {
        match self {
            Self::Null => Kind::NULL,
            Self::Bool => Kind::BOOLEAN,
            Self::Integer(_) | Self::Huge | Self::Float => Kind::NUMBER,
            Self::Str(_) => Kind::STRING,
            Self::Array => Kind::ARRAY,
            Self::Object => Kind::OBJECT,
        }
    }
}

/// What was found in a message object, before deciding what it is.
#[derive(Default)]
pub(crate) struct Members<'a> {
    pub(crate) jsonrpc: Option<Probe<'a>>,
    pub(crate) id: Option<Probe<'a>>,
    pub(crate) method: Option<Probe<'a>>,
    pub(crate) params: Option<RawJson>,
    pub(crate) result: Option<RawJson>,
    pub(crate) error: Option<Result<ErrorObject, String>>,
    /// The first member that appeared twice.
    pub(crate) duplicate: Option<&'static str>,
}

/// An id as found: usable, null, or unusable (described).
enum FoundId {
    Valid(RequestId),
    Null,
    Invalid(String),
}

fn found_id(probe: Probe<'_>) -> FoundId {
    match probe {
        Probe::Integer(number) => FoundId::Valid(RequestId::Number(number)),
        Probe::Str(string) => FoundId::Valid(RequestId::String(string.into_owned())),
        Probe::Null => FoundId::Null,
        Probe::Huge => FoundId::Invalid("\"id\" is an integer beyond the 64-bit range".to_owned()),
        other => FoundId::Invalid(format!(
            "\"id\" must be a string or an integer, found {}",
            other.kind()
        )),
    }
}

/// An invalid request error naming the id, if the id was readable.
fn invalid(message: String, id: Option<&FoundId>) -> ClassifyError {
    let recovered = match id {
        Some(FoundId::Valid(id)) => Some(id.clone()),
        _ => None,
    };
    ClassifyError::invalid_request(message, recovered)
}

/// Decides what a message object is, or why it is none.
///
/// Checks run in a fixed order (duplicates, version, then the shape), so
/// that a message with several faults always reports the same one.
pub(crate) fn classify(members: Members<'_>) -> Result<Message, ClassifyError> {
    let answer_like =
        members.method.is_none() && (members.result.is_some() || members.error.is_some());
    classify_shape(members).map_err(|error| {
        if answer_like {
            error.answer_like()
        } else {
            error
        }
    })
}

fn classify_shape(members: Members<'_>) -> Result<Message, ClassifyError> {
    let id = members.id.map(found_id);
    let fail = |message: String| Err(invalid(message, id.as_ref()));

    if let Some(name) = members.duplicate {
        return fail(format!("duplicate member \"{name}\""));
    }
    match members.jsonrpc {
        Some(Probe::Str(version)) if version == "2.0" => {}
        Some(Probe::Str(version)) => {
            return fail(format!("\"jsonrpc\" must be \"2.0\", found {version:?}"));
        }
        Some(other) => {
            return fail(format!(
                "\"jsonrpc\" must be \"2.0\", found {}",
                other.kind()
            ));
        }
        None => return fail("missing member \"jsonrpc\"".to_owned()),
    }

    if let Some(method) = members.method {
        let answer_member = match (&members.result, &members.error) {
            (Some(_), _) => Some("result"),
            (None, Some(_)) => Some("error"),
            (None, None) => None,
        };
        if let Some(other) = answer_member {
            return fail(format!(
                "a message cannot have both \"method\" and \"{other}\""
            ));
        }
        let Probe::Str(method) = method else {
            return fail(format!(
                "\"method\" must be a string, found {}",
                method.kind()
            ));
        };
        if let Some(params) = &members.params {
            let kind = Kind::of_raw(params);
            if kind != Kind::OBJECT && kind != Kind::ARRAY {
                return fail(format!(
                    "\"params\" must be an object or an array, found {kind}"
                ));
            }
        }
        let method = method.into_owned();
        let params = members.params;
        // From here on no arm has a readable id to recover.
        return match id {
            None => Ok(Message::Notification(Notification { method, params })),
            Some(FoundId::Valid(id)) => Ok(Message::Request(Request { id, method, params })),
            Some(FoundId::Null) => Err(invalid(
                "a request \"id\" must not be null".to_owned(),
                None,
            )),
            Some(FoundId::Invalid(message)) => Err(invalid(message, None)),
        };
    }

    match (members.result, members.error) {
        (Some(_), Some(_)) => {
            fail("a response cannot have both \"result\" and \"error\"".to_owned())
        }
        (Some(result), None) => match id {
            Some(FoundId::Valid(id)) => Ok(Message::Response(Response { id, result })),
            Some(FoundId::Null) => Err(invalid(
                "a success response \"id\" must not be null".to_owned(),
                None,
            )),
            Some(FoundId::Invalid(message)) => Err(invalid(message, None)),
            None => Err(invalid(
                "a success response must have an \"id\"".to_owned(),
                None,
            )),
        },
        (None, Some(Err(message))) => fail(message),
        (None, Some(Ok(error))) => match id {
            Some(FoundId::Valid(id)) => Ok(Message::Error(ErrorResponse {
                id: Some(id),
                error,
            })),
            // An error response names no id when the request's was unreadable.
            Some(FoundId::Null) | None => Ok(Message::Error(ErrorResponse { id: None, error })),
            Some(FoundId::Invalid(message)) => Err(invalid(message, None)),
        },
        (None, None) => fail(
            "not a request, notification or response: no \"method\", \"result\" or \"error\""
                .to_owned(),
        ),
    }
}

/// What the members of an `error` object make of it: the error, or why it
/// is malformed.
pub(crate) fn error_object(
    code: Option<Probe<'_>>,
    message: Option<Probe<'_>>,
    data: Option<RawJson>,
    duplicate: Option<&'static str>,
) -> Result<ErrorObject, String> {
    if let Some(name) = duplicate {
        return Err(format!("duplicate member \"{name}\" in \"error\""));
    }
    let code = match code {
        Some(Probe::Integer(code)) => crate::error::ErrorCode(code),
        Some(Probe::Huge) => {
            return Err("\"error.code\" is an integer beyond the 64-bit range".to_owned());
        }
        Some(other) => {
            return Err(format!(
                "\"error.code\" must be an integer, found {}",
                other.kind()
            ));
        }
        None => return Err("\"error\" must have a \"code\"".to_owned()),
    };
    let message = match message {
        Some(Probe::Str(message)) => message.into_owned(),
        Some(other) => {
            return Err(format!(
                "\"error.message\" must be a string, found {}",
                other.kind()
            ));
        }
        None => return Err("\"error\" must have a \"message\"".to_owned()),
    };
    Ok(ErrorObject {
        code,
        message,
        data,
    })
}
