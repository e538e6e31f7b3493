//! SKILL.md frontmatter read into JSON (YAML 1.2 core schema, by
//! yaml-rust2), and the SHA-256 digests of skill files.

use serde_json::{Map, Number, Value};
use sha2::{Digest, Sha256};
use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::{Yaml, YamlLoader};

use super::split_frontmatter;

/// The longest frontmatter read (64 KiB): the YAML text is a skill's
/// summary, not its content.
pub const MAX_FRONTMATTER_BYTES: usize = 64 * 1024;

/// The most YAML events one frontmatter may hold, so that parsing stays
/// bounded whatever the text.
const MAX_EVENTS: usize = 20_000;

/// Why a SKILL.md's frontmatter could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FrontmatterError {
    /// The text does not open with a `---` line closed by another.
    #[error("SKILL.md does not begin with a YAML frontmatter block between `---` lines")]
    Missing,
    /// The frontmatter is longer than [`MAX_FRONTMATTER_BYTES`].
    #[error("the frontmatter is {0} bytes long, more than the {MAX_FRONTMATTER_BYTES} read")]
    TooLong(usize),
    /// The YAML does not parse.
    #[error("the frontmatter is not valid YAML: {0}")]
    Yaml(String),
    /// The YAML is not one mapping of string keys to plain data.
    #[error("the frontmatter is not a mapping of plain data: {0}")]
    Shape(String),
    /// `name` or `description` is missing, empty or not a string.
    #[error("the frontmatter lacks a non-empty string `{0}`")]
    MissingField(&'static str),
}

/// `sha256:` and the 64 lowercase hex digits of the SHA-256 of `bytes`.
pub fn digest_of(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in hash {
        out.push(char::from(b"0123456789abcdef"[usize::from(byte >> 4)]));
        out.push(char::from(b"0123456789abcdef"[usize::from(byte & 0xf)]));
    }
    out
}

/// The frontmatter of the SKILL.md text `text` as a JSON object, with
/// non-empty string `name` and `description`.
///
/// # Errors
///
/// When there is no frontmatter, it is too long, is not YAML, uses
/// aliases (refused: they can expand without bound), is not a mapping of
/// string keys, or lacks `name` or `description`.
pub fn parse_frontmatter(text: &str) -> Result<Map<String, Value>, FrontmatterError> {
    let (yaml, _body) = split_frontmatter(text).ok_or(FrontmatterError::Missing)?;
    if yaml.len() > MAX_FRONTMATTER_BYTES {
        return Err(FrontmatterError::TooLong(yaml.len()));
    }
    check_events(yaml)?;
    let documents =
        YamlLoader::load_from_str(yaml).map_err(|e| FrontmatterError::Yaml(e.to_string()))?;
    let document = match documents.as_slice() {
        [one] => one,
        [] => return Err(FrontmatterError::Shape("it is empty".to_owned())),
        _ => {
            return Err(FrontmatterError::Shape(
                "it holds several documents".to_owned(),
            ));
        }
    };
    let Value::Object(map) = to_json(document)? else {
        return Err(FrontmatterError::Shape("it is not a mapping".to_owned()));
    };
    for field in ["name", "description"] {
        let present = map
            .get(field)
            .and_then(Value::as_str)
            .is_some_and(|value| !value.is_empty());
        if !present {
            return Err(FrontmatterError::MissingField(field));
        }
    }
    Ok(map)
}

/// Refuses aliases and bounds the number of events before the document
/// is built (the loader copies an anchor's tree at every alias).
fn check_events(yaml: &str) -> Result<(), FrontmatterError> {
    let mut parser = Parser::new_from_str(yaml);
    for _ in 0..MAX_EVENTS {
        let (event, _) = parser
            .next_token()
            .map_err(|e| FrontmatterError::Yaml(e.to_string()))?;
        match event {
            Event::StreamEnd => return Ok(()),
            Event::Alias(_) => {
                return Err(FrontmatterError::Shape(
                    "YAML aliases are not accepted".to_owned(),
                ));
            }
            _ => {}
        }
    }
    Err(FrontmatterError::Shape(format!(
        "more than {MAX_EVENTS} YAML nodes"
    )))
}

fn to_json(yaml: &Yaml) -> Result<Value, FrontmatterError> {
    Ok(match yaml {
        Yaml::Null => Value::Null,
        Yaml::Boolean(b) => Value::Bool(*b),
        Yaml::Integer(i) => Value::Number((*i).into()),
        Yaml::Real(text) => {
            let number = yaml
                .as_f64()
                .and_then(Number::from_f64)
                .ok_or_else(|| FrontmatterError::Shape(format!("{text} is not a JSON number")))?;
            Value::Number(number)
        }
        Yaml::String(s) => Value::String(s.clone()),
        Yaml::Array(items) => Value::Array(items.iter().map(to_json).collect::<Result<_, _>>()?),
        Yaml::Hash(hash) => {
            let mut map = Map::new();
            for (key, value) in hash {
                let key = match key {
                    Yaml::String(s) => s.clone(),
                    Yaml::Integer(i) => i.to_string(),
                    Yaml::Boolean(b) => b.to_string(),
                    other => {
                        return Err(FrontmatterError::Shape(format!(
                            "a key is not a string: {other:?}"
                        )));
                    }
                };
                map.insert(key, to_json(value)?);
            }
            Value::Object(map)
        }
        Yaml::Alias(_) | Yaml::BadValue => {
            return Err(FrontmatterError::Shape("an unreadable value".to_owned()));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn frontmatter_passes_every_field_through_as_json() {
        let text = "---\nname: pdf\ndescription: Work with PDFs\nlicense: Apache-2.0\n\
                    metadata:\n  version: \"2.1\"\n  tags: [a, b]\n  on: yes\n---\nbody\n";
        let map = parse_frontmatter(text).unwrap();
        assert_eq!(
            Value::Object(map),
            json!({"name": "pdf", "description": "Work with PDFs", "license": "Apache-2.0",
                   "metadata": {"version": "2.1", "tags": ["a", "b"], "on": "yes"}})
        );
    }

    #[test]
    fn frontmatter_without_name_or_description_is_refused() {
        assert_eq!(
            parse_frontmatter("---\ndescription: d\n---\n"),
            Err(FrontmatterError::MissingField("name"))
        );
        assert_eq!(
            parse_frontmatter("---\nname: a\ndescription: ''\n---\n"),
            Err(FrontmatterError::MissingField("description"))
        );
        assert_eq!(parse_frontmatter("# no\n"), Err(FrontmatterError::Missing));
    }

    #[test]
    fn yaml_aliases_are_refused_before_they_expand() {
        let text = "---\nname: a\ndescription: d\nx: &x [1, 2]\ny: [*x, *x]\n---\n";
        assert!(matches!(
            parse_frontmatter(text),
            Err(FrontmatterError::Shape(_))
        ));
    }

    #[test]
    fn digests_are_sha256_in_lowercase_hex() {
        assert_eq!(
            digest_of(b"abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
