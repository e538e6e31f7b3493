//! The one-pass serde visitor that reads JSON-RPC objects without building a JSON tree.
//!
//! Every visitor here accepts any JSON shape and reports a wrong shape as a
//! value, never as a serde error. So a serde error can only mean that the
//! text is not JSON (-32700), while everything the visitors find wrong is an
//! invalid request (-32600) for which the rest of the object is still read,
//! so that the id can be recovered wherever it appears.
//!
//! Values that are not looked at are skipped with `IgnoredAny`, which
//! serde_json walks iteratively: no input nests our stack deeper than a
//! handful of frames.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use crate::classify::{ClassifyError, Inbound};
use crate::error::{ErrorCode, ErrorObject};
use crate::id::RequestId;
use crate::message::{ErrorResponse, Message, Notification, Packet, Request, Response};

/// Classifies one JSON text that is known to be UTF-8.
pub(crate) fn classify_str(text: &str) -> Inbound {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let top = match TopVisitor.deserialize(&mut deserializer) {
        Ok(top) => top,
        Err(error) => return Inbound::Invalid(parse_error(&error)),
    };
    if let Err(error) = deserializer.end() {
        return Inbound::Invalid(parse_error(&error));
    }
    match top {
        Top::Single(Ok(message)) => Inbound::Single(message),
        Top::Single(Err(error)) => Inbound::Invalid(error),
        Top::Batch(items) if items.is_empty() => Inbound::Invalid(ClassifyError::invalid_request(
            "a batch must not be empty",
            None,
        )),
        Top::Batch(items) => Inbound::Batch(items),
        Top::Other(kind) => Inbound::Invalid(ClassifyError::invalid_request(
            format!("expected a message object or a batch array, found {kind}"),
            None,
        )),
    }
}

fn parse_error(error: &serde_json::Error) -> ClassifyError {
    ClassifyError::parse_error(format!("invalid JSON: {error}"))
}

/// What the top level of a JSON text turned out to be.
enum Top {
    Single(Result<Message, ClassifyError>),
    Batch(Vec<Result<Message, ClassifyError>>),
    /// A scalar, described by its kind.
    Other(&'static str),
}

struct TopVisitor;

impl<'de> DeserializeSeed<'de> for TopVisitor {
    type Value = Top;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Top, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TopVisitor {
    type Value = Top;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message or batch")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Top, A::Error> {
        read_message(map).map(Top::Single)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Top, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(item) = seq.next_element_seed(ObjectOr(MessageReader))? {
            items.push(item.unwrap_or_else(|kind| {
                Err(ClassifyError::invalid_request(
                    format!("a batch element must be a message object, found {kind}"),
                    None,
                ))
            }));
        }
        Ok(Top::Batch(items))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Top, E> {
        Ok(Top::Other(Kind::NULL))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Top, E> {
        Ok(Top::Other(Kind::BOOLEAN))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Top, E> {
        Ok(Top::Other(Kind::NUMBER))
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Top, E> {
        Ok(Top::Other(Kind::NUMBER))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Top, E> {
        Ok(Top::Other(Kind::NUMBER))
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Top, E> {
        Ok(Top::Other(Kind::STRING))
    }
}

/// Names of JSON kinds, as they appear in error messages.
struct Kind;

impl Kind {
    const NULL: &'static str = "null";
    const BOOLEAN: &'static str = "a boolean";
    const NUMBER: &'static str = "a number";
    const STRING: &'static str = "a string";
    const ARRAY: &'static str = "an array";
    const OBJECT: &'static str = "an object";

    /// The kind of a raw JSON value, from its first byte.
    fn of_raw(raw: &RawValue) -> &'static str {
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

/// Reads the members of an object into some value.
trait ObjectReader<'de> {
    type Output;

    fn read<A: MapAccess<'de>>(self, map: A) -> Result<Self::Output, A::Error>;
}

/// Reads an object with `R`, or skips any other value and reports its kind.
struct ObjectOr<R>(R);

impl<'de, R: ObjectReader<'de>> DeserializeSeed<'de> for ObjectOr<R> {
    type Value = Result<R::Output, &'static str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, R: ObjectReader<'de>> Visitor<'de> for ObjectOr<R> {
    type Value = Result<R::Output, &'static str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        self.0.read(map).map(Ok)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        skip_seq(seq)?;
        Ok(Err(Kind::ARRAY))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Err(Kind::NULL))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Err(Kind::BOOLEAN))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Err(Kind::NUMBER))
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Err(Kind::NUMBER))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Err(Kind::NUMBER))
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Err(Kind::STRING))
    }
}

fn skip_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

fn skip_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

/// A scalar member read without committing to its type, so that a wrong
/// type can be reported instead of failing the parse.
enum Probe<'de> {
    Null,
    Bool,
    Integer(i64),
    /// A non-negative integer above `i64::MAX`.
    Huge,
    Float,
    Str(Cow<'de, str>),
    Array,
    Object,
}

