//! The property of the `uri_template` fuzz target, shared with the test
//! that replays its corpus (`tests/blocks_uri_template.rs`).
//!
//! The input's first line is a template, the rest a URI (what a client
//! sends in `resources/read`). Beyond "never panics" (parsing, matching,
//! expanding), it checks:
//! * a template that parses keeps its text;
//! * a match only yields variables the template names;
//! * expanding a template of one expression (any operator, several
//!   variables, explode; no prefix modifier)
//!   with non-empty values of unreserved characters other than `.` gives a
//!   URI that the template matches: what a server advertises, a client can
//!   read.

use mcpwire_server::uri_template::{MAX_MATCH_LEN, TemplateValue, UriTemplate, Variables};

/// How many variables the template's expressions name, repeats included.
fn occurrences(template: &str) -> usize {
    template
        .split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}'))
        .map(|(expression, _)| expression.split(',').count())
        .sum()
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
    // Only templates of one expression: the split gives the earlier
    // expression the longest text that lets the rest match, without
    // looking at what it reads back, so templates of several expressions
    // may miss their own expansions (`{/a,b}{/c}` reads `/x/y/z` as three
    // items for two variables, two named expressions swap items, a
    // variable in two expressions may be split apart). Found by this
    // target; recorded in `docs/security.md` as not fixed.
    if template.contains(':')
        || occurrences(&template) != names.len()
        || template.matches('{').count() != 1
    {
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
        assert!(
            parsed.match_uri(&expanded).is_some(),
            "{template:?} does not match its own expansion {expanded:?}"
        );
    }
}
