//! A validating scanner of JSON text that skips values without building them and reads the few scalars an envelope needs.
//!
//! It follows RFC 8259 as serde_json reads it: the same grammar for
//! numbers, the same escapes, no control characters in strings, no
//! trailing commas, and a `\u` escape checked only for its four hex digits
//! in skipped text (surrogates are paired only when a string is read).
//! Nesting is tracked on the heap, so no input can deepen the call stack.
//! The text is `str`, so UTF-8 is already known to be valid.

use std::borrow::Cow;
use std::fmt;

use crate::string_end::{StringEnd, find_string_end};

/// Where and why text stopped being JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    at: usize,
    expected: Cow<'static, str>,
}

/// Prints the description a parse error (-32700) carries.
impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid JSON: {} at byte {}", self.expected, self.at)
    }
}

/// A scalar read without committing to its type, so that a wrong type can
/// be reported instead of failing the parse.
pub(crate) enum Probe<'a> {
    Null,
    Bool,
    Integer(i64),
    /// A non-negative integer above `i64::MAX` that fits in a `u64`.
    Huge,
    /// Any other number: with a fraction or an exponent, `-0`, or an
    /// integer beyond the 64-bit range.
    Float,
    Str(Cow<'a, str>),
    Array,
    Object,
}

/// The open arrays and objects around the scanner, innermost last, as bits
/// (set for an object): 64 levels inline, deeper ones on the heap.
#[derive(Default)]
struct Nesting {
    depth: usize,
    inline: u64,
    deeper: Vec<u64>,
}

impl Nesting {
    fn push(&mut self, object: bool) {
        let bit = u64::from(object) << (self.depth % 64);
        let mask = !(1u64 << (self.depth % 64));
        match (self.depth / 64).checked_sub(1) {
            None => self.inline = (self.inline & mask) | bit,
            Some(word) => {
                if word == self.deeper.len() {
                    self.deeper.push(0);
                }
                if let Some(bits) = self.deeper.get_mut(word) {
                    *bits = (*bits & mask) | bit;
                }
            }
        }
        self.depth += 1;
    }

    /// Whether the innermost container is an object; `None` at the top.
    fn innermost_is_object(&self) -> Option<bool> {
        let index = self.depth.checked_sub(1)?;
        let bits = match (index / 64).checked_sub(1) {
            None => self.inline,
            Some(word) => self.deeper.get(word).copied().unwrap_or_default(),
        };
        Some(bits >> (index % 64) & 1 == 1)
    }

    fn pop(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }
}

