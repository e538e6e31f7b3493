//! Compact JSON output of any `Serialize` value, byte for byte what
//! `serde_json::to_vec` writes, with strings escaped a run at a time.
//!
//! serde_json escapes strings one byte at a time (about nine instructions
//! per byte), which made up half of the server's cost of answering with
//! 64 KiB of text. This writer finds the bytes that need escaping with the
//! codec's string scanner, copies each clean run once and escapes only the
//! specials. Everything else (numbers, maps, enums) follows serde_json's
//! compact format exactly (map keys by its rules, in `json_key.rs`);
//! floats are written by serde_json itself. The output is built as a `String` from `&str` pieces, so it
//! never needs a UTF-8 check.

use std::cell::Cell;
use std::fmt::Write as _;

use serde::ser::{self, Error as _, Serialize};

use crate::json_key::write_key;
use crate::raw::RAW_VALUE_TOKEN;
use crate::scan::{find_string_special, string_special_bits};

/// The hexadecimal digits of `\u00XX` escapes, lowercase as serde_json's.
const HEX_DIGITS: &[u8; 16] = b"0123456789abcdef";

/// `value` as compact JSON: the same bytes as `serde_json::to_vec`.
///
/// # Errors
///
/// As `serde_json::to_vec`: a `Serialize` implementation that fails, or a
/// map key that is not a string (nor a number, a boolean or a unit
/// variant, which JSON keys quote).
pub fn to_json_vec<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, serde_json::Error> {
    to_json_string(value).map(String::into_bytes)
}

/// `value` as compact JSON text: the same as `serde_json::to_string`.
///
/// # Errors
///
/// As [`to_json_vec`].
pub fn to_json_string<T: Serialize + ?Sized>(value: &T) -> Result<String, serde_json::Error> {
    // A nested call (a `Serialize` that encodes something itself) finds
    // the cell empty and starts a buffer of its own, which is correct.
    let mut out = SCRATCH.try_with(Cell::take).unwrap_or_default();
    if out.capacity() == 0 {
        // The last output was large and handed over (its buffer comes back
        // to `recycle` when its `RawJson` is dropped): start from a kept
        // buffer, which a large output needs and a small one can borrow.
        out = crate::recycle::take(crate::recycle::SMALLEST);
    }
    out.clear();
    out.reserve(FIRST_CAPACITY);
    if let Err(error) = value.serialize(&mut JsonWriter { out: &mut out }) {
        keep_scratch(out);
        return Err(error);
    }
    if out.len() > COPY_LIMIT {
        return Ok(out);
    }
    // Allocated at its exact size, so that keeping it as a `Box<str>` (as
    // `RawJson` does) does not shrink it with a `realloc`.
    let text = String::from(out.as_str());
    keep_scratch(out);
    Ok(text)
}

thread_local! {
    /// The buffer small outputs are written into before being copied out,
    /// kept from one call to the next on each thread.
    static SCRATCH: Cell<String> = const { Cell::new(String::new()) };
}

/// The room an output starts with: a small message fits.
const FIRST_CAPACITY: usize = 256;

/// The longest output copied out of the scratch buffer; a longer one is
/// handed over as it is, since copying it would cost more than the
/// `realloc` that fits it (and the buffer would stay that large).
const COPY_LIMIT: usize = 4 * 1024;

/// Puts `buffer` back for the next call on this thread; one that grew past
/// what is worth keeping as the scratch goes to the kept large buffers.
fn keep_scratch(buffer: String) {
    if buffer.capacity() <= 4 * COPY_LIMIT {
        // Only fails while the thread is being torn down: the buffer is
        // then dropped, which is all that matters.
        let _ = SCRATCH.try_with(|cell| cell.set(buffer));
    } else {
        crate::recycle::give(buffer);
    }
}

/// Appends `text` as a JSON string, quotes included.
///
/// Inlined where it is called for the sake of short clean strings (field
/// names, tags, enum names), which are most of the strings of a message;
/// the rest goes to [`write_escaped_runs`].
#[inline]
pub(crate) fn write_escaped_str(out: &mut String, text: &str) {
    if is_short_and_clean(text.as_bytes()) {
        out.reserve(text.len() + 2);
        out.push('"');
        out.push_str(text);
        out.push('"');
    } else {
        write_escaped_runs(out, text);
    }
}

