//! Matching a concrete URI against a template: split the URI by dynamic programming, then read
//! each expression's text back into variable values (rules in `UriTemplate::match_uri`).

use std::collections::BTreeMap;
use std::ops::Range;

use super::{
    Expression, Modifier, Operator, Part, TemplateValue, Variables, is_reserved, is_unreserved,
};

/// URIs longer than this many bytes never match. The split keeps one bit per URI byte per
/// template part, so the bound keeps memory small whatever a peer sends.
pub const MAX_MATCH_LEN: usize = 64 * 1024;

pub(super) fn match_uri(parts: &[Part], uri: &str) -> Option<Variables> {
    if uri.len() > MAX_MATCH_LEN {
        return None;
    }
    let alphabets: Vec<ByteSet> = (0..parts.len())
        .map(|index| alphabet_at(parts, index))
        .collect();
    let spans = split(uri.as_bytes(), parts, &alphabets)?;
    let mut variables = Variables::new();
    for (part, span) in parts.iter().zip(spans) {
        if let (Part::Expression(expression), Some(span)) = (part, span) {
            read_expression(expression, uri.get(span)?, &mut variables)?;
        }
    }
    Some(variables)
}

/// A set of bytes, one bit each.
#[derive(Debug, Clone, Copy, Default)]
struct ByteSet([u64; 4]);

impl ByteSet {
    fn insert(&mut self, byte: u8) {
        self.0[usize::from(byte >> 6)] |= 1 << (byte & 63);
    }

    fn remove(&mut self, byte: u8) {
        self.0[usize::from(byte >> 6)] &= !(1 << (byte & 63));
    }

    fn contains(&self, byte: u8) -> bool {
        self.0[usize::from(byte >> 6)] & (1 << (byte & 63)) != 0
    }
}

/// The bytes the expression at `index` may take; empty for literals.
fn alphabet_at(parts: &[Part], index: usize) -> ByteSet {
    let mut set = ByteSet::default();
    let Some(Part::Expression(expression)) = parts.get(index) else {
        return set;
    };
    let operator = expression.operator;
    for byte in 0..=u8::MAX {
        // Raw non-ASCII bytes are accepted as if they were percent-encoded (IRIs), and `%` is
        // checked when the value is decoded.
        let value_byte = is_unreserved(byte)
            || byte == b'%'
            || byte >= 0x80
            || (operator.allows_reserved() && is_reserved(byte));
        if value_byte {
            set.insert(byte);
        }
    }
    // Ambiguity breakers: keep out of this expression the characters that start the optional
    // expressions after it.
    let later = parts[index + 1..].iter().filter_map(|part| match part {
        Part::Expression(expression) => Some(expression.operator),
        Part::Literal(_) => None,
    });
    for later_operator in later {
        match later_operator {
            Operator::Query | Operator::QueryContinuation => set.remove(b'?'),
            Operator::Fragment => set.remove(b'#'),
            _ => {}
        }
    }
    if let Some(Part::Expression(next)) = parts.get(index + 1)
        && let Some(prefix @ (b'.' | b';')) = next.operator.prefix()
    {
        set.remove(prefix);
    }
    // Structure the expression itself writes always stays allowed: commas joining list items,
    // `=` after names, and the separator when there can be several items.
    set.insert(b',');
    if operator.named() {
        set.insert(b'=');
    }
    if expression.variables.len() > 1 || expression.has_explode() {
        set.insert(operator.separator());
    }
    set
}

/// A growable bit vector over URI positions `0..=len`.
struct Positions(Vec<u64>);

impl Positions {
    fn new(len: usize) -> Self {
        Self(vec![0; len / 64 + 1])
    }

    fn insert(&mut self, position: usize) {
        self.0[position / 64] |= 1 << (position % 64);
    }

    fn contains(&self, position: usize) -> bool {
        self.0
            .get(position / 64)
            .is_some_and(|word| word & (1 << (position % 64)) != 0)
    }
}

