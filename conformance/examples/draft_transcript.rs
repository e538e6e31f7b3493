//! Drafts a wire transcript: sends a transcript's `>` lines to a fresh
//! everything-server session and prints the transcript back with what the
//! server actually answered as `<` entries.
//!
//! ```text
//! cargo run -p conformance --example draft_transcript -- transcripts/2025-11-25/tools.txt
//! ```
//!
//! Comments, blank lines and `>` lines are copied; existing `<` entries
//! are dropped and replaced by the answers received (short ones on one
//! line, long ones pretty-printed). Values no transcript should pin get
//! placeholders: `serverInfo.version`, error messages and the schema
//! validator's wording in tool errors become `"$string"`, and the id of each request the server sends becomes
//! `"$capture:<kind><n>"` (`sampling`, `elicitation`, `elicitation2`, ...),
//! which a following `>` reply names as `"${<kind><n>}"`.
//!
//! The output is a draft: **read every expectation against the spec**
//! before committing it; it shows what the server does, not what it should
//! do. Each `>` entry must fit on one line here.

use std::collections::BTreeMap;
use std::time::Duration;

use conformance::transcript::matching::{Captures, check_message, substitute};
use mcpwire_jsonrpc::{Packet, memory};
use serde_json::{Value, json};

/// How long to wait for more answers after the last one arrived.
const QUIET: Duration = Duration::from_millis(700);

/// Answers up to this long go on one line.
const ONE_LINE: usize = 150;

fn show(value: &Value) -> Result<String, serde_json::Error> {
    let compact = serde_json::to_string(value)?;
    if compact.len() <= ONE_LINE {
        Ok(compact)
    } else {
        serde_json::to_string_pretty(value)
    }
}

/// Replaces values a transcript should not pin by placeholders.
fn scrub(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map.iter_mut() {
                let is_info = key == "serverInfo" || key == "io.modelcontextprotocol/serverInfo";
                if is_info && let Some(version) = inner.get_mut("version") {
                    *version = json!("$string");
                }
                if key == "error"
                    && let Some(message) = inner.get_mut("message")
                {
                    *message = json!("$string");
                }
                // The schema validator's wording is not the protocol's.
                let validator_text = key == "text"
                    && inner
                        .as_str()
                        .is_some_and(|text| text.starts_with("invalid arguments for tool"));
                if validator_text {
                    *inner = json!("$string");
                }
                scrub(inner);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(scrub),
        _ => {}
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(path) = std::env::args().nth(1) else {
        return Err("usage: draft_transcript <transcript.txt>".into());
    };
    let text = std::fs::read_to_string(&path)?;
    let server = conformance::everything::server()?;
    let (mut client, server_end) = memory::pair(64);
    tokio::spawn(async move { server.serve(server_end).await });
    let mut captures = Captures::new();
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    let mut output = String::new();
    let mut in_expectation = false;
    for line in text.lines() {
        let is_entry = line.starts_with('>') || line.starts_with('<');
        let is_break = line.trim().is_empty() || line.starts_with('#');
        if in_expectation && !is_entry && !is_break {
            continue;
        }
        in_expectation = line.starts_with('<');
        if in_expectation {
            continue;
        }
        output.push_str(line);
        output.push('\n');
        let Some(sent) = line.strip_prefix('>') else {
            continue;
        };
        let message = substitute(&serde_json::from_str(sent)?, &captures)?;
        client
            .send(Packet::from_slice(&serde_json::to_vec(&message)?)?)
            .await?;
        while let Ok(Some(received)) = tokio::time::timeout(QUIET, client.recv()).await {
            let packet = received?.into_packet()?;
            let mut answer: Value = serde_json::from_slice(&packet.to_vec())?;
            scrub(&mut answer);
            if let (Some(method), Some(id)) = (answer.get("method"), answer.get("id")) {
                let kind = method.as_str().unwrap_or("request");
                let kind = kind.split('/').next().unwrap_or(kind).to_owned();
                let count = kinds.entry(kind.clone()).or_default();
                *count += 1;
                let name = if *count == 1 {
                    kind
                } else {
                    format!("{kind}{count}")
                };
                let pattern = json!({"id": format!("$capture:{name}")});
                check_message(&pattern, &json!({"id": id}), &mut captures)?;
                answer["id"] = json!(format!("$capture:{name}"));
            }
            output.push_str(&format!("< {}\n", show(&answer)?));
        }
    }
    // The transcript goes to stdout: that is this tool's whole output.
    #[allow(
        clippy::print_stdout,
        reason = "a command-line tool printing its result"
    )]
    {
        print!("{output}");
    }
    Ok(())
}