/// Appends `text` as a JSON string, quotes included, copying each run of
/// bytes that need no escape at once.
#[inline(never)]
fn write_escaped_runs(out: &mut String, text: &str) {
    let bytes = text.as_bytes();
    // Room for the quotes, some escapes and what closes the enclosing
    // values: reserving the bare length made the closing `}` of a message
    // whose bulk is this string grow the buffer, copying all of it.
    out.reserve(bytes.len() + bytes.len() / 16 + 64);
    out.push('"');
    let mut from = 0;
    loop {
        // An ASCII byte or the end: always a character boundary.
        let special = find_string_special(bytes, from);
        out.push_str(text.get(from..special).unwrap_or_default());
        let Some(&byte) = bytes.get(special) else {
            break;
        };
        write_escape(out, byte);
        from = special + 1;
    }
    out.push('"');
}

/// Whether `bytes` is at most sixteen bytes long and holds nothing to
/// escape. One or two word tests decide it, on words read so that they
/// cover every byte (overlapping when the length is not a multiple of a
/// word), where the scanner would go through a string shorter than a
/// word one byte at a time (~10 instructions per byte).
#[inline]
fn is_short_and_clean(bytes: &[u8]) -> bool {
    let word = match bytes.len() {
        0 => return true,
        1..4 => {
            // The first, middle and last bytes are all of them.
            match (bytes.first(), bytes.get(bytes.len() / 2), bytes.last()) {
                (Some(&head), Some(&middle), Some(&tail)) => {
                    u64::from_le_bytes([head, middle, tail, tail, tail, tail, tail, tail])
                }
                _ => return false,
            }
        }
        4..8 => match (bytes.first_chunk::<4>(), bytes.last_chunk::<4>()) {
            (Some(head), Some(tail)) => {
                u64::from(u32::from_le_bytes(*head)) | u64::from(u32::from_le_bytes(*tail)) << 32
            }
            _ => return false,
        },
        8..=16 => match (bytes.first_chunk::<8>(), bytes.last_chunk::<8>()) {
            (Some(head), Some(tail)) => {
                return string_special_bits(u64::from_le_bytes(*head))
                    | string_special_bits(u64::from_le_bytes(*tail))
                    == 0;
            }
            _ => return false,
        },
        _ => return false,
    };
    string_special_bits(word) == 0
}

/// Appends the escape of `byte`, a quote, a backslash or a control byte.
fn write_escape(out: &mut String, byte: u8) {
    let short = match byte {
        b'"' => '"',
        b'\\' => '\\',
        0x08 => 'b',
        0x09 => 't',
        0x0A => 'n',
        0x0C => 'f',
        0x0D => 'r',
        _ => {
            out.push_str("\\u00");
            out.push(char::from(HEX_DIGITS[usize::from(byte >> 4)]));
            out.push(char::from(HEX_DIGITS[usize::from(byte & 0x0F)]));
            return;
        }
    };
    out.push('\\');
    out.push(short);
}

/// Appends an integer: its decimal form, as serde_json's `itoa` writes it.
pub(crate) fn write_integer(
    out: &mut String,
    value: impl std::fmt::Display,
) -> Result<(), serde_json::Error> {
    write!(out, "{value}").map_err(|error| serde_json::Error::custom(error.to_string()))
}

/// Appends what serde_json writes for a float (its own shortest form,
/// `null` when not finite). Floats are rare in MCP messages.
pub(crate) fn write_float<T: Serialize>(
    out: &mut String,
    value: T,
) -> Result<(), serde_json::Error> {
    out.push_str(&serde_json::to_string(&value)?);
    Ok(())
}

/// The serializer: appends to `out`.
struct JsonWriter<'o> {
    out: &'o mut String,
}

/// How a compound value closes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Close {
    /// `]`.
    Array,
    /// `}`.
    Object,
    /// `]}`: a tuple variant's elements inside `{"variant":[...]}`.
    VariantArray,
    /// `}}`: a struct variant's fields inside `{"variant":{...}}`.
    VariantObject,
    /// serde_json's raw value: its one field is written as it is.
    Raw,
}

/// A sequence, map or struct being written.
struct Compound<'a, 'o> {
    writer: &'a mut JsonWriter<'o>,
    first: bool,
    close: Close,
}

impl<'a, 'o> Compound<'a, 'o> {
    /// Writes the opening bracket of a value that closes as `close` (a
    /// variant's `{"variant":` is written before). Brackets are pushed as
    /// characters: a one-byte `push_str` is a call to `memcpy`.
    fn open(writer: &'a mut JsonWriter<'o>, close: Close) -> Self {
        match close {
            Close::Array | Close::VariantArray => writer.out.push('['),
            Close::Object | Close::VariantObject => writer.out.push('{'),
            Close::Raw => {}
        }
        Compound {
            writer,
            first: true,
            close,
        }
    }

