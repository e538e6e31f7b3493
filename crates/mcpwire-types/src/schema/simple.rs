//! A small built-in validator for the simple schemas most tools declare (an object of typed
//! properties with `required`, enums, arrays of typed items, bounds), used instead of the
//! jsonschema crate when a schema uses nothing else.
//!
//! Compiling even a trivial schema with jsonschema builds and validates it against its dialect's
//! meta-schema: tens of millions of instructions and megabytes of heap that a small server never
//! returns to the operating system. [`SimpleSchema::recognize`] accepts a schema only when every
//! keyword in it is one listed here, with a value its meta-schema allows, so that the schema is
//! known to be valid without the meta-schema; anything else (references, combinators, patterns,
//! unknown keywords, a malformed value) is left to jsonschema, which then also reports the
//! schema's errors. Validation reproduces jsonschema 0.30's results exactly: the same verdict and
//! the same violations, in the same order, with the same instance paths and messages, including
//! its quirks (a single `"type": "integer"` accepts `1.0`, a list of types with `"integer"` does
//! not; `additionalProperties: false` beside `properties` reports every unexpected property in one
//! violation, after the violations of the known ones). `tests/schema_differential.rs` holds the
//! two to that on generated schemas and instances.

use core::cmp::Ordering;
use core::fmt::Write as _;

use serde_json::{Number, Value};

use super::{Dialect, InstanceError, MAX_REPORTED_ERRORS};

/// A schema the built-in validator handles, compiled.
#[derive(Debug)]
pub(super) struct SimpleSchema {
    root: Node,
}

/// One (sub)schema.
#[derive(Debug)]
enum Node {
    /// `true`, or an object with annotations only.
    Anything,
    /// `false`: every value is refused.
    Nothing,
    /// The checks of an object schema, in the order of its keywords.
    Checks(Vec<Check>),
}

/// One validating keyword (or, for the `properties`/`additionalProperties` pair, the two together,
/// as jsonschema compiles them).
#[derive(Debug)]
enum Check {
    /// `type` with one name.
    Type(Kind),
    /// `type` with several names (a bit set of [`Kind`]s).
    Types(u8),
    /// `properties` without a restricting `additionalProperties`.
    Properties(Vec<(String, Node)>),
    /// `additionalProperties` without `properties`: every member's value against it.
    Additional(Box<Node>),
    /// `additionalProperties: false` without `properties`: no member at all.
    NoMembers,
    /// `properties` (sorted by name) with `additionalProperties: false`.
    Closed(Vec<(String, Node)>),
    /// `properties` (sorted by name) with an `additionalProperties` schema for the other members.
    PropertiesAndAdditional(Vec<(String, Node)>, Box<Node>),
    /// `required`.
    Required(Vec<String>),
    /// `enum` of strings, booleans and nulls (compared exactly); the original array for the message.
    Enum(Vec<Value>, Value),
    /// `const` of a string, a boolean or null.
    Const(Value),
    /// `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`.
    Bound(Bound, Number),
    /// `minLength` ... `maxProperties`.
    Count(Count, u64),
    /// `items` as one schema for every element.
    Items(Box<Node>),
}

/// The JSON types of `type`, valued as the bits of jsonschema's type set, whose order is the
/// order in which a list of types is named in a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Array = 1,
    Boolean = 2,
    Integer = 4,
    Null = 8,
    Number = 16,
    Object = 32,
    String = 64,
}

impl Kind {
    const ALL: [Self; 7] = [
        Self::Array,
        Self::Boolean,
        Self::Integer,
        Self::Null,
        Self::Number,
        Self::Object,
        Self::String,
    ];

    fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "array" => Self::Array,
            "boolean" => Self::Boolean,
            "integer" => Self::Integer,
            "null" => Self::Null,
            "number" => Self::Number,
            "object" => Self::Object,
            "string" => Self::String,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Self::Array => "array",
            Self::Boolean => "boolean",
            Self::Integer => "integer",
            Self::Null => "null",
            Self::Number => "number",
            Self::Object => "object",
            Self::String => "string",
        }
    }

    /// Whether `value` has this single type: an integer is any number without a fraction.
    fn admits(self, value: &Value) -> bool {
        match (self, value) {
            (Self::Array, Value::Array(_))
            | (Self::Boolean, Value::Bool(_))
            | (Self::Null, Value::Null)
            | (Self::Number, Value::Number(_))
            | (Self::Object, Value::Object(_))
            | (Self::String, Value::String(_)) => true,
            (Self::Integer, Value::Number(number)) => {
                number.is_u64()
                    || number.is_i64()
                    || number.as_f64().is_some_and(|float| float.fract() == 0.0)
            }
            _ => false,
        }
    }
}