impl Probe<'_> {
    fn kind(&self) -> &'static str {
        match self {
            Self::Null => Kind::NULL,
            Self::Bool => Kind::BOOLEAN,
            Self::Integer(_) | Self::Huge => Kind::NUMBER,
            // Said plainly, since "found a number" would puzzle where integers are welcome.
            Self::Float => "a number with a fraction or an exponent",
            Self::Str(_) => Kind::STRING,
            Self::Array => Kind::ARRAY,
            Self::Object => Kind::OBJECT,
        }
    }
}

impl<'de> Deserialize<'de> for Probe<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ProbeVisitor)
    }
}

struct ProbeVisitor;

impl<'de> Visitor<'de> for ProbeVisitor {
    type Value = Probe<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Probe<'de>, E> {
        Ok(Probe::Null)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Probe<'de>, E> {
        Ok(Probe::Bool)
    }

    fn visit_i64<E: de::Error>(self, number: i64) -> Result<Probe<'de>, E> {
        Ok(Probe::Integer(number))
    }

    fn visit_u64<E: de::Error>(self, number: u64) -> Result<Probe<'de>, E> {
        Ok(i64::try_from(number).map_or(Probe::Huge, Probe::Integer))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Probe<'de>, E> {
        Ok(Probe::Float)
    }

    fn visit_borrowed_str<E: de::Error>(self, string: &'de str) -> Result<Probe<'de>, E> {
        Ok(Probe::Str(Cow::Borrowed(string)))
    }

    fn visit_str<E: de::Error>(self, string: &str) -> Result<Probe<'de>, E> {
        Ok(Probe::Str(Cow::Owned(string.to_owned())))
    }

    fn visit_string<E: de::Error>(self, string: String) -> Result<Probe<'de>, E> {
        Ok(Probe::Str(Cow::Owned(string)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Probe<'de>, A::Error> {
        skip_seq(seq)?;
        Ok(Probe::Array)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Probe<'de>, A::Error> {
        skip_map(map)?;
        Ok(Probe::Object)
    }
}

/// The members of a message object that JSON-RPC defines.
#[derive(Clone, Copy)]
enum Member {
    Jsonrpc,
    Id,
    Method,
    Params,
    Result,
    Error,
    Other,
}

impl<'de> Deserialize<'de> for Member {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_identifier(MemberVisitor)
    }
}

struct MemberVisitor;

impl Visitor<'_> for MemberVisitor {
    type Value = Member;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Member, E> {
        Ok(match name {
            "jsonrpc" => Member::Jsonrpc,
            "id" => Member::Id,
            "method" => Member::Method,
            "params" => Member::Params,
            "result" => Member::Result,
            "error" => Member::Error,
            _ => Member::Other,
        })
    }
}

/// Reads a message object; see [`read_message`].
struct MessageReader;

impl<'de> ObjectReader<'de> for MessageReader {
    type Output = Result<Message, ClassifyError>;

    fn read<A: MapAccess<'de>>(self, map: A) -> Result<Self::Output, A::Error> {
        read_message(map)
    }
}

/// What was found in a message object, before deciding what it is.
#[derive(Default)]
struct Members<'de> {
    jsonrpc: Option<Probe<'de>>,
    id: Option<Probe<'de>>,
    method: Option<Probe<'de>>,
    params: Option<Box<RawValue>>,
    result: Option<Box<RawValue>>,
    error: Option<Result<ErrorObject, String>>,
    /// The first member that appeared twice.
    duplicate: Option<&'static str>,
}

/// Reads every member of a message object, then classifies it.
///
/// The outer error is a syntax error of the JSON text; the inner one is why
/// well-formed JSON is not a JSON-RPC message.
fn read_message<'de, A: MapAccess<'de>>(
    mut map: A,
) -> Result<Result<Message, ClassifyError>, A::Error> {
    let mut members = Members::default();
    let Members {
        jsonrpc,
        id,
        method,
        params,
        result,
        error,
        duplicate,
    } = &mut members;
    while let Some(member) = map.next_key::<Member>()? {
        match member {
            Member::Jsonrpc => read_once(&mut map, jsonrpc, "jsonrpc", duplicate)?,
            Member::Id => read_once(&mut map, id, "id", duplicate)?,
            Member::Method => read_once(&mut map, method, "method", duplicate)?,
            Member::Params => read_once(&mut map, params, "params", duplicate)?,
            Member::Result => read_once(&mut map, result, "result", duplicate)?,
            Member::Error if error.is_some() => {
                duplicate.get_or_insert("error");
                map.next_value::<IgnoredAny>()?;
            }
            Member::Error => {
                let found = map.next_value_seed(ObjectOr(ErrorObjectReader))?;
                *error = Some(found.unwrap_or_else(|kind| {
                    Err(format!("\"error\" must be an object, found {kind}"))
                }));
            }
            Member::Other => {
                map.next_value::<IgnoredAny>()?;
            }
        }
    }
    Ok(classify(members))
}

