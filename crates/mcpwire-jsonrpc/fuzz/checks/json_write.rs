//! The property of the `json_write` fuzz target, shared with the test that
//! replays its corpus (`tests/roundtrip.rs`).
//!
//! Differential against serde_json, which `to_json_vec` promises to match
//! byte for byte:
//! * the input as JSON text, when serde_json reads it as a `Value`, is
//!   written by both to the same bytes;
//! * the input also drives a generator of every shape the serde data model
//!   has (all integer and float widths with any bits, chars, strings and
//!   bytes, options, units, newtypes, sequences, tuples, maps with keys of
//!   every kind, structs and enum variants of every form, raw JSON values),
//!   nested; both writers must both fail, or both succeed with the same
//!   bytes.

use std::fmt;

use mcpwire_jsonrpc::to_json_vec;
use serde::ser::{
    Serialize, SerializeMap, SerializeSeq, SerializeStruct, SerializeStructVariant, SerializeTuple,
    SerializeTupleStruct, SerializeTupleVariant, Serializer,
};
use serde_json::value::RawValue;

/// Checks one input.
pub(crate) fn check(data: &[u8]) {
    if let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) {
        same_bytes(&value);
    }
    let mut source = Source { data, at: 0 };
    while source.at < data.len() {
        let shape = source.shape(0);
        same_bytes(&shape);
    }
}

fn same_bytes<T: Serialize + fmt::Debug + ?Sized>(value: &T) {
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
            "the writers disagree on {value:?}"
        );
    }
}

/// Names used for fields and variants: plain, empty, needing escapes, non-ASCII.
const NAMES: [&str; 8] = [
    "a",
    "",
    "id",
    "q\"uote",
    "back\\slash",
    "\u{1}ctl",
    "ü",
    "_meta",
];