/// Whether `value` has one of the types of the set `kinds`: here a number written with a
/// fraction or exponent is only a `"number"`, as in jsonschema's type sets.
fn set_admits(kinds: u8, value: &Value) -> bool {
    let has = |kind: Kind| kinds & kind as u8 != 0;
    match value {
        Value::Array(_) => has(Kind::Array),
        Value::Bool(_) => has(Kind::Boolean),
        Value::Null => has(Kind::Null),
        Value::Number(number) if number.is_u64() || number.is_i64() => {
            has(Kind::Integer) || has(Kind::Number)
        }
        Value::Number(_) => has(Kind::Number),
        Value::Object(_) => has(Kind::Object),
        Value::String(_) => has(Kind::String),
    }
}

#[derive(Debug, Clone, Copy)]
enum Bound {
    Minimum,
    Maximum,
    ExclusiveMinimum,
    ExclusiveMaximum,
}

impl Bound {
    fn admits(self, value: &Number, limit: &Number) -> bool {
        let ordering = compare(value, limit);
        match self {
            Self::Minimum => ordering != Ordering::Less,
            Self::Maximum => ordering != Ordering::Greater,
            Self::ExclusiveMinimum => ordering == Ordering::Greater,
            Self::ExclusiveMaximum => ordering == Ordering::Less,
        }
    }