    /// Writes the `,` before every element but the first.
    fn separate(&mut self) {
        if !self.first {
            self.writer.out.push(',');
        }
        self.first = false;
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), serde_json::Error> {
        self.separate();
        value.serialize(&mut *self.writer)
    }

    fn field<T: Serialize + ?Sized>(
        &mut self,
        key: &str,
        value: &T,
    ) -> Result<(), serde_json::Error> {
        if self.close == Close::Raw {
            return write_raw_field(self.writer.out, value);
        }
        self.separate();
        write_escaped_str(self.writer.out, key);
        self.writer.out.push(':');
        value.serialize(&mut *self.writer)
    }

    fn finish(self) {
        let out = &mut *self.writer.out;
        match self.close {
            Close::Array => out.push(']'),
            Close::Object => out.push('}'),
            Close::VariantArray => {
                out.push(']');
                out.push('}');
            }
            Close::VariantObject => {
                out.push('}');
                out.push('}');
            }
            Close::Raw => {}
        }
    }
}

/// Writes the text of serde_json's raw value, which serializes it as a
/// string field: serde_json escapes it, and reading that string back gives
/// the text. Raw values are rare in answers, so the detour costs little.
fn write_raw_field<T: Serialize + ?Sized>(
    out: &mut String,
    value: &T,
) -> Result<(), serde_json::Error> {
    let quoted = serde_json::to_vec(value)?;
    let text: String = serde_json::from_slice(&quoted)?;
    out.push_str(&text);
    Ok(())
}

/// Writes `{"variant":` for the variant forms that wrap their content.
fn open_variant(out: &mut String, variant: &str) {
    out.push('{');
    write_escaped_str(out, variant);
    out.push(':');
}

impl<'a, 'o> ser::Serializer for &'a mut JsonWriter<'o> {
    type Ok = ();
    type Error = serde_json::Error;
    type SerializeSeq = Compound<'a, 'o>;
    type SerializeTuple = Compound<'a, 'o>;
    type SerializeTupleStruct = Compound<'a, 'o>;
    type SerializeTupleVariant = Compound<'a, 'o>;
    type SerializeMap = Compound<'a, 'o>;
    type SerializeStruct = Compound<'a, 'o>;
    type SerializeStructVariant = Compound<'a, 'o>;

    fn serialize_bool(self, value: bool) -> Result<(), serde_json::Error> {
        self.out.push_str(if value { "true" } else { "false" });
        Ok(())
    }

    fn serialize_i8(self, value: i8) -> Result<(), serde_json::Error> {
        write_integer(self.out, value)
    }

    fn serialize_i16(self, value: i16) -> Result<(), serde_json::Error> {
        write_integer(self.out, value)
    }

    fn serialize_i32(self, value: i32) -> Result<(), serde_json::Error> {
        write_integer(self.out, value)
    }

    fn serialize_i64(self, value: i64) -> Result<(), serde_json::Error> {
        write_integer(self.out, value)
    }

    fn serialize_i128(self, value: i128) -> Result<(), serde_json::Error> {
        write_integer(self.out, value)
    }

    fn serialize_u8(self, value: u8) -> Result<(), serde_json::Error> {
        write_integer(self.out, value)
    }

    fn serialize_u16(self, value: u16) -> Result<(), serde_json::Error> {
        write_integer(self.out, value)
    }

    fn serialize_u32(self, value: u32) -> Result<(), serde_json::Error> {
        write_integer(self.out, value)
    }

    fn serialize_u64(self, value: u64) -> Result<(), serde_json::Error> {
        write_integer(self.out, value)
    }

    fn serialize_u128(self, value: u128) -> Result<(), serde_json::Error> {
        write_integer(self.out, value)
    }

    fn serialize_f32(self, value: f32) -> Result<(), serde_json::Error> {
        write_float(self.out, value)
    }

    fn serialize_f64(self, value: f64) -> Result<(), serde_json::Error> {
        write_float(self.out, value)
    }

    fn serialize_char(self, value: char) -> Result<(), serde_json::Error> {
        write_escaped_str(self.out, value.encode_utf8(&mut [0; 4]));
        Ok(())
    }