/// A position in a JSON text.
pub(crate) struct Cursor<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Self { text, at: 0 }
    }

    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    fn error(&self, expected: &'static str) -> SyntaxError {
        SyntaxError {
            at: self.at,
            expected: Cow::Borrowed(expected),
        }
    }

    pub(crate) fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes().get(self.at) {
            self.at += 1;
        }
    }

    /// The next byte after whitespace, not consumed.
    pub(crate) fn peek(&mut self) -> Option<u8> {
        self.skip_whitespace();
        self.bytes().get(self.at).copied()
    }

    /// Consumes `byte` after whitespace, or fails with `expected`.
    fn expect(&mut self, byte: u8, expected: &'static str) -> Result<(), SyntaxError> {
        if self.peek() == Some(byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.error(expected))
        }
    }

    /// Checks that only whitespace is left.
    pub(crate) fn end(&mut self) -> Result<(), SyntaxError> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(self.error("trailing characters")),
        }
    }

    /// Skips one value and returns where its text starts and ends.
    pub(crate) fn raw_value(&mut self) -> Result<(usize, usize), SyntaxError> {
        self.skip_whitespace();
        let start = self.at;
        self.skip_value()?;
        Ok((start, self.at))
    }

    /// Skips one value and returns its text.
    pub(crate) fn raw_text(&mut self) -> Result<&'a str, SyntaxError> {
        let (start, end) = self.raw_value()?;
        self.text
            .get(start..end)
            .ok_or_else(|| self.error("a value"))
    }

    /// Skips one value of any kind, checking its syntax.
    pub(crate) fn skip_value(&mut self) -> Result<(), SyntaxError> {
        let mut nesting = Nesting::default();
        'value: loop {
            match self.peek() {
                Some(b'{') => {
                    self.at += 1;
                    if self.peek() == Some(b'}') {
                        self.at += 1;
                    } else {
                        nesting.push(true);
                        self.skip_key()?;
                        continue 'value;
                    }
                }
                Some(b'[') => {
                    self.at += 1;
                    if self.peek() == Some(b']') {
                        self.at += 1;
                    } else {
                        nesting.push(false);
                        continue 'value;
                    }
                }
                Some(b'"') => {
                    self.at += 1;
                    self.skip_string_body()?;
                }
                Some(b't') => self.literal("true")?,
                Some(b'f') => self.literal("false")?,
                Some(b'n') => self.literal("null")?,
                Some(b'-' | b'0'..=b'9') => {
                    self.number()?;
                }
                _ => return Err(self.error("expected a value")),
            }
            // A value ended: close what it ends, or go on to the next one.
            while let Some(in_object) = nesting.innermost_is_object() {
                match (self.peek(), in_object) {
                    (Some(b','), true) => {
                        self.at += 1;
                        self.skip_key()?;
                        continue 'value;
                    }
                    (Some(b','), false) => {
                        self.at += 1;
                        continue 'value;
                    }
                    (Some(b'}'), true) | (Some(b']'), false) => {
                        self.at += 1;
                        nesting.pop();
                    }
                    (_, true) => return Err(self.error("expected ',' or '}'")),
                    (_, false) => return Err(self.error("expected ',' or ']'")),
                }
            }
            return Ok(());
        }
    }

    /// Skips a member name and the colon after it.
    fn skip_key(&mut self) -> Result<(), SyntaxError> {
        self.expect(b'"', "expected a member name")?;
        self.skip_string_body()?;
        self.expect(b':', "expected ':'")
    }

    /// Skips the rest of a string after its opening quote; returns whether
    /// it held an escape.
    fn skip_string_body(&mut self) -> Result<bool, SyntaxError> {
        let (at, expected) = match find_string_end(self.bytes(), self.at) {
            StringEnd::Closed { quote, escaped } => {
                self.at = quote + 1;
                return Ok(escaped);
            }
            StringEnd::BadEscape(at) => (at, "invalid escape"),
            StringEnd::BadUnicodeEscape(at) => (at, "invalid \\u escape"),
            StringEnd::Control(at) => (at, "control character in a string"),
            StringEnd::Unterminated => (self.text.len(), "unterminated string"),
        };
        self.at = at;
        Err(self.error(expected))
    }

    /// Reads a string at the cursor (on its opening quote).
    pub(crate) fn string(&mut self) -> Result<Cow<'a, str>, SyntaxError> {
        let start = self.at;
        self.at += 1;
        let escaped = self.skip_string_body()?;
        let quoted = self.text.get(start..self.at).unwrap_or_default();
        if !escaped {
            let inner = quoted.get(1..quoted.len().saturating_sub(1));
            return Ok(Cow::Borrowed(inner.unwrap_or_default()));
        }
        // Escapes are rare in the members an envelope reads; serde_json
        // decodes them, pairing surrogates (a lone one is refused).
        serde_json::from_str::<String>(quoted)
            .map(Cow::Owned)
            .map_err(|error| SyntaxError {
                at: start,
                expected: Cow::Owned(error.to_string()),
            })
    }

    fn literal(&mut self, word: &'static str) -> Result<(), SyntaxError> {
        let rest = self.bytes().get(self.at..).unwrap_or_default();
        if rest.starts_with(word.as_bytes()) {
            self.at += word.len();
            Ok(())
        } else {
            Err(self.error("expected a value"))
        }
    }

    /// Skips a number by the JSON grammar and returns its text.
    fn number(&mut self) -> Result<&'a str, SyntaxError> {
        let bytes = self.bytes();
        let start = self.at;
        let digits = |at: &mut usize| {
            let first = *at;
            while bytes.get(*at).is_some_and(u8::is_ascii_digit) {
                *at += 1;
            }
            *at > first
        };
        let mut at = self.at;
        if bytes.get(at) == Some(&b'-') {
            at += 1;
        }
        match bytes.get(at) {
            Some(b'0') => at += 1,
            Some(b'1'..=b'9') => {
                digits(&mut at);
            }
            _ => {
                self.at = at;
                return Err(self.error("expected a digit"));
            }
        }
        if bytes.get(at) == Some(&b'.') {
            at += 1;
            if !digits(&mut at) {
                self.at = at;
                return Err(self.error("expected a digit after '.'"));
            }
        }
        if let Some(b'e' | b'E') = bytes.get(at) {
            at += 1;
            if let Some(b'+' | b'-') = bytes.get(at) {
                at += 1;
            }
            if !digits(&mut at) {
                self.at = at;
                return Err(self.error("expected a digit in the exponent"));
            }
        }
        self.at = at;
        Ok(self.text.get(start..at).unwrap_or_default())
    }

    /// Reads the value at the cursor as a [`Probe`]: scalars are read,
    /// arrays and objects skipped.
    pub(crate) fn probe(&mut self) -> Result<Probe<'a>, SyntaxError> {
        Ok(match self.peek() {
            Some(b'"') => Probe::Str(self.string()?),
            Some(b'{') => {
                self.skip_value()?;
                Probe::Object
            }
            Some(b'[') => {
                self.skip_value()?;
                Probe::Array
            }
            Some(b't') => {
                self.literal("true")?;
                Probe::Bool
            }
            Some(b'f') => {
                self.literal("false")?;
                Probe::Bool
            }
            Some(b'n') => {
                self.literal("null")?;
                Probe::Null
            }
            Some(b'-' | b'0'..=b'9') => {
                let start = self.at;
                let text = self.number()?;
                number_probe(text).ok_or(SyntaxError {
                    at: start,
                    expected: Cow::Borrowed("number out of range"),
                })?
            }
            _ => return Err(self.error("expected a value")),
        })
    }

    /// Reads the members of the object at the cursor (on its `{`), calling
    /// `member` with each name; `member` must consume the value.
    pub(crate) fn members(
        &mut self,
        mut member: impl FnMut(&mut Self, Cow<'a, str>) -> Result<(), SyntaxError>,
    ) -> Result<(), SyntaxError> {
        self.at += 1;
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(());
        }
        loop {
            if self.peek() != Some(b'"') {
                return Err(self.error("expected a member name"));
            }
            let name = self.string()?;
            self.expect(b':', "expected ':'")?;
            member(self, name)?;
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(());
                }
                _ => return Err(self.error("expected ',' or '}'")),
            }
        }
    }

    /// Reads the elements of the array at the cursor (on its `[`), calling
    /// `element` for each; `element` must consume the value.
    pub(crate) fn elements(
        &mut self,
        mut element: impl FnMut(&mut Self) -> Result<(), SyntaxError>,
    ) -> Result<(), SyntaxError> {
        self.at += 1;
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(());
        }
        loop {
            element(self)?;
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(());
                }
                _ => return Err(self.error("expected ',' or ']'")),
            }
        }
    }
}

/// What a number's text reads as, the way serde_json reads it: an integer
/// that fits an `i64` (or a `u64`, then `Huge`), otherwise a float; `None`
/// when the float is out of range.
fn number_probe(text: &str) -> Option<Probe<'static>> {
    let is_integer = !text.contains(['.', 'e', 'E']);
    if is_integer {
        let (negative, digits) = match text.strip_prefix('-') {
            Some(digits) => (true, digits),
            None => (false, text),
        };
        if let Ok(magnitude) = digits.parse::<u64>() {
            return Some(match (negative, i64::try_from(magnitude)) {
                (false, Ok(number)) => Probe::Integer(number),
                (false, Err(_)) => Probe::Huge,
                // serde_json reads `-0` as a float.
                (true, _) if magnitude == 0 => Probe::Float,
                (true, _) => 0i64
                    .checked_sub_unsigned(magnitude)
                    .map_or(Probe::Float, Probe::Integer),
            });
        }
    }
    text.parse::<f64>()
        .ok()
        .filter(|number| number.is_finite())
        .map(|_| Probe::Float)
}
