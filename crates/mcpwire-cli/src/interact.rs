//! Requests from the server (sampling, elicitation): answered by asking
//! the user on a terminal, refused with a clear error when stdin is not one.

use std::io::{BufRead, IsTerminal, Write};

use mcpwire::client::{BoxFuture, ClientHandler, HandlerContext};
use mcpwire::jsonrpc::{ErrorCode, ErrorObject};
use mcpwire::types::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
};
use serde_json::{Map, Value, json};
use tokio::sync::Mutex;

/// The JSON-RPC error code of a request the user could not be asked about
/// (a server error in the implementation-defined range).
const NO_TERMINAL: i64 = -32001;

/// Answers sampling and elicitation requests through the terminal; one
/// question at a time.
pub(crate) struct Interactive {
    /// Whether stdin is a terminal (else every request is refused).
    terminal: bool,
    /// Serializes questions so that two requests do not interleave.
    asking: Mutex<()>,
}

impl Interactive {
    /// A handler that asks on this process's terminal, if it has one.
    pub(crate) fn new() -> Self {
        Self {
            terminal: std::io::stdin().is_terminal(),
            asking: Mutex::new(()),
        }
    }

    /// The refusal for `what` when nobody can be asked; also said on stderr.
    fn refuse(what: &str) -> ErrorObject {
        let message = format!(
            "the server asked for {what}, but stdin is not a terminal so the user cannot be asked; \
             run mcpwire interactively to answer it"
        );
        eprintln!("error: {message}");
        ErrorObject::new(ErrorCode(NO_TERMINAL), message)
    }
}

/// Reads one line from the terminal (blocking, on a thread of its own).
async fn ask(question: String) -> Result<String, ErrorObject> {
    tokio::task::spawn_blocking(move || {
        let mut stderr = std::io::stderr();
        let _ = write!(stderr, "{question}");
        let _ = stderr.flush();
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .map(|_| line.trim_end().to_owned())
    })
    .await
    .map_err(|error| ErrorObject::internal_error(error.to_string()))?
    .map_err(|error| ErrorObject::internal_error(format!("reading the terminal failed: {error}")))
}

/// Whether the user said yes.
async fn confirm(question: &str) -> Result<bool, ErrorObject> {
    let answer = ask(format!("{question} [y/N] ")).await?;
    Ok(matches!(answer.to_lowercase().as_str(), "y" | "yes"))
}

/// Converts a typed answer to the JSON type a form field asks for; `None`
/// when it does not fit.
pub(crate) fn field_value(schema: &Value, text: &str) -> Option<Value> {
    match schema.get("type").and_then(Value::as_str) {
        Some("boolean") => match text.to_lowercase().as_str() {
            "y" | "yes" | "true" => Some(Value::Bool(true)),
            "n" | "no" | "false" => Some(Value::Bool(false)),
            _ => None,
        },
        Some("integer") => text.parse::<i64>().ok().map(Value::from),
        Some("number") => text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number),
        _ => {
            let options: Vec<&str> = schema
                .get("enum")
                .and_then(Value::as_array)
                .map(|values| values.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            (options.is_empty() || options.contains(&text)).then(|| Value::String(text.to_owned()))
        }
    }
}

/// Asks for every field of a form, by its schema; `None` when the user
/// declined (an empty answer to a required field).
async fn fill_form(schema: &Value) -> Result<Option<Map<String, Value>>, ErrorObject> {
    let empty = Map::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut content = Map::new();
    for (name, field) in properties {
        let kind = field
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("string");
        let title = field.get("title").and_then(Value::as_str).unwrap_or(name);
        let mut question = format!("  {title} ({kind}");
        if let Some(options) = field.get("enum").and_then(Value::as_array) {
            let options: Vec<String> = options.iter().map(ToString::to_string).collect();
            question.push_str(&format!(": one of {}", options.join(", ")));
        }
        if !required.contains(&name.as_str()) {
            question.push_str(", optional");
        }
        question.push_str("): ");
        if let Some(description) = field.get("description").and_then(Value::as_str) {
            eprintln!("  {description}");
        }
        // A bounded number of attempts per field, so a confused user can leave.
        let mut value = None;
        for _ in 0..3 {
            let answer = ask(question.clone()).await?;
            if answer.is_empty() {
                break;
            }
            match field_value(field, &answer) {
                Some(typed) => {
                    value = Some(typed);
                    break;
                }
                None => eprintln!("  that is not a valid {kind}"),
            }
        }
        match value {
            Some(value) => {
                content.insert(name.clone(), value);
            }
            None if required.contains(&name.as_str()) => return Ok(None),
            None => {}
        }
    }
    Ok(Some(content))
}