    fn serialize_str(self, value: &str) -> Result<(), serde_json::Error> {
        write_escaped_str(self.out, value);
        Ok(())
    }

    fn serialize_bytes(self, value: &[u8]) -> Result<(), serde_json::Error> {
        // An array of numbers, as serde_json writes bytes.
        self.out.push('[');
        for (index, byte) in value.iter().enumerate() {
            if index > 0 {
                self.out.push(',');
            }
            write_integer(self.out, byte)?;
        }
        self.out.push(']');
        Ok(())
    }

    fn serialize_none(self) -> Result<(), serde_json::Error> {
        self.serialize_unit()
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), serde_json::Error> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), serde_json::Error> {
        self.out.push_str("null");
        Ok(())
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), serde_json::Error> {
        self.serialize_unit()
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), serde_json::Error> {
        write_escaped_str(self.out, variant);
        Ok(())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), serde_json::Error> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), serde_json::Error> {
        open_variant(self.out, variant);
        value.serialize(&mut *self)?;
        self.out.push('}');
        Ok(())
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'a, 'o>, serde_json::Error> {
        Ok(Compound::open(self, Close::Array))
    }

    fn serialize_tuple(self, len: usize) -> Result<Compound<'a, 'o>, serde_json::Error> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Compound<'a, 'o>, serde_json::Error> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a, 'o>, serde_json::Error> {
        open_variant(self.out, variant);
        Ok(Compound::open(self, Close::VariantArray))
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'a, 'o>, serde_json::Error> {
        Ok(Compound::open(self, Close::Object))
    }

    fn serialize_struct(
        self,
        name: &'static str,
        _len: usize,
    ) -> Result<Compound<'a, 'o>, serde_json::Error> {
        if name == RAW_VALUE_TOKEN {
            return Ok(Compound::open(self, Close::Raw));
        }
        Ok(Compound::open(self, Close::Object))
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a, 'o>, serde_json::Error> {
        open_variant(self.out, variant);
        Ok(Compound::open(self, Close::VariantObject))
    }
}

/// The four array-like forms write their elements alike.
macro_rules! array_like {
    ($($form:ident :: $method:ident),+) => {$(
        impl ser::$form for Compound<'_, '_> {
            type Ok = ();
            type Error = serde_json::Error;

            fn $method<T: Serialize + ?Sized>(
                &mut self,
                value: &T,
            ) -> Result<(), serde_json::Error> {
                self.element(value)
            }

            fn end(self) -> Result<(), serde_json::Error> {
                self.finish();
                Ok(())
            }
        }
    )+};
}

array_like!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Compound<'_, '_> {
    type Ok = ();
    type Error = serde_json::Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), serde_json::Error> {
        self.separate();
        write_key(self.writer.out, key)
    }

    fn serialize_value<T: Serialize + ?Sized>(
        &mut self,
        value: &T,
    ) -> Result<(), serde_json::Error> {
        self.writer.out.push(':');
        value.serialize(&mut *self.writer)
    }

    /// The whole entry in one call: what serde's `flatten` and internal
    /// tags use for every field.
    #[inline]
    fn serialize_entry<K: Serialize + ?Sized, V: Serialize + ?Sized>(
        &mut self,
        key: &K,
        value: &V,
    ) -> Result<(), serde_json::Error> {
        self.separate();
        write_key(self.writer.out, key)?;
        self.writer.out.push(':');
        value.serialize(&mut *self.writer)
    }

    fn end(self) -> Result<(), serde_json::Error> {
        self.finish();
        Ok(())
    }
}

/// A struct and a struct variant write their fields alike.
macro_rules! struct_like {
    ($($form:ident),+) => {$(
        impl ser::$form for Compound<'_, '_> {
            type Ok = ();
            type Error = serde_json::Error;

            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), serde_json::Error> {
                self.field(key, value)
            }

            fn end(self) -> Result<(), serde_json::Error> {
                self.finish();
                Ok(())
            }
        }
    )+};
}

