//! Matching a concrete URI against a template: find where each expression's text can start
//! and end by dynamic programming, then try the splits this allows in a fixed order, reading
//! each expression's text back into values and re-expanding (rules in `UriTemplate::match_uri`).

use std::collections::{BTreeMap, HashSet};

use super::{
    Expression, Modifier, Operator, Part, TemplateValue, Variables, expand_parts, is_reserved,
    is_unreserved,
};

/// URIs longer than this many bytes never match. The split keeps one bit per URI byte per
/// template part, so the bound keeps memory small whatever a peer sends.
pub const MAX_MATCH_LEN: usize = 64 * 1024;

/// The most work one match may do trying splits, counted in bytes scanned, read back and
/// re-expanded. A URI whose splits all fail to read back stops here and does not match (or
/// matches by the first split that read back, see `UriTemplate::match_uri`), so a hostile URI
/// costs at most this much beyond the linear-time split table, whatever the template.
pub const MAX_MATCH_WORK: usize = 1 << 20;

/// Matches `uri`; the flag says whether a pass ran out of [`MAX_MATCH_WORK`] (so that a match
/// was perhaps missed, or the second pass was needed where the first would have found one).
pub(super) fn match_uri(parts: &[Part], uri: &str) -> (Option<Variables>, bool) {
    if uri.len() > MAX_MATCH_LEN {
        return (None, false);
    }
    let alphabets: Vec<Alphabets> = (0..parts.len())
        .map(|index| alphabets_at(parts, index))
        .collect();
    let Some(reachable) = reachable(uri.as_bytes(), parts, &alphabets) else {
        return (None, false);
    };
    if !reachable.first().is_some_and(|first| first.contains(0)) {
        return (None, false);
    }
    let expressions = parts
        .iter()
        .filter(|part| matches!(part, Part::Expression(_)))
        .count();
    let mut search = Search {
        uri,
        parts,
        alphabets: &alphabets,
        reachable: &reachable,
        live: live_variables(parts),
        exact: true,
        budget: MAX_MATCH_WORK,
        exhausted: false,
        failed: HashSet::new(),
    };
    // With one expression there is at most one split, so it needs no comparison.
    if expressions > 1
        && let Some(exact) = search.visit(0, 0, Variables::new())
    {
        return (Some(exact), search.exhausted);
    }
    search.exact = false;
    search.budget = MAX_MATCH_WORK;
    search.failed.clear();
    let found = search.visit(0, 0, Variables::new());
    (found, search.exhausted)
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

/// The bytes the expression at a template index may take: `all` of them, and the `preferred`
/// ones (without the characters that start the expressions after it), tried first.
#[derive(Debug, Clone, Copy, Default)]
struct Alphabets {
    all: ByteSet,
    preferred: ByteSet,
}

/// The alphabets of the expression at `index`; empty for literals.
fn alphabets_at(parts: &[Part], index: usize) -> Alphabets {
    let mut all = ByteSet::default();
    let Some(Part::Expression(expression)) = parts.get(index) else {
        return Alphabets::default();
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
            all.insert(byte);
        }
    }
    // Ambiguity breakers: the preferred splits keep out of this expression the characters
    // that start the optional expressions after it.
    let mut preferred = all;
    let later = parts[index + 1..].iter().filter_map(|part| match part {
        Part::Expression(expression) => Some(expression.operator),
        Part::Literal(_) => None,
    });
    for later_operator in later {
        match later_operator {
            Operator::Query => preferred.remove(b'?'),
            Operator::QueryContinuation => {
                preferred.remove(b'?');
                preferred.remove(b'&');
            }
            Operator::Fragment => preferred.remove(b'#'),
            _ => {}
        }
    }
    if let Some(Part::Expression(next)) = parts.get(index + 1)
        && let Some(prefix @ (b'.' | b';')) = next.operator.prefix()
    {
        preferred.remove(prefix);
    }
    // Structure the expression itself writes always stays allowed: commas joining list items,
    // `=` after names, and the separator when there can be several items.
    for set in [&mut all, &mut preferred] {
        set.insert(b',');
        if operator.named() {
            set.insert(b'=');
        }
        if expression.variables.len() > 1 || expression.has_explode() {
            set.insert(operator.separator());
        }
    }
    Alphabets { all, preferred }
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

/// `reachable[i]` holds the positions `p` from which parts `i..` can match exactly `uri[p..]`
/// by the characters each expression may take (`Alphabets::all`), not yet looking at what
/// they read back. It is built from the last part backwards in `O(len)` per expression and
/// `O(len x literal length)` per literal, and lets the search below try only splits that
/// reach the end of the URI.
fn reachable(uri: &[u8], parts: &[Part], alphabets: &[Alphabets]) -> Option<Vec<Positions>> {
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
                let run_end = run_ends(uri, &alphabets.get(index)?.all);
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
    Some(reachable)
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

/// The depth-first search over splits, in the documented order, within a work budget.
struct Search<'a> {
    uri: &'a str,
    parts: &'a [Part],
    alphabets: &'a [Alphabets],
    reachable: &'a [Positions],
    /// Whether each expression's values must re-expand to its text exactly (the first pass),
    /// or only read back (the second).
    exact: bool,
    /// Work left, in bytes (see [`MAX_MATCH_WORK`]).
    budget: usize,
    /// For each part, the variables it or a later part names that an earlier part names too:
    /// whether the rest of the template matches depends on the position and their values only.
    live: Vec<Vec<&'a str>>,
    /// Searches already failed, so that the search is polynomial: (part, position, the values
    /// of the part's live variables).
    failed: HashSet<FailedKey>,
    /// Whether a pass ran out of budget.
    exhausted: bool,
}

/// See [`Search::failed`].
type FailedKey = (usize, usize, Vec<Option<TemplateValue>>);

/// The names of the variables of `parts`, repeats included.
fn names(parts: &[Part]) -> Vec<&str> {
    parts
        .iter()
        .filter_map(|part| match part {
            Part::Expression(expression) => Some(expression),
            Part::Literal(_) => None,
        })
        .flat_map(|expression| expression.variables.iter().map(|spec| spec.name.as_str()))
        .collect()
}

/// About how many bytes an entry of [`Search::failed`] holds.
fn key_size(key: &FailedKey) -> usize {
    let value_size = |value: &TemplateValue| match value {
        TemplateValue::String(text) => text.len(),
        TemplateValue::List(items) => items.iter().map(|item| item.len() + 24).sum(),
        TemplateValue::Map(pairs) => pairs
            .iter()
            .map(|(key, item)| key.len() + item.len() + 48)
            .sum(),
    };
    64 + key
        .2
        .iter()
        .map(|value| 32 + value.as_ref().map_or(0, value_size))
        .sum::<usize>()
}

/// See [`Search::live`].
fn live_variables(parts: &[Part]) -> Vec<Vec<&str>> {
    (0..parts.len())
        .map(|index| {
            let before = names(&parts[..index]);
            let mut live: Vec<&str> = names(&parts[index..])
                .into_iter()
                .filter(|name| before.contains(name))
                .collect();
            live.sort_unstable();
            live.dedup();
            live
        })
        .collect()
}

impl Search<'_> {
    /// Takes `cost` from the budget; `false` (and an empty budget) when it does not cover it.
    fn spend(&mut self, cost: usize) -> bool {
        match self.budget.checked_sub(cost) {
            Some(left) => {
                self.budget = left;
                true
            }
            None => {
                self.budget = 0;
                self.exhausted = true;
                false
            }
        }
    }

    /// Tries parts `index..` from URI `position` with `variables` read so far; returns the
    /// first split, in the documented order, whose every expression reads back (and in the
    /// exact pass, re-expands to its own text).
    fn visit(&mut self, index: usize, position: usize, variables: Variables) -> Option<Variables> {
        let Some(part) = self.parts.get(index) else {
            return (position == self.uri.len()).then_some(variables);
        };
        match part {
            Part::Literal(text) => self.visit(index + 1, position + text.len(), variables),
            Part::Expression(expression) => {
                let key = (
                    index,
                    position,
                    self.live
                        .get(index)
                        .map(|names| names.iter().map(|name| variables.get(*name).cloned()))
                        .into_iter()
                        .flatten()
                        .collect(),
                );
                if self.failed.contains(&key) {
                    return None;
                }
                let found = self.visit_expression(index, part, expression, position, &variables);
                // The table's memory is paid from the budget too, so it stays a small multiple
                // of MAX_MATCH_WORK.
                if found.is_none() && self.spend(key_size(&key)) {
                    self.failed.insert(key);
                }
                found
            }
        }
    }

    /// [`Search::visit`] for an expression: tries its candidate ends in order.
    fn visit_expression(
        &mut self,
        index: usize,
        part: &Part,
        expression: &Expression,
        position: usize,
        variables: &Variables,
    ) -> Option<Variables> {
        {
            {
                for end in self.candidate_ends(index, expression, position) {
                    if self.exhausted {
                        return None;
                    }
                    // A cut inside a raw UTF-8 character reads nothing.
                    let Some(text) = self.uri.get(position..end) else {
                        continue;
                    };
                    if !self.spend(text.len() + 1) {
                        return None;
                    }
                    let mut next = variables.clone();
                    if read_expression(expression, text, &mut next).is_none() {
                        continue;
                    }
                    if self.exact {
                        // A variable an earlier expression left undefined cannot be defined
                        // now: that expression would have written it.
                        let late = expression.variables.iter().any(|spec| {
                            !variables.contains_key(&spec.name)
                                && next.contains_key(&spec.name)
                                && self
                                    .live
                                    .get(index)
                                    .is_some_and(|live| live.contains(&spec.name.as_str()))
                        });
                        if late {
                            continue;
                        }
                        let expanded = expand_parts(std::slice::from_ref(part), &next);
                        if !self.spend(expanded.len()) {
                            return None;
                        }
                        if normalise(&expanded) != normalise(text) {
                            continue;
                        }
                    }
                    if let Some(found) = self.visit(index + 1, end, next) {
                        return Some(found);
                    }
                }
                None
            }
        }
    }

    /// Where the expression at `index`, starting at `start`, may end so that the rest of the
    /// template can still match, in the order they are tried: the longest text of preferred
    /// characters first, then the longer texts that need the others, then no text at all for
    /// an operator with a prefix.
    fn candidate_ends(
        &mut self,
        index: usize,
        expression: &Expression,
        start: usize,
    ) -> Vec<usize> {
        let (Some(alphabets), Some(after)) =
            (self.alphabets.get(index), self.reachable.get(index + 1))
        else {
            return Vec::new();
        };
        let uri = self.uri.as_bytes();
        let body_start = match expression.operator.prefix() {
            None => start,
            Some(prefix) if uri.get(start) == Some(&prefix) => start + 1,
            Some(_) => {
                return if after.contains(start) {
                    vec![start]
                } else {
                    Vec::new()
                };
            }
        };
        let run = |alphabet: &ByteSet| {
            body_start
                + uri
                    .get(body_start..)
                    .unwrap_or_default()
                    .iter()
                    .take_while(|&&byte| alphabet.contains(byte))
                    .count()
        };
        let (preferred_end, all_end) = (run(&alphabets.preferred), run(&alphabets.all));
        let mut ends: Vec<usize> = (body_start..=preferred_end)
            .rev()
            .chain((preferred_end + 1..=all_end).rev())
            .filter(|&end| after.contains(end))
            .collect();
        if body_start > start && after.contains(start) {
            ends.push(start);
        }
        let scanned = all_end - body_start + 1;
        if self.spend(scanned) {
            ends
        } else {
            Vec::new()
        }
    }
}