/// Opens `url` in the desktop's browser.
fn open_url(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    if let Err(error) = std::process::Command::new(opener).arg(url).spawn() {
        eprintln!("could not open a browser ({error}); open the URL yourself");
    }
}

fn from_json<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, ErrorObject> {
    serde_json::from_value(value).map_err(|error| ErrorObject::internal_error(error.to_string()))
}

impl Interactive {
    /// Answers a sampling request by letting the user write the reply.
    pub(crate) async fn sample(
        &self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, ErrorObject> {
        if !self.terminal {
            return Err(Self::refuse("a sampled message (sampling/createMessage)"));
        }
        let _turn = self.asking.lock().await;
        let params = serde_json::to_value(&params).unwrap_or_default();
        eprintln!("\nThe server asks the model (you) for a message:");
        if let Some(system) = params.get("systemPrompt").and_then(Value::as_str) {
            eprintln!("  system: {system}");
        }
        for message in params
            .get("messages")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let role = message.get("role").and_then(Value::as_str).unwrap_or("?");
            let text = message
                .get("content")
                .and_then(|content| content.get("text"))
                .and_then(Value::as_str)
                .map_or_else(
                    || {
                        message
                            .get("content")
                            .map(ToString::to_string)
                            .unwrap_or_default()
                    },
                    str::to_owned,
                );
            eprintln!("  {role}: {text}");
        }
        let reply = ask("Your reply (empty to refuse): ".to_owned()).await?;
        if reply.is_empty() {
            return Err(ErrorObject::new(
                ErrorCode(-1),
                "the user refused the sampling request",
            ));
        }
        from_json(json!({
            "role": "assistant",
            "content": {"type": "text", "text": reply},
            "model": "human-at-the-terminal",
            "stopReason": "endTurn"
        }))
    }

    /// Answers an elicitation request: form fields asked one by one, or a
    /// URL shown in full and opened only if the user agrees.
    pub(crate) async fn ask_user(
        &self,
        params: ElicitRequestParams,
    ) -> Result<ElicitResult, ErrorObject> {
        if !self.terminal {
            return Err(Self::refuse("input from the user (elicitation/create)"));
        }
        let _turn = self.asking.lock().await;
        let params = serde_json::to_value(&params).unwrap_or_default();
        let message = params
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default();
        eprintln!("\nThe server asks: {message}");
        if params.get("mode").and_then(Value::as_str) == Some("url") {
            let url = params
                .get("url")
                .and_then(Value::as_str)
                .unwrap_or_default();
            // The whole URL, so the user sees where it leads before agreeing.
            eprintln!("  URL: {url}");
            if confirm("Open this URL?").await? {
                open_url(url);
                return from_json(json!({"action": "accept"}));
            }
            return from_json(json!({"action": "decline"}));
        }
        let schema = params.get("requestedSchema").cloned().unwrap_or_default();
        if !confirm("Answer it?").await? {
            return from_json(json!({"action": "decline"}));
        }
        match fill_form(&schema).await? {
            Some(content) => from_json(json!({"action": "accept", "content": content})),
            None => from_json(json!({"action": "cancel"})),
        }
    }
}

impl ClientHandler for Interactive {
    fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: HandlerContext,
    ) -> BoxFuture<'_, Result<CreateMessageResult, ErrorObject>> {
        Box::pin(self.sample(params))
    }

    fn elicit(
        &self,
        params: ElicitRequestParams,
        _context: HandlerContext,
    ) -> BoxFuture<'_, Result<ElicitResult, ErrorObject>> {
        Box::pin(self.ask_user(params))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_answers_are_typed_by_their_field_schema() {
        assert_eq!(
            field_value(&json!({"type": "boolean"}), "yes"),
            Some(json!(true))
        );
        assert_eq!(
            field_value(&json!({"type": "integer"}), "42"),
            Some(json!(42))
        );
        assert_eq!(field_value(&json!({"type": "integer"}), "4.2"), None);
        assert_eq!(
            field_value(&json!({"type": "number"}), "4.5"),
            Some(json!(4.5))
        );
        assert_eq!(
            field_value(&json!({"type": "string"}), "hi"),
            Some(json!("hi"))
        );
        let choice = json!({"type": "string", "enum": ["red", "blue"]});
        assert_eq!(field_value(&choice, "red"), Some(json!("red")));
        assert_eq!(field_value(&choice, "green"), None);
    }
}