    fn phrase(self) -> &'static str {
        match self {
            Self::Minimum => "is less than the minimum of",
            Self::Maximum => "is greater than the maximum of",
            Self::ExclusiveMinimum => "is less than or equal to the minimum of",
            Self::ExclusiveMaximum => "is greater than or equal to the maximum of",
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Count {
    MinLength,
    MaxLength,
    MinItems,
    MaxItems,
    MinProperties,
    MaxProperties,
}

impl Count {
    /// The size this count limits, when `value` is of the type it applies to.
    fn size(self, value: &Value) -> Option<u64> {
        let size = match (self, value) {
            (Self::MinLength | Self::MaxLength, Value::String(text)) => text.chars().count(),
            (Self::MinItems | Self::MaxItems, Value::Array(items)) => items.len(),
            (Self::MinProperties | Self::MaxProperties, Value::Object(members)) => members.len(),
            _ => return None,
        };
        Some(u64::try_from(size).unwrap_or(u64::MAX))
    }

    fn is_lower(self) -> bool {
        matches!(self, Self::MinLength | Self::MinItems | Self::MinProperties)
    }

    fn message(self, instance: &Value, limit: u64) -> String {
        let one = limit == 1;
        let (relation, unit) = match self {
            Self::MinLength => (
                "is shorter than",
                if one { "character" } else { "characters" },
            ),
            Self::MaxLength => (
                "is longer than",
                if one { "character" } else { "characters" },
            ),
            Self::MinItems => ("has less than", if one { "item" } else { "items" }),
            Self::MaxItems => ("has more than", if one { "item" } else { "items" }),
            Self::MinProperties => ("has less than", if one { "property" } else { "properties" }),
            Self::MaxProperties => ("has more than", if one { "property" } else { "properties" }),
        };
        format!("{instance} {relation} {limit} {unit}")
    }
}

/// Compares two JSON numbers exactly, whatever mix of unsigned, signed and floating-point
/// representations they have (JSON numbers are never NaN).
fn compare(left: &Number, right: &Number) -> Ordering {
    match (integer_of(left), integer_of(right)) {
        (Some(a), Some(b)) => a.cmp(&b),
        (Some(a), None) => compare_integer_float(a, right.as_f64().unwrap_or(0.0)),
        (None, Some(b)) => compare_integer_float(b, left.as_f64().unwrap_or(0.0)).reverse(),
        (None, None) => {
            let (a, b) = (left.as_f64().unwrap_or(0.0), right.as_f64().unwrap_or(0.0));
            a.partial_cmp(&b).unwrap_or(Ordering::Equal)
        }
    }
}

fn integer_of(number: &Number) -> Option<i128> {
    number
        .as_u64()
        .map(i128::from)
        .or_else(|| number.as_i64().map(i128::from))
}

/// Compares an integer (within the range of `u64` and `i64`) with a float exactly.
fn compare_integer_float(integer: i128, float: f64) -> Ordering {
    // Every integer here lies strictly between -2^64 and 2^64, and floats of that range have
    // an exact integer part that fits in an i128.
    const TWO_TO_64: f64 = 18_446_744_073_709_551_616.0;
    if float >= TWO_TO_64 {
        return Ordering::Less;
    }
    if float <= -TWO_TO_64 {
        return Ordering::Greater;
    }
    let whole = float.trunc();
    // Exact: `whole` is an integer of magnitude below 2^64.
    #[allow(clippy::cast_possible_truncation)]
    let whole_integer = whole as i128;
    match integer.cmp(&whole_integer) {
        Ordering::Equal => 0.0_f64
            .partial_cmp(&(float - whole))
            .unwrap_or(Ordering::Equal),
        unequal => unequal,
    }
}

impl SimpleSchema {
    /// The compiled schema when `schema` uses only what this validator handles, under `dialect`
    /// (2020-12, 2019-09 or draft-07); `None` otherwise, for the jsonschema crate to compile.
    pub(super) fn recognize(schema: &Value, dialect: Dialect) -> Option<Self> {
        if !matches!(
            dialect,
            Dialect::Draft202012 | Dialect::Draft201909 | Dialect::Draft07
        ) {
            return None;
        }
        Some(Self {
            root: node(schema, dialect, true)?,
        })
    }

    /// Whether `instance` satisfies the schema.
    pub(super) fn is_valid(&self, instance: &Value) -> bool {
        self.root.is_valid(instance)
    }

    /// The violations of `instance` (at most [`MAX_REPORTED_ERRORS`]) and how many more there were.
    pub(super) fn errors(&self, instance: &Value) -> (Vec<InstanceError>, usize) {
        let mut report = Report {
            path: String::new(),
            errors: Vec::new(),
            omitted: 0,
        };
        self.root.report(instance, &mut report);
        (report.errors, report.omitted)
    }
}

/// Compiles one (sub)schema; `None` when it uses anything outside the subset.
fn node(schema: &Value, dialect: Dialect, is_root: bool) -> Option<Node> {
    let map = match schema {
        Value::Bool(true) => return Some(Node::Anything),
        Value::Bool(false) => return Some(Node::Nothing),
        Value::Object(map) => map,
        _ => return None,
    };
    let modern = dialect != Dialect::Draft07;
    let mut checks = Vec::new();
    for (keyword, value) in map {
        let check = match keyword.as_str() {
            // The dialect was read from it already; only the root may name one.
            "$schema" if is_root && value.is_string() => None,
            "title" | "description" | "$comment" if value.is_string() => None,
            "readOnly" | "writeOnly" if value.is_boolean() => None,
            "deprecated" if modern && value.is_boolean() => None,
            "examples" if value.is_array() => None,
            "default" => None,
            // Extension annotations such as MCP's own `x-mcp-header` (2026-07-28): unknown
            // keywords, which jsonschema ignores in every dialect; a string value cannot hold
            // a subschema, an `$id` or an anchor.
            extension if extension.starts_with("x-") && value.is_string() => None,
            // An annotation from 2019-09 on (jsonschema checks formats by default in draft-07).
            "format" if modern && value.is_string() => None,
            "type" => Some(type_check(value)?),
            "properties" => {
                let properties = properties(value, dialect)?;
                match map.get("additionalProperties") {
                    // Compiled with `additionalProperties`, where it stands.
                    Some(Value::Bool(false) | Value::Object(_)) => None,
                    _ => Some(Check::Properties(properties)),
                }
            }
            "additionalProperties" => additional(value, map.get("properties"), dialect)?,
            "required" => Some(Check::Required(required(value)?)),
            "enum" => match value {
                Value::Array(items) if !items.is_empty() && items.iter().all(is_plain) => {
                    Some(Check::Enum(items.clone(), value.clone()))
                }
                _ => return None,
            },
            "const" if is_plain(value) => Some(Check::Const(value.clone())),
            "minimum" => Some(Check::Bound(Bound::Minimum, number(value)?)),
            "maximum" => Some(Check::Bound(Bound::Maximum, number(value)?)),
            "exclusiveMinimum" => Some(Check::Bound(Bound::ExclusiveMinimum, number(value)?)),
            "exclusiveMaximum" => Some(Check::Bound(Bound::ExclusiveMaximum, number(value)?)),
            "minLength" => Some(Check::Count(Count::MinLength, value.as_u64()?)),
            "maxLength" => Some(Check::Count(Count::MaxLength, value.as_u64()?)),
            "minItems" => Some(Check::Count(Count::MinItems, value.as_u64()?)),
            "maxItems" => Some(Check::Count(Count::MaxItems, value.as_u64()?)),
            "minProperties" => Some(Check::Count(Count::MinProperties, value.as_u64()?)),
            "maxProperties" => Some(Check::Count(Count::MaxProperties, value.as_u64()?)),
            "items" => match value {
                Value::Bool(true) => None,
                Value::Bool(false) | Value::Object(_) => {
                    Some(Check::Items(Box::new(node(value, dialect, false)?)))
                }
                _ => return None,
            },
            _ => return None,
        };
        checks.extend(check);
    }
    Some(if checks.is_empty() {
        Node::Anything
    } else {
        Node::Checks(checks)
    })
}

/// A string, boolean or null: compared exactly by jsonschema too (numbers are not, and
/// containers compare numbers inside).
fn is_plain(value: &Value) -> bool {
    matches!(value, Value::String(_) | Value::Bool(_) | Value::Null)
}

fn number(value: &Value) -> Option<Number> {
    match value {
        Value::Number(number) => Some(number.clone()),
        _ => None,
    }
}

fn type_check(value: &Value) -> Option<Check> {
    match value {
        Value::String(name) => Some(Check::Type(Kind::from_name(name)?)),
        Value::Array(names) => {
            let mut kinds = 0_u8;
            for name in names {
                let kind = Kind::from_name(name.as_str()?)?;
                // The meta-schema wants the names unique.
                if kinds & kind as u8 != 0 {
                    return None;
                }
                kinds |= kind as u8;
            }
            match names.len() {
                0 => None,
                1 => Kind::ALL
                    .into_iter()
                    .find(|kind| kinds == *kind as u8)
                    .map(Check::Type),
                _ => Some(Check::Types(kinds)),
            }
        }
        _ => None,
    }
}

fn properties(value: &Value, dialect: Dialect) -> Option<Vec<(String, Node)>> {
    let Value::Object(members) = value else {
        return None;
    };
    members
        .iter()
        .map(|(name, schema)| Some((name.clone(), node(schema, dialect, false)?)))
        .collect()
}

/// `additionalProperties`, compiled together with `properties` when both are there; `Some(None)`
/// when it checks nothing.
fn additional(
    value: &Value,
    properties_value: Option<&Value>,
    dialect: Dialect,
) -> Option<Option<Check>> {
    // Sorted, to be searched by name for each member of an instance (which members come in the
    // instance's order, so the schema's order does not show).
    let known = match properties_value {
        Some(value) => {
            let mut known = properties(value, dialect)?;
            known.sort_unstable_by(|(a, _), (b, _)| a.cmp(b));
            Some(known)
        }
        None => None,
    };
    Some(match (value, known) {
        (Value::Bool(true), _) => None,
        (Value::Bool(false), None) => Some(Check::NoMembers),
        (Value::Bool(false), Some(known)) => Some(Check::Closed(known)),
        (Value::Object(_), None) => Some(Check::Additional(Box::new(node(value, dialect, false)?))),
        (Value::Object(_), Some(known)) => Some(Check::PropertiesAndAdditional(
            known,
            Box::new(node(value, dialect, false)?),
        )),
        _ => return None,
    })
}

fn required(value: &Value) -> Option<Vec<String>> {
    let Value::Array(names) = value else {
        return None;
    };
    let mut required: Vec<String> = Vec::with_capacity(names.len());
    for name in names {
        let name = name.as_str()?;
        // The meta-schema wants the names unique.
        if required.iter().any(|seen| seen == name) {
            return None;
        }
        required.push(name.to_owned());
    }
    Some(required)
}

fn property_schema<'a>(sorted: &'a [(String, Node)], name: &str) -> Option<&'a Node> {
    sorted
        .binary_search_by(|(known, _)| known.as_str().cmp(name))
        .ok()
        .and_then(|at| sorted.get(at))
        .map(|(_, node)| node)
}