/// Splits the URI among the template parts, returning the span of each expression (`None`
/// for literals), or `None` when no split exists.
///
/// `reachable[i]` holds the positions `p` from which parts `i..` can match exactly `uri[p..]`;
/// it is built from the last part backwards in `O(len)` per expression and
/// `O(len x literal length)` per literal. The split is then read forwards, each expression
/// taking the longest text after which the rest still matches.
fn split(uri: &[u8], parts: &[Part], alphabets: &[ByteSet]) -> Option<Vec<Option<Range<usize>>>> {
    let len = uri.len();
    let mut reachable: Vec<Positions> = (0..=parts.len()).map(|_| Positions::new(len)).collect();
    reachable.get_mut(parts.len())?.insert(len);
    for index in (0..parts.len()).rev() {
        let (head, tail) = reachable.split_at_mut(index + 1);
        let (current, after) = (head.get_mut(index)?, tail.first()?);
        match parts.get(index)? {
            Part::Literal(text) => {
                let text = text.as_bytes();
                for position in 0..=len.saturating_sub(text.len()) {
                    if uri[position..].starts_with(text) && after.contains(position + text.len()) {
                        current.insert(position);
                    }
                }
            }
            Part::Expression(expression) => {
                let alphabet = alphabets.get(index)?;
                let run_end = run_ends(uri, alphabet);
                let next_reachable = next_positions(after, len);
                // Whether the rest matches after some run of alphabet bytes starting at `start`.
                let through_run =
                    |start: usize| start <= len && next_reachable[start] <= run_end[start];
                for position in 0..=len {
                    let matches = match expression.operator.prefix() {
                        None => through_run(position),
                        Some(prefix) => {
                            after.contains(position)
                                || (uri.get(position) == Some(&prefix) && through_run(position + 1))
                        }
                    };
                    if matches {
                        current.insert(position);
                    }
                }
            }
        }
    }
    if !reachable.first()?.contains(0) {
        return None;
    }
    let mut spans = Vec::with_capacity(parts.len());
    let mut position = 0;
    for (index, part) in parts.iter().enumerate() {
        let after = reachable.get(index + 1)?;
        match part {
            Part::Literal(text) => {
                position += text.len();
                spans.push(None);
            }
            Part::Expression(expression) => {
                let alphabet = alphabets.get(index)?;
                let longest = |start: usize| {
                    let end = start
                        + uri
                            .get(start..)?
                            .iter()
                            .take_while(|&&byte| alphabet.contains(byte))
                            .count();
                    (start..=end)
                        .rev()
                        .find(|&candidate| after.contains(candidate))
                };
                let end = match expression.operator.prefix() {
                    None => longest(position)?,
                    Some(prefix) if uri.get(position) == Some(&prefix) => {
                        longest(position + 1).unwrap_or(position)
                    }
                    Some(_) => position,
                };
                spans.push(Some(position..end));
                position = end;
            }
        }
    }
    Some(spans)
}

/// For every position, where the run of `alphabet` bytes starting there ends.
fn run_ends(uri: &[u8], alphabet: &ByteSet) -> Vec<usize> {
    let mut ends = vec![uri.len(); uri.len() + 1];
    for position in (0..uri.len()).rev() {
        if !alphabet.contains(uri[position]) {
            ends[position] = position;
        } else {
            ends[position] = ends[position + 1];
        }
    }
    ends
}

/// For every position, the first position at or after it in `set` (`usize::MAX` if none).
fn next_positions(set: &Positions, len: usize) -> Vec<usize> {
    let mut next = vec![usize::MAX; len + 2];
    for position in (0..=len).rev() {
        next[position] = if set.contains(position) {
            position
        } else {
            next[position + 1]
        };
    }
    next
}

