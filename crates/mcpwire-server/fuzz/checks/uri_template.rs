//! The property of the `uri_template` fuzz target, shared with the test
//! that replays its corpus (`tests/it/fuzz_corpus.rs`).
//!
//! The input's first line is a template, the rest a URI (what a client
//! sends in `resources/read`). Beyond "never panics" (parsing, matching,
//! expanding), it checks:
//! * a template that parses keeps its text;
//! * a match only yields variables the template names;
//! * expanding a template of any number of expressions (any operator,
//!   several variables, explode, prefix modifiers; a variable named in
//!   several places is written the same way in each, without a modifier)
//!   with non-empty values of unreserved characters other than `.` gives a
//!   URI that the template matches, and the values it reads back expand to
//!   that same URI: what a server advertises, a client can read, and the
//!   server sees what was written.

use std::collections::BTreeMap;

use mcpwire_server::uri_template::{MAX_MATCH_LEN, TemplateValue, UriTemplate, Variables};

/// Whether every variable named more than once is written the same way
/// each time, without a prefix or explode modifier (`{x:2}{x}` cannot
/// read back one value for `x`, nor can `{x*}{/x}`, which reads a list and
/// a string, and `{?x*,x*}` reads every item twice).
fn repeats_agree(template: &str) -> bool {
    let mut specs: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for body in template
        .split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}'))
        .map(|(body, _)| body)
    {
        let list = body.trim_start_matches(['+', '#', '.', '/', ';', '?', '&']);
        for spec in list.split(',') {
            let name = spec.split(':').next().unwrap_or(spec).trim_end_matches('*');
            specs.entry(name).or_default().push(spec);
        }
    }
    specs.values().all(|seen| {
        seen.len() == 1
            || seen
                .iter()
                .all(|spec| *spec == seen[0] && !spec.contains([':', '*']))
    })
}

/// Checks one input.
pub(crate) fn check(data: &[u8]) {
    let (template, uri) = match data.iter().position(|&byte| byte == b'\n') {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &[][..]),
    };
    let template = String::from_utf8_lossy(template);
    let uri = String::from_utf8_lossy(uri);
    let Ok(parsed) = UriTemplate::parse(&template) else {
        return;
    };
    assert_eq!(parsed.as_str(), template);
    assert_eq!(parsed.to_string(), template);
    let names = parsed.variable_names();
    if let Some(variables) = parsed.match_uri(&uri) {
        assert!(uri.len() <= MAX_MATCH_LEN);
        for name in variables.keys() {
            assert!(
                names.contains(&name.as_str()),
                "a match named {name:?}, not in the template"
            );
        }
    }
    if !repeats_agree(&template) {
        return;
    }
    // Values made of the URI's bytes, mapped onto `[A-Za-z0-9_~-]`.
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_~";
    let mut bytes = uri.bytes().cycle();
    let mut variables = Variables::new();
    for (index, name) in names.iter().enumerate() {
        let len = 1 + bytes.next().map_or(index, usize::from) % 6;
        let value: String = (0..len)
            .map(|_| {
                let byte = bytes.next().unwrap_or(b'x');
                char::from(ALPHABET[usize::from(byte) % ALPHABET.len()])
            })
            .collect();
        variables.insert((*name).to_owned(), TemplateValue::String(value));
    }
    let expanded = parsed.expand(&variables);
    if expanded.len() <= MAX_MATCH_LEN {
        let (matched, exhausted) = parsed.match_uri_reporting_exhaustion(&expanded);
        // A search that ran out of its work budget may miss the split (documented; seen for
        // templates of a dozen adjacent list expressions): bounded, not wrong.
        if exhausted {
            return;
        }
        let Some(matched) = matched else {
            panic!("{template:?} does not match its own expansion {expanded:?}");
        };
        assert_eq!(
            parsed.expand(&matched),
            expanded,
            "{template:?} reads {matched:?} from its expansion {expanded:?}"
        );
    }
}
