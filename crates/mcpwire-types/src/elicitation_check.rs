//! Checking a form-mode elicitation answer against the schema that asked
//! for it (ELIC-15, ELIC-16) and filling the defaults of omitted fields
//! (ELIC-13, SEP-1034), shared by the client and the server runtimes.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Number;

use crate::{
    ElicitAction, ElicitResult, ElicitValue, NumberSchema, NumberType, PrimitiveSchemaDefinition,
    RequestedSchema, StringFormat, StringSchema,
};

/// Why submitted form content does not match its `requestedSchema`: one
/// problem per field, in field order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElicitationMismatch {
    /// `(field, what is wrong)` pairs.
    pub problems: Vec<(String, String)>,
}

impl fmt::Display for ElicitationMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (field, problem) in &self.problems {
            if !first {
                f.write_str("; ")?;
            }
            first = false;
            write!(f, "{field}: {problem}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ElicitationMismatch {}

impl RequestedSchema {
    /// Fills each field `content` omits with its schema's `default`, when
    /// the schema has one (SEP-1034: a client that supports defaults
    /// submits them for fields the user left alone).
    pub fn apply_defaults(&self, content: &mut BTreeMap<String, ElicitValue>) {
        for (name, property) in &self.properties {
            if content.contains_key(name) {
                continue;
            }
            if let Some(default) = property.default_value() {
                content.insert(name.clone(), default);
            }
        }
    }

    /// Checks submitted `content` against this schema: required fields are
    /// present, each value has its field's type, and lies within its
    /// bounds, format and choices. Fields the schema does not name are
    /// left alone (the schema does not forbid them).
    ///
    /// # Errors
    ///
    /// Every field that does not match, with the reason.
    pub fn check(
        &self,
        content: &BTreeMap<String, ElicitValue>,
    ) -> Result<(), ElicitationMismatch> {
        let mut problems = Vec::new();
        for name in self.required.iter().flatten() {
            if !content.contains_key(name) {
                problems.push((name.clone(), "is required".to_owned()));
            }
        }
        for (name, value) in content {
            if let Some(property) = self.properties.get(name)
                && let Err(problem) = property.check(value)
            {
                problems.push((name.clone(), problem));
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(ElicitationMismatch { problems })
        }
    }

    /// Checks a whole answer: an `accept` must carry content matching this
    /// schema (an absent content counts as empty); `decline` and `cancel`
    /// carry nothing to check.
    ///
    /// # Errors
    ///
    /// As [`RequestedSchema::check`].
    pub fn check_result(&self, result: &ElicitResult) -> Result<(), ElicitationMismatch> {
        if result.action != ElicitAction::Accept {
            return Ok(());
        }
        match &result.content {
            Some(content) => self.check(content),
            None => self.check(&BTreeMap::new()),
        }
    }
}

impl PrimitiveSchemaDefinition {
    /// The field's `default`, as a submitted value would carry it.
    pub fn default_value(&self) -> Option<ElicitValue> {
        match self {
            Self::String(s) => s.default.clone().map(ElicitValue::String),
            Self::Number(n) => n.default.and_then(|d| number_value(n.schema_type, d)),
            Self::Boolean(b) => b.default.map(ElicitValue::Boolean),
            Self::UntitledSingleSelect(e) => e.default.clone().map(ElicitValue::String),
            Self::TitledSingleSelect(e) => e.default.clone().map(ElicitValue::String),
            Self::LegacyTitled(e) => e.default.clone().map(ElicitValue::String),
            Self::UntitledMultiSelect(e) => e.default.clone().map(ElicitValue::StringArray),
            Self::TitledMultiSelect(e) => e.default.clone().map(ElicitValue::StringArray),
        }
    }

    /// Checks one submitted value against this field.
    ///
    /// # Errors
    ///
    /// What is wrong with the value, as a sentence fragment.
    pub fn check(&self, value: &ElicitValue) -> Result<(), String> {
        match self {
            Self::String(schema) => check_string(schema, value),
            Self::Number(schema) => check_number(schema, value),
            Self::Boolean(_) => match value {
                ElicitValue::Boolean(_) => Ok(()),
                _ => Err("must be a boolean".to_owned()),
            },
            Self::UntitledSingleSelect(e) => check_choice(value, e.values.iter()),
            Self::LegacyTitled(e) => check_choice(value, e.values.iter()),
            Self::TitledSingleSelect(e) => check_choice(value, e.one_of.iter().map(|o| &o.value)),
            Self::UntitledMultiSelect(e) => {
                check_choices(value, e.items.values.iter(), (e.min_items, e.max_items))
            }
            Self::TitledMultiSelect(e) => check_choices(
                value,
                e.items.any_of.iter().map(|o| &o.value),
                (e.min_items, e.max_items),
            ),
        }
    }
}

fn number_value(kind: NumberType, value: f64) -> Option<ElicitValue> {
    let number = match kind {
        // A whole default of an integer field is written as an integer.
        NumberType::Integer if value.fract() == 0.0 && value.abs() < 9.0e15 =>
        {
            #[allow(clippy::cast_possible_truncation)]
            Number::from(value as i64)
        }
        _ => Number::from_f64(value)?,
    };
    Some(ElicitValue::Number(number))
}

fn check_string(schema: &StringSchema, value: &ElicitValue) -> Result<(), String> {
    let ElicitValue::String(text) = value else {
        return Err("must be a string".to_owned());
    };
    let length = text.chars().count() as u64;
    if let Some(min) = schema.min_length
        && length < min
    {
        return Err(format!("must be at least {min} characters long"));
    }
    if let Some(max) = schema.max_length
        && length > max
    {
        return Err(format!("must be at most {max} characters long"));
    }
    match &schema.format {
        Some(StringFormat::Email) if !looks_like_email(text) => {
            Err("must be an email address".to_owned())
        }
        Some(StringFormat::Uri) if !looks_like_uri(text) => Err("must be a URI".to_owned()),
        Some(StringFormat::Date) if !is_date(text) => Err("must be a date (YYYY-MM-DD)".to_owned()),
        Some(StringFormat::DateTime) if !is_date_time(text) => {
            Err("must be a date and time (RFC 3339)".to_owned())
        }
        _ => Ok(()),
    }
}

fn check_number(schema: &NumberSchema, value: &ElicitValue) -> Result<(), String> {
    let ElicitValue::Number(number) = value else {
        return Err("must be a number".to_owned());
    };
    let Some(float) = number.as_f64() else {
        return Err("must be a finite number".to_owned());
    };
    if schema.schema_type == NumberType::Integer && !(number.is_i64() || number.is_u64()) {
        return Err("must be an integer".to_owned());
    }
    if let Some(min) = schema.minimum
        && float < min
    {
        return Err(format!("must be at least {min}"));
    }
    if let Some(max) = schema.maximum
        && float > max
    {
        return Err(format!("must be at most {max}"));
    }
    Ok(())
}

fn check_choice<'a>(
    value: &ElicitValue,
    mut allowed: impl Iterator<Item = &'a String>,
) -> Result<(), String> {
    let ElicitValue::String(choice) = value else {
        return Err("must be one of the offered choices (a string)".to_owned());
    };
    if allowed.any(|a| a == choice) {
        Ok(())
    } else {
        Err(format!("{choice:?} is not one of the offered choices"))
    }
}

fn check_choices<'a>(
    value: &ElicitValue,
    allowed: impl Iterator<Item = &'a String>,
    (min, max): (Option<u64>, Option<u64>),
) -> Result<(), String> {
    let allowed: Vec<&String> = allowed.collect();
    let chosen: Vec<&str> = match value {
        ElicitValue::StringArray(items) => items.iter().map(String::as_str).collect(),
        // Before 2025-11-25 a multi-select travels as its choices joined by
        // ", " (see `ElicitResult::fit_to`).
        ElicitValue::String(joined) if joined.is_empty() => Vec::new(),
        ElicitValue::String(joined) => joined.split(", ").collect(),
        _ => return Err("must be a list of the offered choices".to_owned()),
    };
    if let Some(bad) = chosen.iter().find(|c| !allowed.iter().any(|a| a == *c)) {
        return Err(format!("{bad:?} is not one of the offered choices"));
    }
    let count = chosen.len() as u64;
    if let Some(min) = min
        && count < min
    {
        return Err(format!("must have at least {min} choices"));
    }
    if let Some(max) = max
        && count > max
    {
        return Err(format!("must have at most {max} choices"));
    }
    Ok(())
}

/// `local@domain` with a dot in the domain and no spaces: the shape, not
/// deliverability.
fn looks_like_email(text: &str) -> bool {
    let Some((local, domain)) = text.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !text.chars().any(char::is_whitespace)
        && !domain.contains('@')
}

/// An RFC 3986 scheme (a letter, then letters, digits, `+`, `-`, `.`),
/// a colon and no spaces.
fn looks_like_uri(text: &str) -> bool {
    let Some((scheme, rest)) = text.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        && !rest.is_empty()
        && !text.chars().any(char::is_whitespace)
}

/// `YYYY-MM-DD` with a month 1-12 and a day that month can have.
fn is_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return false;
    }
    let digits = |range: std::ops::Range<usize>| -> Option<u32> {
        text.get(range)?
            .chars()
            .try_fold(0u32, |acc, c| Some(acc * 10 + c.to_digit(10)?))
    };
    let (Some(year), Some(month), Some(day)) = (digits(0..4), digits(5..7), digits(8..10)) else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// RFC 3339 `date-time`: a date, `T`, `hh:mm:ss`, optional fraction, and
