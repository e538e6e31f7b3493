//! The RFC 6570 section 2 grammar: literals, expressions, operators, variable specs.

use super::{
    Expression, Modifier, Operator, Part, TemplateError, TemplateErrorKind, VarSpec,
    is_percent_triplet, push_percent_encoded,
};

/// Splits a template into literal parts and parsed expressions.
pub(super) fn parse(template: &str) -> Result<Vec<Part>, TemplateError> {
    let mut parts = Vec::new();
    let mut literal = String::new();
    // Always on a character boundary: it only advances by whole characters or ASCII bytes.
    let mut offset = 0;
    while let Some(character) = template[offset..].chars().next() {
        match character {
            '{' => {
                let body_start = offset + 1;
                let body_end = template[body_start..]
                    .find(['{', '}'])
                    .map(|found| body_start + found)
                    .filter(|&end| template.as_bytes().get(end) == Some(&b'}'))
                    .ok_or_else(|| error(offset, TemplateErrorKind::UnclosedExpression))?;
                if !literal.is_empty() {
                    parts.push(Part::Literal(std::mem::take(&mut literal)));
                }
                parts.push(Part::Expression(parse_expression(
                    &template[body_start..body_end],
                    body_start,
                )?));
                offset = body_end + 1;
            }
            '}' => return Err(error(offset, TemplateErrorKind::UnmatchedClosingBrace)),
            '%' => {
                if !is_percent_triplet(&template.as_bytes()[offset..]) {
                    return Err(error(offset, TemplateErrorKind::InvalidPercentEncoding));
                }
                literal.push_str(&template[offset..offset + 3]);
                offset += 3;
            }
            _ if is_literal_char(character) => {
                if character.is_ascii() {
                    literal.push(character);
                } else {
                    // RFC 6570 section 3.1: a literal character not allowed as such in a URI
                    // is written percent-encoded as UTF-8.
                    let mut buffer = [0_u8; 4];
                    for byte in character.encode_utf8(&mut buffer).bytes() {
                        push_percent_encoded(&mut literal, byte);
                    }
                }
                offset += character.len_utf8();
            }
            _ => {
                return Err(error(
                    offset,
                    TemplateErrorKind::InvalidCharacter(character),
                ));
            }
        }
    }
    if !literal.is_empty() {
        parts.push(Part::Literal(literal));
    }
    Ok(parts)
}

fn error(offset: usize, kind: TemplateErrorKind) -> TemplateError {
    TemplateError { offset, kind }
}

/// RFC 6570 `literals`: any Unicode character except controls, space, `"`, `'`, `%` (handled
/// separately), `<`, `>`, `\`, `^`, `` ` ``, `{`, `|` and `}`.
fn is_literal_char(character: char) -> bool {
    match character {
        '\u{21}'
        | '\u{23}'..='\u{24}'
        | '\u{26}'
        | '\u{28}'..='\u{3B}'
        | '\u{3D}'
        | '\u{3F}'..='\u{5B}'
        | '\u{5D}'
        | '\u{5F}'
        | '\u{61}'..='\u{7A}'
        | '\u{7E}' => true,
        // `ucschar` and `iprivate` are, roughly, every non-ASCII character but the C1 controls.
        other => u32::from(other) >= 0xA0,
    }
}

/// Parses the text between `{` and `}`; `start` is its byte offset in the template.
fn parse_expression(body: &str, start: usize) -> Result<Expression, TemplateError> {
    let Some(first) = body.chars().next() else {
        return Err(error(start - 1, TemplateErrorKind::EmptyExpression));
    };
    let operator = match first {
        '+' => Some(Operator::Reserved),
        '#' => Some(Operator::Fragment),
        '.' => Some(Operator::Label),
        '/' => Some(Operator::PathSegment),
        ';' => Some(Operator::PathParameter),
        '?' => Some(Operator::Query),
        '&' => Some(Operator::QueryContinuation),
        '=' | ',' | '!' | '@' | '|' => {
            return Err(error(start, TemplateErrorKind::ReservedOperator(first)));
        }
        _ => None,
    };
    let (operator, list, mut offset) = match operator {
        Some(operator) => (operator, &body[1..], start + 1),
        None => (Operator::Simple, body, start),
    };
    let mut variables = Vec::new();
    for spec in list.split(',') {
        variables.push(parse_varspec(spec, offset)?);
        offset += spec.len() + 1;
    }
    Ok(Expression {
        operator,
        variables,
    })
}

/// Parses `name`, `name*` or `name:N`.
fn parse_varspec(spec: &str, offset: usize) -> Result<VarSpec, TemplateError> {
    let (name, modifier) = if let Some(name) = spec.strip_suffix('*') {
        (name, Modifier::Explode)
    } else if let Some((name, length)) = spec.split_once(':') {
        let invalid = || {
            error(
                offset + name.len() + 1,
                TemplateErrorKind::InvalidPrefixLength(length.to_owned()),
            )
        };
        // RFC 6570 `max-length = %x31-39 0*3DIGIT`: 1 to 9999, no leading zero.
        let well_formed = (1..=4).contains(&length.len())
            && length.bytes().all(|byte| byte.is_ascii_digit())
            && !length.starts_with('0');
        if !well_formed {
            return Err(invalid());
        }
        let length = length.parse().map_err(|_| invalid())?;
        (name, Modifier::Prefix(length))
    } else {
        (spec, Modifier::None)
    };
    if !is_varname(name) {
        return Err(error(
            offset,
            TemplateErrorKind::InvalidVariableName(name.to_owned()),
        ));
    }
    Ok(VarSpec {
        name: name.to_owned(),
        modifier,
    })
}

/// RFC 6570 `varname = varchar *( ["."] varchar )` with
/// `varchar = ALPHA / DIGIT / "_" / pct-encoded`.
fn is_varname(name: &str) -> bool {
    let bytes = name.as_bytes();
    if bytes.is_empty() || bytes.first() == Some(&b'.') || bytes.last() == Some(&b'.') {
        return false;
    }
    let mut index = 0;
    let mut previous_was_dot = false;
    while let Some(&byte) = bytes.get(index) {
        match byte {
            b'.' if previous_was_dot => return false,
            b'.' => previous_was_dot = true,
            b'%' if is_percent_triplet(&bytes[index..]) => {
                previous_was_dot = false;
                index += 3;
                continue;
            }
            _ if byte.is_ascii_alphanumeric() || byte == b'_' => previous_was_dot = false,
            _ => return false,
        }
        index += 1;
    }
    true
}
