//! JSON-RPC 2.0 over stdio with nothing but mcpwire's codec: no MCP, no
//! engine, no async runtime. Each line is classified (request,
//! notification, answer, batch, or text to refuse with the right error)
//! and answered: `echo` returns its params untouched (their JSON text is
//! never parsed into a tree), `sum` adds an array of numbers, a `log`
//! notification goes to stderr, anything else is an unknown method.

use std::io::Write;

use mcpwire_jsonrpc::{
    ClassifyError, ErrorObject, ErrorResponse, Inbound, LineReader, Message, Packet, RawJson,
    Request, Response, write_line,
};

fn main() -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    for inbound in LineReader::new(std::io::stdin().lock()) {
        let answer = match inbound? {
            Inbound::Single(message) => answer(message).map(Packet::from),
            // A batch gets an array of the answers to its requests, if any.
            Inbound::Batch(items) => {
                let answers: Vec<Message> = (items.into_iter())
                    .filter_map(|item| item.map_or_else(|error| refuse(&error), answer))
                    .collect();
                (!answers.is_empty()).then_some(Packet::Batch(answers))
            }
            Inbound::Invalid(error) => refuse(&error).map(Packet::from),
        };
        if let Some(packet) = answer {
            write_line(&mut stdout, &packet)?;
            stdout.flush()?;
        }
    }
    Ok(())
}

/// The error answer to text that was not a valid message, except when it
/// looked like an answer: its id would name a request of ours.
fn refuse(error: &ClassifyError) -> Option<Message> {
    (!error.is_answer_like()).then(|| error.to_error_response().into())
}

/// The answer to one message: requests only (this program sends none, so
/// answers are dropped, and notifications are never answered).
fn answer(message: Message) -> Option<Message> {
    let request = match message {
        Message::Request(request) => request,
        Message::Notification(note) if note.method == "log" => {
            eprintln!("log: {}", note.params.as_ref().map_or("", RawJson::get));
            return None;
        }
        _ => return None,
    };
    let Request { id, method, params } = request;
    let outcome = match method.as_str() {
        "echo" => params
            .map_or_else(|| RawJson::from_serialize(&()), Ok)
            .map_err(|e| internal(&e)),
        "sum" => sum(params.as_ref()),
        _ => Err(ErrorObject::method_not_found(&method)),
    };
    Some(match outcome {
        Ok(result) => Response { id, result }.into(),
        Err(error) => ErrorResponse::new(Some(id), error).into(),
    })
}

/// `sum`: params `[1, 2.5, ...]`, result their sum.
fn sum(params: Option<&RawJson>) -> Result<RawJson, ErrorObject> {
    let text = params.map_or("null", RawJson::get);
    let numbers: Vec<f64> = serde_json::from_str(text)
        .map_err(|e| ErrorObject::invalid_params(format!("sum takes an array of numbers: {e}")))?;
    // A fold from 0.0: `Iterator::sum` of no floats is -0.0.
    RawJson::from_serialize(&numbers.iter().fold(0.0, |sum, n| sum + n)).map_err(|e| internal(&e))
}

/// Serializing a plain value cannot fail, but if it did, the peer hears of it.
fn internal(error: &serde_json::Error) -> ErrorObject {
    ErrorObject::internal_error(error.to_string())
}