/// `Z` or an offset.
fn is_date_time(text: &str) -> bool {
    let Some((date, time)) = text.split_once(['T', 't']) else {
        return false;
    };
    if !is_date(date) {
        return false;
    }
    let (clock, offset) = if let Some(clock) = time.strip_suffix(['Z', 'z']) {
        (clock, None)
    } else if let Some(at) = time.rfind(['+', '-']) {
        (&time[..at], Some(&time[at + 1..]))
    } else {
        return false;
    };
    let clock = clock.split_once('.').map_or(clock, |(whole, fraction)| {
        if !fraction.is_empty() && fraction.chars().all(|c| c.is_ascii_digit()) {
            whole
        } else {
            ""
        }
    });
    let is_hms = |part: &str, parts: usize, limits: [u32; 3]| {
        let fields: Vec<&str> = part.split(':').collect();
        fields.len() == parts
            && fields.iter().zip(limits).all(|(field, limit)| {
                field.len() == 2 && field.parse::<u32>().is_ok_and(|n| n <= limit)
            })
    };
    // Seconds may be 60 on a leap second.
    is_hms(clock, 3, [23, 59, 60]) && offset.is_none_or(|offset| is_hms(offset, 2, [23, 59, 0]))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> RequestedSchema {
        serde_json::from_value(json!({
            "type": "object",
            "properties": {
                "name": { "type": "string", "minLength": 2, "maxLength": 5, "default": "Ada" },
                "email": { "type": "string", "format": "email" },
                "born": { "type": "string", "format": "date" },
                "seen": { "type": "string", "format": "date-time" },
                "home": { "type": "string", "format": "uri" },
                "age": { "type": "integer", "minimum": 0, "maximum": 150, "default": 36 },
                "score": { "type": "number", "maximum": 1.5 },
                "ok": { "type": "boolean", "default": true },
                "color": { "type": "string", "enum": ["red", "green"] },
                "size": { "type": "string", "oneOf": [{ "const": "s", "title": "Small" }] },
                "legacy": { "type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"] },
                "tags": { "type": "array", "items": { "type": "string", "enum": ["x", "y"] },
                          "maxItems": 1, "default": ["x"] },
                "flavours": { "type": "array", "minItems": 1,
                              "items": { "anyOf": [{ "const": "v", "title": "Vanilla" }] } }
            },
            "required": ["email", "age"]
        }))
        .unwrap()
    }

    fn content(value: serde_json::Value) -> BTreeMap<String, ElicitValue> {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn a_matching_answer_of_every_field_shape_passes_elic_15() {
        let answer = content(json!({
            "name": "Ada", "email": "ada@example.com", "born": "1815-12-10",
            "seen": "2024-02-29T10:00:00.5+01:00", "home": "https://example.com/a",
            "age": 36, "score": 1.25, "ok": false, "color": "red", "size": "s",
            "legacy": "b", "tags": ["y"], "flavours": ["v"]
        }));
        schema().check(&answer).unwrap();
    }

    #[test]
    fn each_kind_of_mismatch_is_reported_by_field() {
        let answer = content(json!({
            "name": "A", "email": "not-an-email", "born": "2023-02-29",
            "seen": "2024-01-01 10:00", "home": "no scheme", "age": 1.5, "score": 2,
            "ok": "yes", "color": "blue", "size": "m", "legacy": "c",
            "tags": ["x", "y"], "flavours": []
        }));
        let mismatch = schema().check(&answer).unwrap_err();
        let fields: Vec<&str> = mismatch.problems.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(
            fields,
            [
                "age", "born", "color", "email", "flavours", "home", "legacy", "name", "ok",
                "score", "seen", "size", "tags"
            ]
        );
        let missing = schema().check(&content(json!({}))).unwrap_err();
        assert_eq!(missing.to_string(), "email: is required; age: is required");
    }

    #[test]
    fn defaults_fill_only_omitted_fields_sep_1034() {
        let mut answer = content(json!({ "name": "Bob", "email": "b@example.org" }));
        schema().apply_defaults(&mut answer);
        assert_eq!(
            serde_json::to_value(&answer).unwrap(),
            json!({ "name": "Bob", "email": "b@example.org", "age": 36, "ok": true, "tags": ["x"] })
        );
        schema().check(&answer).unwrap();
    }

    #[test]
    fn a_multi_select_joined_for_an_older_revision_still_checks() {
        let field = &schema().properties["tags"];
        field.check(&ElicitValue::String("x".to_owned())).unwrap();
        assert!(
            field
                .check(&ElicitValue::String("x, z".to_owned()))
                .is_err()
        );
    }

    #[test]
    fn decline_and_cancel_need_no_content_but_accept_does() {
        let schema = schema();
        schema
            .check_result(&ElicitResult::new(ElicitAction::Decline))
            .unwrap();
        assert!(
            schema
                .check_result(&ElicitResult::new(ElicitAction::Accept))
                .is_err()
        );
    }
}