/// The form URIs are compared in: `%XX` of an unreserved character decoded, other `%XX` in
/// upper case, raw non-ASCII bytes percent-encoded (as expansion writes them).
fn normalise(text: &str) -> Vec<u8> {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while let Some(&byte) = bytes.get(index) {
        let escaped = if byte == b'%' {
            let high = bytes.get(index + 1).copied().and_then(hex_value);
            let low = bytes.get(index + 2).copied().and_then(hex_value);
            high.zip(low).map(|(high, low)| high << 4 | low)
        } else {
            None
        };
        let (decoded, width) = match escaped {
            Some(decoded) => (decoded, 3),
            None => (byte, 1),
        };
        if is_unreserved(decoded) || (escaped.is_none() && decoded < 0x80) {
            out.push(decoded);
        } else {
            out.extend([
                b'%',
                HEX[usize::from(decoded >> 4)],
                HEX[usize::from(decoded & 0x0f)],
            ]);
        }
        index += width;
    }
    out
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
        } else if let Some(existing) = strings.get(spec.name.as_str()) {
            // A plain variable is written once per expression, or as often as the expression
            // names it, with one value.
            let named = expression
                .variables
                .iter()
                .filter(|other| other.name == spec.name)
                .count();
            if named < 2 || *existing != value {
                return None;
            }
        } else {
            strings.insert(spec.name.as_str(), value);
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
