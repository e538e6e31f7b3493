//! Newline-delimited JSON-RPC over blocking `std::io`, for a program that
//! has no async runtime: [`LineReader`] frames and classifies what a reader
//! yields, [`write_line`] writes one packet as one line.

use std::io::{self, Read, Write};

use bytes::BytesMut;

use crate::classify::Inbound;
use crate::codec::LineCodec;
use crate::encode::write_packet;
use crate::message::Packet;

/// How much is read from the reader at a time.
const READ_CHUNK: usize = 8 * 1024;

/// Reads JSON-RPC texts, one per line, from a blocking reader (a pipe,
/// `std::io::stdin()`, a `TcpStream`, a file of recorded traffic).
///
/// An iterator of [`Inbound`]s: each line is framed and classified by a
/// [`LineCodec`] (blank lines skipped, `\r\n` accepted, lines longer than
/// the codec's limit refused without being buffered whole), and a line
/// that is not a valid message is yielded as [`Inbound::Invalid`], to be
/// answered, never as an `Err`. `Err` is an I/O failure of the reader; the
/// iterator ends when the reader does (a last line without a newline is
/// still yielded).
///
/// ```
/// use mcpwire_jsonrpc::{Inbound, LineReader, Message};
///
/// let wire = b"{\"jsonrpc\":\"2.0\",\"method\":\"hello\"}\r\n\nnot json\n";
/// let mut lines = LineReader::new(&wire[..]);
/// assert!(matches!(lines.next(), Some(Ok(Inbound::Single(Message::Notification(_))))));
/// assert!(matches!(lines.next(), Some(Ok(Inbound::Invalid(_)))));
/// assert!(lines.next().is_none());
/// ```
#[derive(Debug)]
pub struct LineReader<R> {
    reader: R,
    codec: LineCodec,
    buf: BytesMut,
    eof: bool,
}

impl<R: Read> LineReader<R> {
    /// Reads from `reader` with the default line limit ([`LineCodec::new`]).
    pub fn new(reader: R) -> Self {
        Self::with_codec(reader, LineCodec::new())
    }

    /// Reads from `reader`, framing with `codec` (for another line limit).
    pub fn with_codec(reader: R, codec: LineCodec) -> Self {
        Self {
            reader,
            codec,
            buf: BytesMut::new(),
            eof: false,
        }
    }

    /// The next JSON text, `Ok(None)` once the reader has ended.
    ///
    /// # Errors
    ///
    /// When reading fails (other than by an interruption, which is retried).
    pub fn read_inbound(&mut self) -> io::Result<Option<Inbound>> {
        let mut chunk = [0u8; READ_CHUNK];
        loop {
            let line = if self.eof {
                self.codec.decode_eof(&mut self.buf)
            } else {
                self.codec.decode(&mut self.buf)
            };
            if let Some(line) = line {
                return Ok(Some(line.unwrap_or_else(Inbound::from)));
            }
            if self.eof {
                return Ok(None);
            }
            match self.reader.read(&mut chunk) {
                Ok(0) => self.eof = true,
                Ok(read) => self.buf.extend_from_slice(&chunk[..read]),
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => return Err(error),
            }
        }
    }

    /// The reader, back.
    pub fn into_inner(self) -> R {
        self.reader
    }
}

impl<R: Read> Iterator for LineReader<R> {
    type Item = io::Result<Inbound>;

    fn next(&mut self) -> Option<Self::Item> {
        self.read_inbound().transpose()
    }
}

/// Writes `packet` to `writer` as one line, newline included, in one
/// `write_all`; flushing is the caller's (a pipe's reader sees nothing of a
/// `BufWriter`'s data until then).
///
/// # Errors
///
/// When writing fails.
pub fn write_line(writer: &mut impl Write, packet: &Packet) -> io::Result<()> {
    let mut line = Vec::new();
    write_packet(&mut line, packet);
    line.push(b'\n');
    writer.write_all(&line)
}
