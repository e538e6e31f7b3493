//! Wire transcripts: a conversation with a server written as the messages
//! sent (`>`) and the messages expected back (`<`), replayed over an
//! in-memory transport.
//!
//! The format (documented for authors in `transcripts/README.md`):
//!
//! - `# ...` lines are comments; blank lines separate entries.
//! - `> JSON` sends a message (or a batch) to the server.
//! - `< JSON` expects the server's next message to equal JSON, compared as
//!   JSON values (numbers by value, so `30` equals `30.0`), with the
//!   placeholders of [`matching`].
//! - An entry's JSON may continue on the following lines, up to the next
//!   blank line, comment or entry, so long expectations can be
//!   pretty-printed.
//!
//! Expectations are checked in order. A transcript stays deterministic by
//! sending one request at a time and expecting everything it causes (its
//! notifications, requests to the client, its answer) before the next.
//! After the last entry the client closes its side, and the server must
//! then end the session without sending anything more.

pub mod matching;
mod replay;

use std::fmt;

use serde_json::Value;

pub use replay::{ReplayError, replay};

/// Which way a message travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// From the client (the transcript) to the server: `>`.
    Send,
    /// From the server, as expected: `<`.
    Expect,
}

/// One message of a transcript.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Which way it travels.
    pub direction: Direction,
    /// The message, with placeholders still in it.
    pub message: Value,
    /// The 1-based line the entry starts on, for error messages.
    pub line: usize,
}

/// A parsed transcript: its entries in order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Transcript {
    /// The entries, in the order they are replayed.
    pub entries: Vec<Entry>,
}

/// Why a transcript's text could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The 1-based line of the problem.
    pub line: usize,
    /// What is wrong, as a sentence.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ParseError {}

/// An entry whose JSON text is still being collected.
struct Pending {
    direction: Direction,
    text: String,
    line: usize,
}

impl Pending {
    fn finish(self) -> Result<Entry, ParseError> {
        let message = serde_json::from_str(&self.text).map_err(|error| ParseError {
            line: self.line,
            message: format!("the entry is not valid JSON: {error}"),
        })?;
        Ok(Entry {
            direction: self.direction,
            message,
            line: self.line,
        })
    }
}

impl Transcript {
    /// Reads a transcript from its text.
    ///
    /// # Errors
    ///
    /// When a line is neither a comment, blank, an entry nor the
    /// continuation of one, or an entry is not valid JSON.
    pub fn parse(text: &str) -> Result<Self, ParseError> {
        let mut entries = Vec::new();
        let mut pending: Option<Pending> = None;
        for (index, line) in text.lines().enumerate() {
            let number = index + 1;
            let trimmed = line.trim_end();
            let starts_entry = trimmed.starts_with('>') || trimmed.starts_with('<');
            if (trimmed.is_empty() || trimmed.starts_with('#') || starts_entry)
                && let Some(done) = pending.take()
            {
                entries.push(done.finish()?);
            }
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            if starts_entry {
                let direction = if trimmed.starts_with('>') {
                    Direction::Send
                } else {
                    Direction::Expect
                };
                pending = Some(Pending {
                    direction,
                    text: trimmed[1..].to_owned(),
                    line: number,
                });
                continue;
            }
            match &mut pending {
                Some(entry) => {
                    entry.text.push('\n');
                    entry.text.push_str(trimmed);
                }
                None => {
                    return Err(ParseError {
                        line: number,
                        message: format!(
                            "expected `>`, `<`, `#` or a blank line, found {trimmed:?}"
                        ),
                    });
                }
            }
        }
        if let Some(done) = pending {
            entries.push(done.finish()?);
        }
        Ok(Self { entries })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn entries_keep_their_direction_order_and_line() {
        let text = "# a comment\n> {\"a\": 1}\n\n< {\"b\": 2}\n";
        let transcript = Transcript::parse(text).unwrap();
        assert_eq!(
            transcript.entries,
            [
                Entry {
                    direction: Direction::Send,
                    message: json!({"a": 1}),
                    line: 2
                },
                Entry {
                    direction: Direction::Expect,
                    message: json!({"b": 2}),
                    line: 4
                },
            ]
        );
    }

    #[test]
    fn an_entry_continues_until_the_next_entry_comment_or_blank_line() {
        let text = "< {\n  \"a\": [\n    1\n  ]\n}\n> [1,\n 2]\n# end\n";
        let transcript = Transcript::parse(text).unwrap();
        assert_eq!(transcript.entries.len(), 2);
        assert_eq!(transcript.entries[0].message, json!({"a": [1]}));
        assert_eq!(transcript.entries[1].message, json!([1, 2]));
        assert_eq!(transcript.entries[1].line, 6);
    }

    #[test]
    fn invalid_json_names_the_entry_line() {
        let error = Transcript::parse("# x\n> {\"a\":\n\n").unwrap_err();
        assert_eq!(error.line, 2);
        assert!(error.message.contains("not valid JSON"), "{error}");
    }

    #[test]
    fn a_stray_line_outside_an_entry_is_refused() {
        let error = Transcript::parse("# x\nhello\n").unwrap_err();
        assert_eq!(error.line, 2);
    }
}