/// Where violations are collected while walking an instance.
struct Report {
    /// The JSON Pointer of the value being checked.
    path: String,
    errors: Vec<InstanceError>,
    omitted: usize,
}

impl Report {
    fn push(&mut self, message: String) {
        if self.errors.len() < MAX_REPORTED_ERRORS {
            self.errors.push(InstanceError {
                instance_path: self.path.clone(),
                message,
            });
        } else {
            self.omitted += 1;
        }
    }

    /// Checks `value`, a member or element of the current value, at `segment` below it.
    fn below(&mut self, segment: Segment<'_>, node: &Node, value: &Value) {
        let length = self.path.len();
        self.path.push('/');
        match segment {
            Segment::Name(name) => {
                for character in name.chars() {
                    match character {
                        '~' => self.path.push_str("~0"),
                        '/' => self.path.push_str("~1"),
                        other => self.path.push(other),
                    }
                }
            }
            Segment::Index(index) => {
                let _ = write!(self.path, "{index}");
            }
        }
        node.report(value, self);
        self.path.truncate(length);
    }
}

#[derive(Clone, Copy)]
enum Segment<'a> {
    Name(&'a str),
    Index(usize),
}

impl Node {
    fn is_valid(&self, instance: &Value) -> bool {
        match self {
            Self::Anything => true,
            Self::Nothing => false,
            Self::Checks(checks) => checks.iter().all(|check| check.is_valid(instance)),
        }
    }

