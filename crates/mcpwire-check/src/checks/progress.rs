//! Notifications of the server well-formed against the revision's
//! `ServerNotification`, and progress judged per token: only tokens we
//! sent (PROG-05), increasing values (PROG-03), nothing after the answer
//! (PROG-07).

use std::collections::BTreeMap;

use mcpwire_types::ProtocolVersion;
use serde_json::{Value, json};

use super::Run;
use crate::probe::Note;
use crate::{Level, schema};

/// How many notifications of one method are checked against the schema:
/// a chatty server's thousandth log line adds nothing.
const MAX_CHECKED_PER_METHOD: usize = 5;

/// Checks every kind of notification received against the revision's
/// `ServerNotification`.
pub(super) fn well_formed(run: &mut Run, version: ProtocolVersion, notes: &[Note]) {
    let Ok(validator) = schema::definition(version, "ServerNotification") else {
        return;
    };
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for note in notes {
        let count = seen.entry(note.method.as_str()).or_insert(0);
        *count += 1;
        if *count > MAX_CHECKED_PER_METHOD {
            continue;
        }
        let mut message = json!({"jsonrpc": "2.0", "method": note.method});
        if !note.params.is_null()
            && let Some(map) = message.as_object_mut()
        {
            map.insert("params".into(), note.params.clone());
        }
        let problems = schema::violations(&validator, &message);
        let rule = match note.method.as_str() {
            "notifications/progress" => "PROG-01",
            "notifications/message" => "LOG-02",
            _ => "BASE-12",
        };
        if problems.is_empty() {
            run.pass(rule, format!("{} fits ServerNotification", note.method));
        } else {
            let text = format!(
                "the notification {} does not fit ServerNotification of {version}: {}",
                note.method,
                problems.join("; ")
            );
            let fix = "send notifications that the official schema of the revision accepts";
            run.find((rule, Level::Fail), text, (None, Some(message)), fix);
        }
    }
}

/// The progress values sent for `token` among `notes`, in order.
pub(super) fn values(notes: &[Note], token: &str) -> Vec<(f64, std::time::Instant)> {
    notes
        .iter()
        .filter(|n| n.method == "notifications/progress")
        .filter(|n| n.params.get("progressToken").and_then(Value::as_str) == Some(token))
        .filter_map(|n| Some((n.params.get("progress")?.as_f64()?, n.at)))
        .collect()
}

/// Judges the progress of one call (`sent`): `during` are the
/// notifications received while it ran, `token` its progress token.
pub(super) fn judge_call(
    run: &mut Run,
    (tool, sent): (&str, &Value),
    token: &str,
    during: &[Note],
) {
    let values = values(during, token);
    if values.is_empty() {
        return;
    }
    let increasing = values.windows(2).all(|w| match w {
        [a, b] => b.0 > a.0,
        _ => true,
    });
    let listed: Vec<f64> = values.iter().map(|v| v.0).collect();
    if increasing {
        run.pass(
            "PROG-03",
            format!("progress of {tool:?} increases: {listed:?}"),
        );
    } else {
        let message = format!("progress of {tool:?} does not increase: {listed:?}");
        let fix = "make every progress value greater than the one before, even without a total";
        run.find(
            ("PROG-03", Level::Fail),
            message,
            (Some(sent), Some(json!(listed))),
            fix,
        );
    }
}

/// Checks that every progress notification names a token we sent, and
/// that none came after its request was answered (`answered`: token ->
/// how many notifications had arrived when the answer did).
pub(super) fn judge_tokens(run: &mut Run, notes: &[Note], answered: &BTreeMap<String, usize>) {
    let mut foreign = 0;
    let mut late = 0;
    for (index, note) in notes.iter().enumerate() {
        if note.method != "notifications/progress" {
            continue;
        }
        let token = note.params.get("progressToken");
        let known = token.and_then(Value::as_str).and_then(|t| answered.get(t));
        match known {
            None => {
                foreign += 1;
                if foreign == 1 {
                    let message = "progress for a token the client never sent".to_owned();
                    let fix = "send progress only with the progressToken of an active request";
                    let received = Some(note.params.clone());
                    run.find(("PROG-05", Level::Fail), message, (None, received), fix);
                }
            }
            Some(&answered_at) if index >= answered_at => {
                late += 1;
                if late == 1 {
                    let message = "progress after its request was answered".to_owned();
                    let fix = "stop sending progress once the request's answer is sent";
                    let received = Some(note.params.clone());
                    run.find(("PROG-07", Level::Fail), message, (None, received), fix);
                }
            }
            Some(_) => {}
        }
    }
    if !answered.is_empty() {
        if foreign == 0 {
            run.pass("PROG-05", "progress only for tokens the client sent");
        }
        if late == 0 {
            run.pass("PROG-07", "no progress after a request was answered");
        }
    }
}
