//! The stdio limit: a raw newline echo over pipes. Every line read from
//! stdin is written back to stdout unchanged; stdout is flushed whenever no
//! more input is already buffered, so pipelined lines travel in batches as
//! they would in the best possible server. Exits when stdin ends.

use std::io::{BufRead, Write};

fn main() -> std::io::Result<()> {
    let stdin = std::io::stdin();
    let mut input = std::io::BufReader::with_capacity(256 * 1024, stdin.lock());
    let mut output = std::io::BufWriter::with_capacity(256 * 1024, std::io::stdout().lock());
    let mut line = Vec::with_capacity(128 * 1024);
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        output.write_all(&line)?;
        if input.buffer().is_empty() {
            output.flush()?;
        }
    }
    output.flush()
}