    fn report(&self, instance: &Value, report: &mut Report) {
        match self {
            Self::Anything => {}
            Self::Nothing => report.push(format!("False schema does not allow {instance}")),
            Self::Checks(checks) => {
                for check in checks {
                    check.report(instance, report);
                }
            }
        }
    }
}

impl Check {
    fn is_valid(&self, instance: &Value) -> bool {
        match self {
            Self::Type(kind) => kind.admits(instance),
            Self::Types(kinds) => set_admits(*kinds, instance),
            Self::Properties(properties) => match instance {
                Value::Object(members) => properties
                    .iter()
                    .all(|(name, node)| members.get(name).is_none_or(|value| node.is_valid(value))),
                _ => true,
            },
            Self::Additional(node) => match instance {
                Value::Object(members) => members.values().all(|value| node.is_valid(value)),
                _ => true,
            },
            Self::NoMembers => match instance {
                Value::Object(members) => members.is_empty(),
                _ => true,
            },
            Self::Closed(properties) => match instance {
                Value::Object(members) => members.iter().all(|(name, value)| {
                    property_schema(properties, name).is_some_and(|node| node.is_valid(value))
                }),
                _ => true,
            },
            Self::PropertiesAndAdditional(properties, other) => match instance {
                Value::Object(members) => members.iter().all(|(name, value)| {
                    property_schema(properties, name)
                        .unwrap_or(other)
                        .is_valid(value)
                }),
                _ => true,
            },
            Self::Required(names) => match instance {
                Value::Object(members) => names.iter().all(|name| members.contains_key(name)),
                _ => true,
            },
            Self::Enum(items, _) => items.contains(instance),
            Self::Const(expected) => expected == instance,
            Self::Bound(bound, limit) => match instance {
                Value::Number(number) => bound.admits(number, limit),
                _ => true,
            },
            Self::Count(count, limit) => match count.size(instance) {
                Some(size) if count.is_lower() => size >= *limit,
                Some(size) => size <= *limit,
                None => true,
            },
            Self::Items(node) => match instance {
                Value::Array(items) => items.iter().all(|item| node.is_valid(item)),
                _ => true,
            },
        }
    }

