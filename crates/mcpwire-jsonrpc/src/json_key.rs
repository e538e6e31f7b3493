//! Map keys written straight into the output as serde_json writes them:
//! strings as they are, numbers, booleans and finite floats quoted.
//!
//! Every struct with a `#[serde(flatten)]` field (most MCP results and
//! content blocks) serializes through the map path, so each of its field
//! names arrives here as a key. Asking serde_json to write a key into a
//! scratch buffer and copying it out cost ~420 instructions per key (a
//! third of encoding a small tool result); writing it in place costs a
//! fifth of that. A key serde_json refuses (a sequence, a unit, a
//! non-finite float...) is handed to serde_json after all, so the error
//! is exactly the one it gives.

use core::fmt;

use serde::ser::{self, Error as _, Impossible, Serialize};

use crate::json_writer::{write_escaped_str, write_float, write_integer};

/// Appends `key`, quoted, as serde_json writes a map key.
///
/// # Errors
///
/// serde_json's own: for a key it refuses (`key must be a string`, `float
/// key must be finite`), or the one the key's `Serialize` gave.
pub(crate) fn write_key<T: Serialize + ?Sized>(
    out: &mut String,
    key: &T,
) -> Result<(), serde_json::Error> {
    let start = out.len();
    match key.serialize(KeyWriter { out: &mut *out }) {
        Ok(()) => Ok(()),
        Err(KeyError::Failed(error)) => Err(error),
        Err(KeyError::Refused) => {
            // Nothing is written before a refusal, but the output must
            // hold only what serde_json's path writes, whatever happens.
            out.truncate(start);
            write_key_through_serde_json(out, key)
        }
    }
}

/// Writes `key` through serde_json's own key rules, into a scratch buffer
/// first: the path for keys the fast writer refuses, which yields
/// serde_json's exact error.
fn write_key_through_serde_json<T: Serialize + ?Sized>(
    out: &mut String,
    key: &T,
) -> Result<(), serde_json::Error> {
    let mut scratch = Vec::new();
    let mut map = serde_json::Serializer::new(&mut scratch);
    let mut entry = ser::Serializer::serialize_map(&mut map, Some(1))?;
    ser::SerializeMap::serialize_key(&mut entry, key)?;
    // `{"key"` without its opening brace: serde_json wrote UTF-8.
    let key = std::str::from_utf8(scratch.get(1..).unwrap_or_default())
        .map_err(|error| serde_json::Error::custom(error.to_string()))?;
    out.push_str(key);
    Ok(())
}

/// Why a key was not written.
#[derive(Debug)]
enum KeyError {
    /// serde_json refuses this kind of key: it is asked for its own error.
    Refused,
    /// The key's `Serialize` failed, with this error.
    Failed(serde_json::Error),
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Refused => f.write_str("key must be a string"),
            Self::Failed(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for KeyError {}

impl ser::Error for KeyError {
    fn custom<M: fmt::Display>(message: M) -> Self {
        // What serde_json's own `custom` makes of the same message.
        Self::Failed(serde_json::Error::custom(message))
    }
}

/// Writes one key into `out`.
struct KeyWriter<'o> {
    out: &'o mut String,
}

impl KeyWriter<'_> {
    /// A number or boolean key: its JSON text between quotes.
    fn quoted(self, text: &str) -> Result<(), KeyError> {
        self.out.push('"');
        self.out.push_str(text);
        self.out.push('"');
        Ok(())
    }

    fn integer(self, value: impl fmt::Display) -> Result<(), KeyError> {
        self.out.push('"');
        write_integer(self.out, value).map_err(KeyError::Failed)?;
        self.out.push('"');
        Ok(())
    }

    fn float<F: Serialize>(self, value: F, finite: bool) -> Result<(), KeyError> {
        if !finite {
            return Err(KeyError::Refused);
        }
        self.out.push('"');
        write_float(self.out, value).map_err(KeyError::Failed)?;
        self.out.push('"');
        Ok(())
    }
}