struct_like!(SerializeStruct, SerializeStructVariant);

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Serialize;
    use serde_json::json;

    use super::*;

    fn same_as_serde_json<T: Serialize + ?Sized>(value: &T) {
        let ours = to_json_vec(value).unwrap();
        let theirs = serde_json::to_vec(value).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&ours),
            String::from_utf8_lossy(&theirs)
        );
    }

    #[test]
    fn every_byte_is_escaped_as_serde_json_escapes_it() {
        let every_ascii: String = (0u8..=127).map(char::from).collect();
        same_as_serde_json(&every_ascii);
        same_as_serde_json("");
        same_as_serde_json("é\u{2028}😀 \"quoted\" back\\slash\n");
        // Specials at every offset around the scanner's word and block sizes.
        for special in ['"', '\\', '\n', '\u{1f}', '\u{0}', 'é'] {
            for at in 0..140 {
                let mut text = "x".repeat(140);
                text.insert(at, special);
                same_as_serde_json(&text);
            }
        }
    }

    #[test]
    fn numbers_maps_enums_and_raw_values_match_serde_json() {
        same_as_serde_json(&json!({
            "a": [1, -2, 3.5, 1e21, 0.1, u64::MAX, i64::MIN, null, true, false],
            "nested": {"k\"ey": {"deeper": []}, "empty": {}},
            "text": "line\nbreak",
        }));
        same_as_serde_json(&f64::NAN);
        let mut numeric_keys = BTreeMap::new();
        numeric_keys.insert(7u32, "seven");
        numeric_keys.insert(11u32, "eleven");
        same_as_serde_json(&numeric_keys);
        let raw = serde_json::value::RawValue::from_string(r#"{"z": [1, 2]}"#.to_owned()).unwrap();
        same_as_serde_json(&json!({"raw": raw}));
        same_as_serde_json(&raw);

        #[derive(Serialize)]
        enum Shape {
            Unit,
            Newtype(u8),
            Tuple(u8, String),
            Struct { side: f32, name: Option<String> },
        }
        #[derive(Serialize)]
        struct Holder {
            shapes: Vec<Shape>,
            pair: (i8, char),
            unit: (),
            bytes: Vec<u8>,
            #[serde(skip_serializing_if = "Option::is_none")]
            absent: Option<u8>,
        }
        same_as_serde_json(&Holder {
            shapes: vec![
                Shape::Unit,
                Shape::Newtype(3),
                Shape::Tuple(1, "t".into()),
                Shape::Struct {
                    side: 1.5,
                    name: None,
                },
            ],
            pair: (-1, '"'),
            unit: (),
            bytes: vec![0, 255],
            absent: None,
        });
    }

    #[test]
    fn short_strings_are_escaped_as_serde_json_escapes_them() {
        // The word tests of `is_short_and_clean` cover lengths 0 to 16:
        // every length around them, clean, and with each byte that needs
        // an escape (and some that do not) at every position.
        let specials = (0u8..0x20).chain([b'"', b'\\']).map(char::from);
        let ordinary = [' ', '!', '#', '[', ']', '\u{7f}', 'é', '€', '😀'];
        for length in 0..=18 {
            same_as_serde_json(&"k".repeat(length));
            for special in specials.clone().chain(ordinary) {
                for at in 0..=length {
                    let mut text = "k".repeat(length);
                    text.insert(at, special);
                    same_as_serde_json(&text);
                }
            }
        }
    }

    /// Serializes as a string holding its own JSON text, written by
    /// `to_json_string` while the outer call is under way.
    struct Nested(Vec<String>);

    impl Serialize for Nested {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let inner = to_json_string(&self.0).map_err(ser::Error::custom)?;
            serializer.serialize_str(&inner)
        }
    }

    #[test]
    fn outputs_of_every_size_and_nested_calls_match_serde_json() {
        // Around the scratch buffer's copy limit, then small again (the
        // buffer was handed over with the large output), then nested.
        let lengths = [0, 10, COPY_LIMIT - 2, COPY_LIMIT, 5 * COPY_LIMIT, 20];
        for length in lengths {
            same_as_serde_json(&"s".repeat(length));
            same_as_serde_json(&json!({"text": "t".repeat(length), "n": length}));
        }
        let nested = Nested(vec!["a\"b".to_owned(), "c".repeat(2 * COPY_LIMIT)]);
        same_as_serde_json(&json!({"outer": [1, 2]}));
        let ours = to_json_string(&(1, &nested, "after")).unwrap();
        let theirs = serde_json::to_string(&(1, &nested, "after")).unwrap();
        assert_eq!(ours, theirs);
        same_as_serde_json(&Nested(vec!["small".to_owned()]));
        // A failed call leaves nothing behind for the next one.
        let refused_key = BTreeMap::from([(vec![1u8], "half written")]);
        assert!(to_json_string(&json!({"a": "b"})).is_ok());
        assert!(to_json_string(&refused_key).is_err());
        same_as_serde_json(&json!({"after": "a failure"}));
    }
}
