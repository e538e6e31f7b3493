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

use crate::string_end::{StringEnd, find_string_end_pausing, resume_string_end};

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

/// How much of a long value's text is copied at a time while it is
/// skipped: less than the L1 data cache, so that the copy reads bytes the
/// scan has just read.
const COPY_PIECE: usize = 16 * 1024;

/// A copy of a payload's `text`, in a kept buffer when it is large (see
/// `recycle`).
fn owned(text: &str) -> String {
    let mut copy = crate::recycle::take(text.len());
    copy.push_str(text);
    copy
}

/// The copy of a value being skipped by [`Cursor::raw_owned`].
///
/// A payload is kept as its own text, so its bytes are read twice: by the
/// scan and by the copy. For a payload larger than the L1 cache, a copy
/// after the scan reads everything again from L2; copying a piece at a
/// time while the scan goes on (string scans pause for it) took 5-10 %
/// off the whole decode of a 64 KiB payload (interleaved A/B runs).
struct PayloadCopy {
    /// Where the value's text starts.
    start: usize,
    /// The text from `start` copied so far; it stays empty for values
    /// shorter than a piece, which are copied in one go at their end.
    text: String,
}

impl PayloadCopy {
    /// The index up to which the text has been copied.
    fn copied_up_to(&self) -> usize {
        self.start + self.text.len()
    }
}