impl ser::Serializer for KeyWriter<'_> {
    type Ok = ();
    type Error = KeyError;
    type SerializeSeq = Impossible<(), KeyError>;
    type SerializeTuple = Impossible<(), KeyError>;
    type SerializeTupleStruct = Impossible<(), KeyError>;
    type SerializeTupleVariant = Impossible<(), KeyError>;
    type SerializeMap = Impossible<(), KeyError>;
    type SerializeStruct = Impossible<(), KeyError>;
    type SerializeStructVariant = Impossible<(), KeyError>;

    fn serialize_str(self, value: &str) -> Result<(), KeyError> {
        write_escaped_str(self.out, value);
        Ok(())
    }

    fn serialize_char(self, value: char) -> Result<(), KeyError> {
        write_escaped_str(self.out, value.encode_utf8(&mut [0; 4]));
        Ok(())
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), KeyError> {
        write_escaped_str(self.out, variant);
        Ok(())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), KeyError> {
        value.serialize(self)
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), KeyError> {
        value.serialize(self)
    }

    fn serialize_bool(self, value: bool) -> Result<(), KeyError> {
        self.quoted(if value { "true" } else { "false" })
    }

    fn serialize_i8(self, value: i8) -> Result<(), KeyError> {
        self.integer(value)
    }

    fn serialize_i16(self, value: i16) -> Result<(), KeyError> {
        self.integer(value)
    }

    fn serialize_i32(self, value: i32) -> Result<(), KeyError> {
        self.integer(value)
    }

    fn serialize_i64(self, value: i64) -> Result<(), KeyError> {
        self.integer(value)
    }

    fn serialize_i128(self, value: i128) -> Result<(), KeyError> {
        self.integer(value)
    }

    fn serialize_u8(self, value: u8) -> Result<(), KeyError> {
        self.integer(value)
    }

    fn serialize_u16(self, value: u16) -> Result<(), KeyError> {
        self.integer(value)
    }

    fn serialize_u32(self, value: u32) -> Result<(), KeyError> {
        self.integer(value)
    }

    fn serialize_u64(self, value: u64) -> Result<(), KeyError> {
        self.integer(value)
    }

    fn serialize_u128(self, value: u128) -> Result<(), KeyError> {
        self.integer(value)
    }

    fn serialize_f32(self, value: f32) -> Result<(), KeyError> {
        self.float(value, value.is_finite())
    }

    fn serialize_f64(self, value: f64) -> Result<(), KeyError> {
        self.float(value, value.is_finite())
    }

    fn serialize_bytes(self, _value: &[u8]) -> Result<(), KeyError> {
        Err(KeyError::Refused)
    }

    fn serialize_none(self) -> Result<(), KeyError> {
        Err(KeyError::Refused)
    }

    fn serialize_unit(self) -> Result<(), KeyError> {
        Err(KeyError::Refused)
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), KeyError> {
        Err(KeyError::Refused)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<(), KeyError> {
        Err(KeyError::Refused)
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, KeyError> {
        Err(KeyError::Refused)
    }

    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, KeyError> {
        Err(KeyError::Refused)
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, KeyError> {
        Err(KeyError::Refused)
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, KeyError> {
        Err(KeyError::Refused)
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, KeyError> {
        Err(KeyError::Refused)
    }

    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, KeyError> {
        Err(KeyError::Refused)
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, KeyError> {
        Err(KeyError::Refused)
    }
}

#[cfg(test)]
mod tests {
    use serde::Serialize;
    use serde::ser::Serializer;

    use crate::to_json_vec;

    /// A map with keys of any `Serialize` type, in the given order (no
    /// `Ord` or `Hash` needed, so floats and units can be keys).
    struct Entries<K>(Vec<K>);

    impl<K: Serialize> Serialize for Entries<K> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.collect_map(self.0.iter().map(|key| (key, 0u8)))
        }
    }

    fn keys_written_as_serde_json_writes_them<K: Serialize>(keys: Vec<K>) {
        let map = Entries(keys);
        let ours = to_json_vec(&map).unwrap();
        let theirs = serde_json::to_vec(&map).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&ours),
            String::from_utf8_lossy(&theirs)
        );
    }

    fn key_refused_as_serde_json_refuses_it<K: Serialize>(key: K) {
        let map = Entries(vec![key]);
        let ours = to_json_vec(&map).unwrap_err();
        let theirs = serde_json::to_vec(&map).unwrap_err();
        assert_eq!(ours.to_string(), theirs.to_string());
        assert_eq!(ours.classify(), theirs.classify());
    }

    #[derive(Serialize)]
    struct Name(&'static str);

    #[derive(Serialize)]
    struct Number(u16);

    #[derive(Serialize)]
    struct Nothing;

    #[derive(Serialize)]
    struct Point {
        x: u8,
    }

    #[derive(Serialize)]
    struct Pair(u8, u8);

    #[derive(Serialize)]
    enum Kind {
        Plain,
        #[serde(rename = "re\"named")]
        Renamed,
        Wrapped(u8),
        Tuple(u8, u8),
        Fields {
            x: u8,
        },
    }

    #[test]
    fn string_keys_are_escaped_as_serde_json_escapes_them() {
        let mut keys: Vec<String> = ["", "a", "type", "content", "structuredContent", "_meta"]
            .map(String::from)
            .into();
        keys.push("k\"e\\y\n\u{1}é😀".to_owned());
        keys.push("x".repeat(40) + "\"" + &"y".repeat(40));
        keys_written_as_serde_json_writes_them(keys);
        keys_written_as_serde_json_writes_them(vec![Some("some"), Some("a\"b")]);
        keys_written_as_serde_json_writes_them(vec![Name("new\ttype"), Name("plain")]);
        keys_written_as_serde_json_writes_them(vec!['a', '"', '\n', 'é', '😀']);
        keys_written_as_serde_json_writes_them(vec![Kind::Plain, Kind::Renamed]);
    }

    #[test]
    fn number_and_boolean_keys_are_quoted_as_serde_json_quotes_them() {
        keys_written_as_serde_json_writes_them(vec![i8::MIN, -1, 0, i8::MAX]);
        keys_written_as_serde_json_writes_them(vec![i16::MIN, i16::MAX]);
        keys_written_as_serde_json_writes_them(vec![i32::MIN, i32::MAX]);
        keys_written_as_serde_json_writes_them(vec![i64::MIN, i64::MAX]);
        keys_written_as_serde_json_writes_them(vec![i128::MIN, i128::MAX]);
        keys_written_as_serde_json_writes_them(vec![u8::MIN, u8::MAX]);
        keys_written_as_serde_json_writes_them(vec![u16::MIN, u16::MAX]);
        keys_written_as_serde_json_writes_them(vec![u32::MIN, u32::MAX]);
        keys_written_as_serde_json_writes_them(vec![u64::MIN, u64::MAX]);
        keys_written_as_serde_json_writes_them(vec![u128::MIN, u128::MAX]);
        keys_written_as_serde_json_writes_them(vec![Number(7), Number(65535)]);
        keys_written_as_serde_json_writes_them(vec![true, false]);
        keys_written_as_serde_json_writes_them(vec![0.0f32, -1.5, 1e-7, f32::MAX]);
        keys_written_as_serde_json_writes_them(vec![0.1f64, -0.0, 1e21, f64::MIN_POSITIVE]);
    }

    #[test]
    fn keys_serde_json_refuses_fail_with_its_own_errors() {
        key_refused_as_serde_json_refuses_it(());
        key_refused_as_serde_json_refuses_it(None::<&str>);
        key_refused_as_serde_json_refuses_it(Nothing);
        key_refused_as_serde_json_refuses_it(Kind::Wrapped(1));
        key_refused_as_serde_json_refuses_it(Kind::Tuple(1, 2));
        key_refused_as_serde_json_refuses_it(Kind::Fields { x: 1 });
        key_refused_as_serde_json_refuses_it(vec![1u8]);
        key_refused_as_serde_json_refuses_it((1u8, 2u8));
        key_refused_as_serde_json_refuses_it(Pair(1, 2));
        key_refused_as_serde_json_refuses_it(Point { x: 1 });
        key_refused_as_serde_json_refuses_it(Entries(vec!["inner"]));
        key_refused_as_serde_json_refuses_it(serde_bytes_like());
        key_refused_as_serde_json_refuses_it(f32::NAN);
        key_refused_as_serde_json_refuses_it(f64::INFINITY);
        key_refused_as_serde_json_refuses_it(Some(f64::NEG_INFINITY));
    }

    /// Serializes as bytes, which serde_json refuses as a key.
    fn serde_bytes_like() -> impl Serialize {
        struct Bytes;
        impl Serialize for Bytes {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_bytes(b"raw")
            }
        }
        Bytes
    }

    #[test]
    fn a_key_whose_serialize_fails_gives_that_error() {
        struct Failing;
        impl Serialize for Failing {
            fn serialize<S: Serializer>(&self, _serializer: S) -> Result<S::Ok, S::Error> {
                Err(serde::ser::Error::custom("this key cannot be written"))
            }
        }
        key_refused_as_serde_json_refuses_it(Failing);
        let error = to_json_vec(&Entries(vec![Failing])).unwrap_err();
        assert_eq!(error.to_string(), "this key cannot be written");
    }
}