    fn report(&self, instance: &Value, report: &mut Report) {
        match self {
            Self::Type(kind) => {
                if !kind.admits(instance) {
                    report.push(format!("{instance} is not of type \"{}\"", kind.name()));
                }
            }
            Self::Types(kinds) => {
                if !set_admits(*kinds, instance) {
                    let names: Vec<String> = Kind::ALL
                        .into_iter()
                        .filter(|kind| kinds & *kind as u8 != 0)
                        .map(|kind| format!("\"{}\"", kind.name()))
                        .collect();
                    report.push(format!("{instance} is not of types {}", names.join(", ")));
                }
            }
            Self::Properties(properties) => {
                if let Value::Object(members) = instance {
                    for (name, node) in properties {
                        if let Some(value) = members.get(name) {
                            report.below(Segment::Name(name), node, value);
                        }
                    }
                }
            }
            Self::Additional(node) => {
                if let Value::Object(members) = instance {
                    for (name, value) in members {
                        report.below(Segment::Name(name), node, value);
                    }
                }
            }
            Self::NoMembers => {
                if let Value::Object(members) = instance
                    && let Some(value) = members.values().next()
                {
                    report.push(format!("False schema does not allow {value}"));
                }
            }
            Self::Closed(properties) => {
                if let Value::Object(members) = instance {
                    let mut unexpected = Vec::new();
                    for (name, value) in members {
                        match property_schema(properties, name) {
                            Some(node) => report.below(Segment::Name(name), node, value),
                            None => unexpected.push(format!("'{name}'")),
                        }
                    }
                    if !unexpected.is_empty() {
                        let verb = if unexpected.len() == 1 { "was" } else { "were" };
                        report.push(format!(
                            "Additional properties are not allowed ({} {verb} unexpected)",
                            unexpected.join(", ")
                        ));
                    }
                }
            }
            Self::PropertiesAndAdditional(properties, other) => {
                if let Value::Object(members) = instance {
                    for (name, value) in members {
                        let node = property_schema(properties, name).unwrap_or(other);
                        report.below(Segment::Name(name), node, value);
                    }
                }
            }
            Self::Required(names) => {
                if let Value::Object(members) = instance {
                    for name in names {
                        if !members.contains_key(name) {
                            let quoted = Value::from(name.as_str());
                            report.push(format!("{quoted} is a required property"));
                        }
                    }
                }
            }
            Self::Enum(_, options) => {
                if !self.is_valid(instance) {
                    report.push(format!("{instance} is not one of {options}"));
                }
            }
            Self::Const(expected) => {
                if expected != instance {
                    report.push(format!("{expected} was expected"));
                }
            }
            Self::Bound(bound, limit) => {
                if !self.is_valid(instance) {
                    report.push(format!("{instance} {} {limit}", bound.phrase()));
                }
            }
            Self::Count(count, limit) => {
                if !self.is_valid(instance) {
                    report.push(count.message(instance, *limit));
                }
            }
            Self::Items(node) => {
                if let Value::Array(items) = instance {
                    for (index, item) in items.iter().enumerate() {
                        report.below(Segment::Index(index), node, item);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn numbers_compare_exactly_across_representations() {
        let cases = [
            (json!(1), json!(1.0), Ordering::Equal),
            (json!(1), json!(1.5), Ordering::Less),
            (json!(-1), json!(-1.5), Ordering::Greater),
            (json!(u64::MAX), json!(2.0_f64.powi(64)), Ordering::Less),
            (json!(i64::MIN), json!(-(2.0_f64.powi(63))), Ordering::Equal),
            (
                json!(9_007_199_254_740_993_u64),
                json!(2.0_f64.powi(53)),
                Ordering::Greater,
            ),
            (json!(0.1), json!(0.2), Ordering::Less),
            (json!(-3), json!(2), Ordering::Less),
        ];
        for (left, right, expected) in cases {
            let (Value::Number(a), Value::Number(b)) = (&left, &right) else {
                unreachable!()
            };
            assert_eq!(compare(a, b), expected, "{left} vs {right}");
            assert_eq!(compare(b, a), expected.reverse(), "{right} vs {left}");
        }
    }

    #[test]
    fn schemas_outside_the_subset_are_left_to_jsonschema() {
        for schema in [
            json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}}}),
            json!({"pattern": "^a"}),
            json!({"type": ["string", "string"]}),
            json!({"type": []}),
            json!({"required": ["a", "a"]}),
            json!({"enum": [1, 2]}),
            json!({"minLength": 1.0}),
            json!({"x-custom": 1}),
            json!({"properties": {"a": {"type": 5}}}),
            json!({"items": [{"type": "string"}]}),
            json!({"properties": {"a": {"$schema": "https://json-schema.org/draft/2020-12/schema"}}}),
        ] {
            assert!(
                SimpleSchema::recognize(&schema, Dialect::Draft202012).is_none(),
                "{schema}"
            );
        }
        // A string-valued extension annotation is one (MCP's `x-mcp-header`).
        let annotated = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"}}});
        assert!(SimpleSchema::recognize(&annotated, Dialect::Draft202012).is_some());
        // Formats are checked by default in draft-07, so only later dialects take them here.
        let with_format = json!({"type": "string", "format": "email"});
        assert!(SimpleSchema::recognize(&with_format, Dialect::Draft202012).is_some());
        assert!(SimpleSchema::recognize(&with_format, Dialect::Draft07).is_none());
        assert!(SimpleSchema::recognize(&json!({}), Dialect::Draft04).is_none());
    }
}