/// Reads a member's value into `slot`, or skips it and records a duplicate.
fn read_once<'de, A: MapAccess<'de>, T: Deserialize<'de>>(
    map: &mut A,
    slot: &mut Option<T>,
    name: &'static str,
    duplicate: &mut Option<&'static str>,
) -> Result<(), A::Error> {
    if slot.is_some() {
        duplicate.get_or_insert(name);
        map.next_value::<IgnoredAny>()?;
    } else {
        *slot = Some(map.next_value()?);
    }
    Ok(())
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
fn classify(members: Members<'_>) -> Result<Message, ClassifyError> {
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

/// The members of an `error` object that JSON-RPC defines.
enum ErrorMember {
    Code,
    Message,
    Data,
    Other,
}

impl<'de> Deserialize<'de> for ErrorMember {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_identifier(ErrorMemberVisitor)
    }
}

struct ErrorMemberVisitor;

impl Visitor<'_> for ErrorMemberVisitor {
    type Value = ErrorMember;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<ErrorMember, E> {
        Ok(match name {
            "code" => ErrorMember::Code,
            "message" => ErrorMember::Message,
            "data" => ErrorMember::Data,
            _ => ErrorMember::Other,
        })
    }
}

/// Reads the object of an `error` member.
struct ErrorObjectReader;

impl<'de> ObjectReader<'de> for ErrorObjectReader {
    type Output = Result<ErrorObject, String>;

    fn read<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Output, A::Error> {
        let mut code: Option<Probe<'de>> = None;
        let mut message: Option<Probe<'de>> = None;
        let mut data: Option<Box<RawValue>> = None;
        let mut duplicate = None;
        while let Some(member) = map.next_key::<ErrorMember>()? {
            match member {
                ErrorMember::Code => read_once(&mut map, &mut code, "code", &mut duplicate)?,
                ErrorMember::Message => {
                    read_once(&mut map, &mut message, "message", &mut duplicate)?;
                }
                ErrorMember::Data => read_once(&mut map, &mut data, "data", &mut duplicate)?,
                ErrorMember::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if let Some(name) = duplicate {
            return Ok(Err(format!("duplicate member \"{name}\" in \"error\"")));
        }
        let code = match code {
            Some(Probe::Integer(code)) => ErrorCode(code),
            Some(Probe::Huge) => {
                return Ok(Err(
                    "\"error.code\" is an integer beyond the 64-bit range".to_owned()
                ));
            }
            Some(other) => {
                return Ok(Err(format!(
                    "\"error.code\" must be an integer, found {}",
                    other.kind()
                )));
            }
            None => return Ok(Err("\"error\" must have a \"code\"".to_owned())),
        };
        let message = match message {
            Some(Probe::Str(message)) => message.into_owned(),
            Some(other) => {
                return Ok(Err(format!(
                    "\"error.message\" must be a string, found {}",
                    other.kind()
                )));
            }
            None => return Ok(Err("\"error\" must have a \"message\"".to_owned())),
        };
        Ok(Ok(ErrorObject {
            code,
            message,
            data,
        }))
    }
}

/// Reads an `error` object, refusing a malformed one.
///
/// `data` is read as [`RawValue`], which only serde_json's deserializers support.
impl<'de> Deserialize<'de> for ErrorObject {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match ObjectOr(ErrorObjectReader).deserialize(deserializer)? {
            Ok(Ok(error)) => Ok(error),
            Ok(Err(message)) => Err(de::Error::custom(message)),
            Err(kind) => Err(de::Error::custom(format!(
                "\"error\" must be an object, found {kind}"
            ))),
        }
    }
}

/// Reads one message, refusing anything that is not a well-formed message.
///
/// `params`, `result` and `error.data` are read as [`RawValue`], which only
/// serde_json's deserializers support.
impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match ObjectOr(MessageReader).deserialize(deserializer)? {
            Ok(Ok(message)) => Ok(message),
            Ok(Err(error)) => Err(de::Error::custom(error.message())),
            Err(kind) => Err(de::Error::custom(format!(
                "expected a message object, found {kind}"
            ))),
        }
    }
}

/// Reads a message or a non-empty batch, refusing anything malformed.
impl<'de> Deserialize<'de> for Packet {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let items = match TopVisitor.deserialize(deserializer)? {
            Top::Single(Ok(message)) => return Ok(Packet::Single(message)),
            Top::Single(Err(error)) => return Err(de::Error::custom(error.message())),
            Top::Other(kind) => {
                return Err(de::Error::custom(format!(
                    "expected a message object or a batch array, found {kind}"
                )));
            }
            Top::Batch(items) => items,
        };
        if items.is_empty() {
            return Err(de::Error::custom("a batch must not be empty"));
        }
        items
            .into_iter()
            .map(|item| item.map_err(|error| de::Error::custom(error.message())))
            .collect::<Result<Vec<_>, _>>()
            .map(Packet::Batch)
    }
}