/// A position in a JSON text.
pub(crate) struct Cursor<'a> {
    text: &'a str,
    at: usize,
    /// The value being copied while it is skipped, if any.
    copy: Option<PayloadCopy>,
    /// Where string scans pause so that the copy can catch up with them:
    /// a piece past what is copied, or never when nothing is.
    pause_at: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Self {
            text,
            at: 0,
            copy: None,
            pause_at: usize::MAX,
        }
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
    ///
    /// Compact JSON has no whitespace between tokens, so one comparison
    /// settles most calls before the whitespace loop.
    #[inline]
    pub(crate) fn peek(&mut self) -> Option<u8> {
        match self.bytes().get(self.at) {
            Some(&byte) if byte > b' ' => Some(byte),
            _ => {
                self.skip_whitespace();
                self.bytes().get(self.at).copied()
            }
        }
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

    /// Skips one value and returns a copy of its text, made while it is
    /// skipped (see [`PayloadCopy`]).
    pub(crate) fn raw_owned(&mut self) -> Result<String, SyntaxError> {
        if self.copy.is_some() {
            // Payloads never nest; copying after the scan stays correct.
            return self.raw_text().map(owned);
        }
        self.skip_whitespace();
        let start = self.at;
        if self.text.len().saturating_sub(start) <= COPY_PIECE {
            // The scan cannot outrun the cache: copy after it, in one go.
            return self.raw_text().map(owned);
        }
        self.copy = Some(PayloadCopy {
            start,
            text: String::new(),
        });
        self.pause_at = start.saturating_add(COPY_PIECE);
        let skipped = self.skip_value();
        let copy = self.copy.take();
        self.pause_at = usize::MAX;
        skipped?;
        let rest = self
            .text
            .get(copy.as_ref().map_or(start, PayloadCopy::copied_up_to)..self.at)
            .ok_or_else(|| self.error("a value"))?;
        Ok(match copy {
            Some(PayloadCopy { mut text, .. }) if !text.is_empty() => {
                text.push_str(rest);
                text
            }
            _ => owned(rest),
        })
    }

    /// Copies the text skipped so far, up to `at` or the character
    /// boundary just before it, and sets the next pause a piece further.
    fn catch_up_copy(&mut self, at: usize) {
        // Without a copy, or if the range were not text (it always is),
        // scans stop pausing; whatever is not copied yet is copied when
        // the value ends.
        self.pause_at = usize::MAX;
        let Some(copy) = &mut self.copy else {
            return;
        };
        let end = self.text.floor_char_boundary(at);
        let Some(piece) = self.text.get(copy.copied_up_to()..end) else {
            return;
        };
        if copy.text.capacity() == 0 {
            // The value may run to the end of the text, and growing the
            // copy would copy it again: room for all of it, from the kept
            // buffers when one fits. The text is at most one line or frame,
            // which the transport has already bounded.
            copy.text = crate::recycle::take(self.text.len().saturating_sub(copy.start));
        }
        copy.text.push_str(piece);
        // Past `at`, which is at most three bytes past `end`: each pause
        // is further into the text.
        self.pause_at = copy.copied_up_to().saturating_add(COPY_PIECE);
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
    ///
    /// Inlined into [`skip_value`](Self::skip_value): as a call, saving and
    /// restoring registers cost as much as reading a short name.
    #[inline(always)]
    fn skip_key(&mut self) -> Result<(), SyntaxError> {
        self.expect(b'"', "expected a member name")?;
        self.skip_string_body()?;
        self.expect(b':', "expected ':'")
    }

    /// Skips the rest of a string after its opening quote; returns whether
    /// it held an escape.
    ///
    /// Kept small enough to inline where strings are read: most strings
    /// end at their first search, and pauses and errors are handled out of
    /// line.
    #[inline]
    fn skip_string_body(&mut self) -> Result<bool, SyntaxError> {
        match find_string_end_pausing(self.bytes(), self.at, self.pause_at) {
            StringEnd::Closed { quote, escaped } => {
                self.at = quote + 1;
                Ok(escaped)
            }
            other => self.finish_string_body(other),
        }
    }

    /// Goes on with a string search that paused (copying what it read) or
    /// ended in an error.
    #[inline(never)]
    fn finish_string_body(&mut self, mut end: StringEnd) -> Result<bool, SyntaxError> {
        // Each pause is a piece further into the text: the loop ends.
        let (at, expected) = loop {
            match end {
                StringEnd::Closed { quote, escaped } => {
                    self.at = quote + 1;
                    return Ok(escaped);
                }
                StringEnd::Paused { at, escaped } => {
                    self.catch_up_copy(at);
                    end = resume_string_end(self.bytes(), at, escaped, self.pause_at);
                }
                StringEnd::BadEscape(at) => break (at, "invalid escape"),
                StringEnd::BadUnicodeEscape(at) => break (at, "invalid \\u escape"),
                StringEnd::Control(at) => break (at, "control character in a string"),
                StringEnd::Unterminated => break (self.text.len(), "unterminated string"),
            }
        };
        self.at = at;
        Err(self.error(expected))
    }

    /// Reads a string at the cursor (on its opening quote).
    ///
    /// Inlined where names and scalars are read, with the decoding of
    /// escapes out of line: a call that saves and restores the registers
    /// that decoding needs cost more than the search for a short string.
    #[inline(always)]
    pub(crate) fn string(&mut self) -> Result<Cow<'a, str>, SyntaxError> {
        let start = self.at;
        self.at += 1;
        let escaped = self.skip_string_body()?;
        if !escaped {
            // Between the quotes, which are ASCII: always a character range.
            let inner = self.text.get(start + 1..self.at.saturating_sub(1));
            return Ok(Cow::Borrowed(inner.unwrap_or_default()));
        }
        self.escaped_string(start)
    }

    /// Decodes the string from `start` (its opening quote) to the cursor,
    /// which holds an escape.
    #[inline(never)]
    fn escaped_string(&self, start: usize) -> Result<Cow<'a, str>, SyntaxError> {
        let quoted = self.text.get(start..self.at).unwrap_or_default();
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
    // Ids are mostly small non-negative integers: eighteen digits always
    // fit an `i64`, and the grammar has already refused leading zeros.
    if text.len() <= 18 && text.bytes().all(|byte| byte.is_ascii_digit()) {
        let value = text
            .bytes()
            .fold(0i64, |value, digit| value * 10 + i64::from(digit - b'0'));
        return Some(Probe::Integer(value));
    }
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