/// Reads one expression's matched text back into variable values.
fn read_expression(expression: &Expression, text: &str, variables: &mut Variables) -> Option<()> {
    let operator = expression.operator;
    let body = match operator.prefix() {
        // An expression that wrote nothing had no defined variables.
        Some(_) if text.is_empty() => return Some(()),
        Some(_) => text.get(1..)?,
        None => text,
    };
    let separator = char::from(operator.separator());
    let single_plain = expression.variables.len() == 1 && !expression.has_explode();
    let items: Vec<&str> = if single_plain && !operator.named() {
        // One plain variable owns the whole text, commas of a joined list included.
        vec![body]
    } else {
        body.split(separator).collect()
    };
    if operator.named() {
        read_named(expression, &items, variables)
    } else {
        read_positional(expression, &items, variables)
    }
}

/// `;`, `?` and `&` items are `name=value` (or a bare `name`), matched to variables by name.
fn read_named(expression: &Expression, items: &[&str], variables: &mut Variables) -> Option<()> {
    let mut strings: BTreeMap<&str, String> = BTreeMap::new();
    let mut lists: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for item in items {
        let (name, raw) = item.split_once('=').unwrap_or((item, ""));
        let spec = expression.variables.iter().find(|spec| spec.name == name)?;
        let value = percent_decode(raw)?;
        if spec.modifier == Modifier::Explode {
            lists.entry(spec.name.as_str()).or_default().push(value);
        } else if strings.insert(spec.name.as_str(), value).is_some() {
            // A plain variable is written once per expression.
            return None;
        }
    }
    for (name, value) in strings {
        bind(variables, name, TemplateValue::String(value))?;
    }
    for (name, items) in lists {
        bind(variables, name, TemplateValue::List(items))?;
    }
    Some(())
}

/// Other operators write items in variable order, skipping undefined variables; items are
/// handed out in order, an exploded variable taking all but what later variables need.
fn read_positional(
    expression: &Expression,
    items: &[&str],
    variables: &mut Variables,
) -> Option<()> {
    let mut next = 0;
    let count = expression.variables.len();
    for (index, spec) in expression.variables.iter().enumerate() {
        if next >= items.len() {
            break;
        }
        let value = if spec.modifier == Modifier::Explode {
            let needed_later = count - index - 1;
            let take = items.len().saturating_sub(next + needed_later).max(1);
            let taken = items.get(next..next + take)?;
            next += take;
            TemplateValue::List(
                taken
                    .iter()
                    .map(|item| percent_decode(item))
                    .collect::<Option<_>>()?,
            )
        } else {
            let item = items.get(next)?;
            next += 1;
            TemplateValue::String(percent_decode(item)?)
        };
        bind(variables, &spec.name, value)?;
    }
    // Items nobody could take mean the text was not written by this expression.
    (next == items.len()).then_some(())
}

/// Records a value, requiring a variable used twice in a template to match the same value.
fn bind(variables: &mut Variables, name: &str, value: TemplateValue) -> Option<()> {
    match variables.get(name) {
        Some(existing) if *existing != value => None,
        Some(_) => Some(()),
        None => {
            variables.insert(name.to_owned(), value);
            Some(())
        }
    }
}

/// Decodes `%XX` escapes; `None` for a stray `%` or a result that is not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while let Some(&byte) = bytes.get(index) {
        if byte == b'%' {
            let high = hex_value(*bytes.get(index + 1)?)?;
            let low = hex_value(*bytes.get(index + 2)?)?;
            decoded.push(high << 4 | low);
            index += 3;
        } else {
            decoded.push(byte);
            index += 1;
        }
    }
    String::from_utf8(decoded).ok()
}

fn hex_value(digit: u8) -> Option<u8> {
    match digit {
        b'0'..=b'9' => Some(digit - b'0'),
        b'a'..=b'f' => Some(digit - b'a' + 10),
        b'A'..=b'F' => Some(digit - b'A' + 10),
        _ => None,
    }
}