/// One value of the serde data model.
#[derive(Debug)]
enum Shape {
    Bool(bool),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    I128(i128),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    U128(u128),
    F32(f32),
    F64(f64),
    Char(char),
    Str(String),
    Bytes(Vec<u8>),
    None,
    Some(Box<Shape>),
    Unit,
    UnitStruct,
    UnitVariant(&'static str),
    NewtypeStruct(Box<Shape>),
    NewtypeVariant(&'static str, Box<Shape>),
    Seq(Vec<Shape>, bool),
    Tuple(Vec<Shape>),
    TupleStruct(Vec<Shape>),
    TupleVariant(&'static str, Vec<Shape>),
    Map(Vec<(Shape, Shape)>, bool),
    Struct(Vec<(&'static str, Shape)>),
    StructVariant(&'static str, Vec<(&'static str, Shape)>),
    Raw(Box<RawValue>),
}

/// Reads shapes from the input's bytes (zeros once it runs out).
struct Source<'a> {
    data: &'a [u8],
    at: usize,
}

impl Source<'_> {
    fn byte(&mut self) -> u8 {
        let byte = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        byte
    }

    fn array<const N: usize>(&mut self) -> [u8; N] {
        std::array::from_fn(|_| self.byte())
    }

    fn bytes(&mut self) -> Vec<u8> {
        let len = usize::from(self.byte() % 24);
        (0..len).map(|_| self.byte()).collect()
    }

    fn string(&mut self) -> String {
        String::from_utf8_lossy(&self.bytes()).into_owned()
    }

    fn name(&mut self) -> &'static str {
        NAMES[usize::from(self.byte()) % NAMES.len()]
    }

    fn shapes(&mut self, depth: usize) -> Vec<Shape> {
        let len = self.byte() % 5;
        (0..len).map(|_| self.shape(depth + 1)).collect()
    }

    fn fields(&mut self, depth: usize) -> Vec<(&'static str, Shape)> {
        let len = self.byte() % 5;
        (0..len)
            .map(|_| (self.name(), self.shape(depth + 1)))
            .collect()
    }

    fn shape(&mut self, depth: usize) -> Shape {
        // Past a few levels only leaves, so that every input ends.
        let kind = if depth > 6 {
            self.byte() % 16
        } else {
            self.byte() % 31
        };
        match kind {
            0 => Shape::Bool(self.byte() % 2 == 1),
            1 => Shape::I8(i8::from_le_bytes(self.array())),
            2 => Shape::I16(i16::from_le_bytes(self.array())),
            3 => Shape::I32(i32::from_le_bytes(self.array())),
            4 => Shape::I64(i64::from_le_bytes(self.array())),
            5 => Shape::I128(i128::from_le_bytes(self.array())),
            6 => Shape::U8(self.byte()),
            7 => Shape::U16(u16::from_le_bytes(self.array())),
            8 => Shape::U32(u32::from_le_bytes(self.array())),
            9 => Shape::U64(u64::from_le_bytes(self.array())),
            10 => Shape::U128(u128::from_le_bytes(self.array())),
            11 => Shape::F32(f32::from_le_bytes(self.array())),
            12 => Shape::F64(f64::from_le_bytes(self.array())),
            13 => Shape::Char(char::from_u32(u32::from_le_bytes(self.array())).unwrap_or('\u{7f}')),
            15 => match self.byte() % 4 {
                0 => Shape::None,
                1 => Shape::Unit,
                2 => Shape::UnitStruct,
                _ => Shape::UnitVariant(self.name()),
            },
            16 => Shape::Bytes(self.bytes()),
            17 => Shape::Some(Box::new(self.shape(depth + 1))),
            18 => Shape::NewtypeStruct(Box::new(self.shape(depth + 1))),
            19 => Shape::NewtypeVariant(self.name(), Box::new(self.shape(depth + 1))),
            20 => {
                let exact = self.byte().is_multiple_of(2);
                Shape::Seq(self.shapes(depth), exact)
            }
            21 => Shape::Tuple(self.shapes(depth)),
            22 => Shape::TupleStruct(self.shapes(depth)),
            23 => Shape::TupleVariant(self.name(), self.shapes(depth)),
            24 | 25 => {
                let exact = self.byte().is_multiple_of(2);
                let len = self.byte() % 5;
                let entries = (0..len)
                    .map(|_| (self.shape(depth + 1), self.shape(depth + 1)))
                    .collect();
                Shape::Map(entries, exact)
            }
            26 => Shape::Struct(self.fields(depth)),
            27 => Shape::StructVariant(self.name(), self.fields(depth)),
            28 => {
                let text = self.string();
                serde_json::from_str::<Box<RawValue>>(&text).map_or(Shape::Str(text), Shape::Raw)
            }
            // 14, 29 and 30: strings, the commonest leaf.
            _ => Shape::Str(self.string()),
        }
    }
}

impl Serialize for Shape {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Bool(v) => s.serialize_bool(*v),
            Self::I8(v) => s.serialize_i8(*v),
            Self::I16(v) => s.serialize_i16(*v),
            Self::I32(v) => s.serialize_i32(*v),
            Self::I64(v) => s.serialize_i64(*v),
            Self::I128(v) => s.serialize_i128(*v),
            Self::U8(v) => s.serialize_u8(*v),
            Self::U16(v) => s.serialize_u16(*v),
            Self::U32(v) => s.serialize_u32(*v),
            Self::U64(v) => s.serialize_u64(*v),
            Self::U128(v) => s.serialize_u128(*v),
            Self::F32(v) => s.serialize_f32(*v),
            Self::F64(v) => s.serialize_f64(*v),
            Self::Char(v) => s.serialize_char(*v),
            Self::Str(v) => s.serialize_str(v),
            Self::Bytes(v) => s.serialize_bytes(v),
            Self::None => s.serialize_none(),
            Self::Some(v) => s.serialize_some(v),
            Self::Unit => s.serialize_unit(),
            Self::UnitStruct => s.serialize_unit_struct("Unit"),
            Self::UnitVariant(name) => s.serialize_unit_variant("Enum", 0, name),
            Self::NewtypeStruct(v) => s.serialize_newtype_struct("Newtype", v),
            Self::NewtypeVariant(name, v) => s.serialize_newtype_variant("Enum", 1, name, v),
            Self::Seq(items, exact) => {
                let mut seq = s.serialize_seq(exact.then_some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Self::Tuple(items) => {
                let mut tuple = s.serialize_tuple(items.len())?;
                for item in items {
                    tuple.serialize_element(item)?;
                }
                tuple.end()
            }
            Self::TupleStruct(items) => {
                let mut tuple = s.serialize_tuple_struct("TupleStruct", items.len())?;
                for item in items {
                    tuple.serialize_field(item)?;
                }
                tuple.end()
            }
            Self::TupleVariant(name, items) => {
                let mut tuple = s.serialize_tuple_variant("Enum", 2, name, items.len())?;
                for item in items {
                    tuple.serialize_field(item)?;
                }
                tuple.end()
            }
            Self::Map(entries, exact) => {
                let mut map = s.serialize_map(exact.then_some(entries.len()))?;
                for (key, value) in entries {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
            Self::Struct(fields) => {
                let mut record = s.serialize_struct("Struct", fields.len())?;
                for (name, value) in fields {
                    record.serialize_field(name, value)?;
                }
                record.end()
            }
            Self::StructVariant(name, fields) => {
                let mut record = s.serialize_struct_variant("Enum", 3, name, fields.len())?;
                for (field, value) in fields {
                    record.serialize_field(field, value)?;
                }
                record.end()
            }
            Self::Raw(raw) => raw.serialize(s),
        }
    }
}
