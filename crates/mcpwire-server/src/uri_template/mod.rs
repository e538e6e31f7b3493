//! RFC 6570 URI templates, as MCP resource templates use them: parse, expand, and match.
//!
//! [`UriTemplate::parse`] accepts the whole of RFC 6570 (levels 1 to 4): the operators
//! `{var}`, `{+var}`, `{#var}`, `{.var}`, `{/var}`, `{;var}`, `{?var}` and `{&var}`, several
//! variables per expression, and the prefix (`{var:3}`) and explode (`{var*}`) modifiers.
//! Invalid templates are refused with a [`TemplateError`] naming the byte offset.
//!
//! [`UriTemplate::expand`] follows RFC 6570 section 3 exactly.
//!
//! [`UriTemplate::match_uri`] goes the other way, which is what `resources/read` needs: given
//! `test://template/{id}/data` and `test://template/123/data` it returns `id = "123"`. RFC 6570
//! does not define matching, so this module documents its own rules (see [the `matching`
//! rules](UriTemplate::match_uri)). In short: all eight operators match; values are
//! percent-decoded; a match is a split of the URI among the template's expressions whose every
//! expression reads back into values, preferably values that re-expand to the URI itself; when
//! several splits qualify (ambiguous templates such as `{a}{b}`) the earlier expression takes
//! the longest text. The search is bounded by [`MAX_MATCH_LEN`] and [`MAX_MATCH_WORK`].

mod matching;
mod parse;

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

pub use matching::{MAX_MATCH_LEN, MAX_MATCH_WORK};

/// Variable values by name, as [`UriTemplate::expand`] takes them and
/// [`UriTemplate::match_uri`] returns them.
pub type Variables = BTreeMap<String, TemplateValue>;

/// The value of one template variable.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TemplateValue {
    /// A string.
    String(String),
    /// A list of strings; an empty list counts as undefined when expanding.
    List(Vec<String>),
    /// An associative array (name-value pairs in order); an empty one counts as undefined.
    Map(Vec<(String, String)>),
}

impl TemplateValue {
    /// The string, if this is a string value.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Self::String(value) => Some(value),
            Self::List(_) | Self::Map(_) => None,
        }
    }

    /// The items, if this is a list value.
    pub fn as_list(&self) -> Option<&[String]> {
        match self {
            Self::List(items) => Some(items),
            Self::String(_) | Self::Map(_) => None,
        }
    }

    /// RFC 6570 section 2.3: empty lists and empty associative arrays are undefined.
    fn is_defined(&self) -> bool {
        match self {
            Self::String(_) => true,
            Self::List(items) => !items.is_empty(),
            Self::Map(pairs) => !pairs.is_empty(),
        }
    }
}

impl From<&str> for TemplateValue {
    fn from(value: &str) -> Self {
        Self::String(value.to_owned())
    }
}

impl From<String> for TemplateValue {
    fn from(value: String) -> Self {
        Self::String(value)
    }
}

impl From<Vec<String>> for TemplateValue {
    fn from(items: Vec<String>) -> Self {
        Self::List(items)
    }
}

impl From<Vec<&str>> for TemplateValue {
    fn from(items: Vec<&str>) -> Self {
        Self::List(items.into_iter().map(str::to_owned).collect())
    }
}

impl From<Vec<(String, String)>> for TemplateValue {
    fn from(pairs: Vec<(String, String)>) -> Self {
        Self::Map(pairs)
    }
}

/// A parsed RFC 6570 URI template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    source: String,
    parts: Vec<Part>,
}

/// A template is a sequence of literal text and `{...}` expressions.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    /// Literal text, already in the form expansion writes it (non-ASCII characters
    /// percent-encoded), so that matching can compare it byte for byte.
    Literal(String),
    Expression(Expression),
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Expression {
    operator: Operator,
    variables: Vec<VarSpec>,
}

impl Expression {
    fn has_explode(&self) -> bool {
        self.variables
            .iter()
            .any(|spec| spec.modifier == Modifier::Explode)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct VarSpec {
    name: String,
    modifier: Modifier,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Modifier {
    None,
    /// `:N`, keep at most N characters of a string value.
    Prefix(usize),
    /// `*`, expand each list item or pair separately.
    Explode,
}

/// The expression operators of RFC 6570 section 3.2, with the behaviour table of its
/// appendix A.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operator {
    /// `{var}`
    Simple,
    /// `{+var}`
    Reserved,
    /// `{#var}`
    Fragment,
    /// `{.var}`
    Label,
    /// `{/var}`
    PathSegment,
    /// `{;var}`
    PathParameter,
    /// `{?var}`
    Query,
    /// `{&var}`
    QueryContinuation,
}

impl Operator {
    /// The character written before the first defined variable, if any.
    fn prefix(self) -> Option<u8> {
        match self {
            Self::Simple | Self::Reserved => None,
            Self::Fragment => Some(b'#'),
            Self::Label => Some(b'.'),
            Self::PathSegment => Some(b'/'),
            Self::PathParameter => Some(b';'),
            Self::Query => Some(b'?'),
            Self::QueryContinuation => Some(b'&'),
        }
    }

    /// The character written between variables and between exploded items.
    fn separator(self) -> u8 {
        match self {
            Self::Simple | Self::Reserved | Self::Fragment => b',',
            Self::Label => b'.',
            Self::PathSegment => b'/',
            Self::PathParameter => b';',
            Self::Query | Self::QueryContinuation => b'&',
        }
    }

    /// Whether values are written as `name=value`.
    fn named(self) -> bool {
        matches!(
            self,
            Self::PathParameter | Self::Query | Self::QueryContinuation
        )
    }

    /// What a named variable with an empty value is followed by (`;x` but `?x=`).
    fn if_empty(self) -> &'static str {
        match self {
            Self::Query | Self::QueryContinuation => "=",
            _ => "",
        }
    }

    /// Whether reserved characters (and percent-encoded triplets) pass through unencoded.
    fn allows_reserved(self) -> bool {
        matches!(self, Self::Reserved | Self::Fragment)
    }
}

/// Why a template was refused, with the byte offset in the template where the problem is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid URI template at byte {offset}: {kind}")]
pub struct TemplateError {
    offset: usize,
    kind: TemplateErrorKind,
}

impl TemplateError {
    /// Byte offset in the template where the problem was found.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// What the problem is.
    pub fn kind(&self) -> &TemplateErrorKind {
        &self.kind
    }
}

/// The kinds of [`TemplateError`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TemplateErrorKind {
    /// A `{` is never closed.
    #[error("`{{` is never closed by `}}`")]
    UnclosedExpression,
    /// A `}` appears outside an expression.
    #[error("`}}` without a matching `{{`")]
    UnmatchedClosingBrace,
    /// An expression is `{}`.
    #[error("empty expression `{{}}`")]
    EmptyExpression,
    /// The expression uses an operator RFC 6570 reserves for future extensions.
    #[error("operator `{0}` is reserved for future extensions")]
    ReservedOperator(char),
    /// A variable name is empty or has characters RFC 6570 does not allow.
    #[error("invalid variable name `{0}`")]
    InvalidVariableName(String),
    /// A prefix modifier is not a number from 1 to 9999.
    #[error("prefix length `{0}` is not a number from 1 to 9999")]
    InvalidPrefixLength(String),
    /// A character that may not appear in a URI template (space, `"`, `<`, ...).
    #[error("character {0:?} is not allowed in a URI template")]
    InvalidCharacter(char),
    /// A `%` not followed by two hexadecimal digits.
    #[error("`%` is not followed by two hexadecimal digits")]
    InvalidPercentEncoding,
}

impl UriTemplate {
    /// Parses a template, refusing anything that is not valid RFC 6570 syntax.
    pub fn parse(template: &str) -> Result<Self, TemplateError> {
        Ok(Self {
            source: template.to_owned(),
            parts: parse::parse(template)?,
        })
    }

    /// The template as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The names of the template's variables, each once, in order of first appearance; these
    /// are the arguments `completion/complete` can be asked about.
    pub fn variable_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for part in &self.parts {
            if let Part::Expression(expression) = part {
                for spec in &expression.variables {
                    if !names.contains(&spec.name.as_str()) {
                        names.push(&spec.name);
                    }
                }
            }
        }
        names
    }

    /// Whether the template has no expressions, that is, names a single URI.
    pub fn is_fixed(&self) -> bool {
        self.parts
            .iter()
            .all(|part| matches!(part, Part::Literal(_)))
    }

    /// Expands the template with `variables` (RFC 6570 section 3); variables that are absent,
    /// empty lists and empty maps are undefined and leave no trace. A prefix modifier on a list
    /// or map value is ignored, as RFC 6570 section 2.4.1 says it does not apply to them.
    pub fn expand(&self, variables: &Variables) -> String {
        expand_parts(&self.parts, variables)
    }

    /// Matches a concrete URI against the template and returns the variables that expand to
    /// it, or `None` when it does not match.
    ///
    /// The rules, since RFC 6570 leaves matching undefined:
    ///
    /// - **Operators.** All eight match. The URI is split into literal text and expression text
    ///   first; each expression's text is then read back into values: split at the operator's
    ///   separator, `name=value` items matched by name for `;`, `?` and `&` (in any order), and
    ///   every value percent-decoded (including in `{+var}` and `{#var}`), which must yield
    ///   UTF-8.
    /// - **Splitting.** Each expression can only take the characters its operator can produce
    ///   (`{var}` never takes `/`, `{/var}` takes one segment, `{+var}` takes almost anything).
    ///   A table built by dynamic programming (`O(uri length x template length)`) says where
    ///   each expression may end so that the rest of the URI can still match; the splits it
    ///   allows are then tried depth first, each expression's text read back into values as it
    ///   is chosen, so a split is only accepted when every expression reads back and repeated
    ///   variables agree (`{/a,b}{/c}` reads `/x/y/z` as `a = "x"`, `b = "y"`, `c = "z"`).
    /// - **Which split.** Two passes over the splits, in the same order. The first accepts a
    ///   split only when every expression's values re-expand to exactly its text (comparing
    ///   after decoding `%XX` of unreserved characters, upper-casing other `%XX` and encoding
    ///   raw non-ASCII bytes) and no expression defines a variable an earlier one left out, so
    ///   a URI the template expanded matches with values that expand back to it. If no split does, the second pass accepts the first split that reads back,
    ///   which is how the lenient readings below (parameters in another order, commas in a
    ///   plain value, prefixes not checked, `%2F` in `{+var}`) still match. A template of one
    ///   expression has at most one split and skips the first pass.
    /// - **Order of splits** (how ambiguous templates resolve). Expression by expression, the
    ///   earlier expression's candidate texts are tried longest first, among the texts of its
    ///   preferred characters first, then the longer ones that need the others, then (for an
    ///   operator with a prefix) no text at all. So `{a}-{b}` reads `x-y-z` as `a = "x-y"`,
    ///   `b = "z"`, and `{a}{b}` reads `xyz` as `a = "xyz"`, `b = ""`.
    /// - **Preferred characters** (ambiguity breakers). A value prefers not to contain the
    ///   `?` when a `{?...}` or `{&...}` expression follows later, the `&` when a `{&...}`
    ///   follows, the `#` when a `{#...}` follows, nor the `.` or `;` that starts the very next
    ///   `{.var}` or `{;var}` expression. So `file:///{+path}{?rev}` reads `?rev=2` as the
    ///   query, `{#a}{&b}` reads `#x&b=1` as `a = "x"`, `b = "1"`, and `{name}{.ext}` reads
    ///   `archive.tar.gz` as `name = "archive"`, `ext = "tar.gz"`; but `file:///{+path}{?rev}`
    ///   still reads `file:///a?b` as `path = "a?b"`, since `?b` is not a `rev` parameter.
    /// - **Undefined or empty.** An expression that matched no text leaves its variables out
    ///   of the result, except `{var}` and `{+var}`, whose empty text means the empty string.
    /// - **Lists.** An exploded variable comes back as a [`TemplateValue::List`] (in an
    ///   expression of several variables, each other variable takes one item and the exploded
    ///   one takes the rest). A variable without explode is always a string: a list expanded
    ///   without explode comes back joined by commas. Exploded associative arrays are not
    ///   recovered (their keys are not variable names, so the URI does not match).
    /// - **Repeated variables** must match the same value everywhere.
    /// - **Not checked.** Prefix modifiers do not limit what matches (`{id:3}` returns the
    ///   whole text), and a `{?...}` expression does not accept parameters it does not name.
    /// - **Size.** URIs longer than [`MAX_MATCH_LEN`] bytes never match. Each pass stops after
    ///   [`MAX_MATCH_WORK`] bytes of work (searches already failed are remembered, so the work
    ///   is polynomial, not exponential). A pass that stops finds nothing (the second pass
    ///   still runs when the first stops), so a URI whose only exact split lies beyond that
    ///   work is matched by the second pass's reading, or not at all.
    pub fn match_uri(&self, uri: &str) -> Option<Variables> {
        matching::match_uri(&self.parts, uri).0
    }

    /// [`match_uri`](Self::match_uri), also saying whether the search ran out of
    /// [`MAX_MATCH_WORK`] (so that a match may have been missed). Not API: the `uri_template`
    /// fuzz target's property needs it to tell a wrong answer from a bounded one.
    #[doc(hidden)]
    pub fn match_uri_reporting_exhaustion(&self, uri: &str) -> (Option<Variables>, bool) {
        matching::match_uri(&self.parts, uri)
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

impl FromStr for UriTemplate {
    type Err = TemplateError;

    fn from_str(template: &str) -> Result<Self, Self::Err> {
        Self::parse(template)
    }
}

/// RFC 6570 section 3: expands a parsed template.
fn expand_parts(parts: &[Part], variables: &Variables) -> String {
    let mut out = String::new();
    for part in parts {
        match part {
            Part::Literal(text) => out.push_str(text),
            Part::Expression(expression) => expand_expression(&mut out, expression, variables),
        }
    }
    out
}

/// RFC 6570 appendix A, "Implementation Hints", for one expression.
fn expand_expression(out: &mut String, expression: &Expression, variables: &Variables) {
    let operator = expression.operator;
    let separator = char::from(operator.separator());
    let mut first = true;
    for spec in &expression.variables {
        let Some(value) = variables.get(&spec.name).filter(|value| value.is_defined()) else {
            continue;
        };
        if first {
            if let Some(prefix) = operator.prefix() {
                out.push(char::from(prefix));
            }
            first = false;
        } else {
            out.push(separator);
        }
        let explode = spec.modifier == Modifier::Explode;
        match value {
            TemplateValue::String(text) => {
                let text = match spec.modifier {
                    Modifier::Prefix(length) => first_chars(text, length),
                    Modifier::None | Modifier::Explode => text,
                };
                if operator.named() {
                    push_name_and_equals(out, &spec.name, text, operator);
                }
                encode_into(out, text, operator.allows_reserved());
            }
            TemplateValue::List(items) if explode => {
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        out.push(separator);
                    }
                    if operator.named() {
                        push_name_and_equals(out, &spec.name, item, operator);
                    }
                    encode_into(out, item, operator.allows_reserved());
                }
            }
            TemplateValue::Map(pairs) if explode => {
                for (index, (key, item)) in pairs.iter().enumerate() {
                    if index > 0 {
                        out.push(separator);
                    }
                    encode_into(out, key, operator.allows_reserved());
                    if operator.named() && item.is_empty() {
                        out.push_str(operator.if_empty());
                    } else {
                        out.push('=');
                    }
                    encode_into(out, item, operator.allows_reserved());
                }
            }
            TemplateValue::List(items) => {
                if operator.named() {
                    out.push_str(&spec.name);
                    out.push('=');
                }
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    encode_into(out, item, operator.allows_reserved());
                }
            }
            TemplateValue::Map(pairs) => {
                if operator.named() {
                    out.push_str(&spec.name);
                    out.push('=');
                }
                for (index, (key, item)) in pairs.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    encode_into(out, key, operator.allows_reserved());
                    out.push(',');
                    encode_into(out, item, operator.allows_reserved());
                }
            }
        }
    }
}

fn push_name_and_equals(out: &mut String, name: &str, value: &str, operator: Operator) {
    out.push_str(name);
    if value.is_empty() {
        out.push_str(operator.if_empty());
    } else {
        out.push('=');
    }
}

/// The first `length` characters (not bytes) of `text`.
fn first_chars(text: &str, length: usize) -> &str {
    match text.char_indices().nth(length) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

/// Percent-encodes `text` into `out`, keeping unreserved characters, and when
/// `allow_reserved`, reserved characters and existing percent-encoded triplets too.
fn encode_into(out: &mut String, text: &str, allow_reserved: bool) {
    let bytes = text.as_bytes();
    let mut index = 0;
    while let Some(&byte) = bytes.get(index) {
        if is_unreserved(byte) || (allow_reserved && is_reserved(byte)) {
            out.push(char::from(byte));
        } else if allow_reserved && byte == b'%' && is_percent_triplet(&bytes[index..]) {
            out.push_str(&text[index..index + 3]);
            index += 3;
            continue;
        } else {
            push_percent_encoded(out, byte);
        }
        index += 1;
    }
}

fn push_percent_encoded(out: &mut String, byte: u8) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    out.push('%');
    out.push(char::from(HEX[usize::from(byte >> 4)]));
    out.push(char::from(HEX[usize::from(byte & 0x0f)]));
}

/// Whether `bytes` starts with `%` and two hexadecimal digits.
fn is_percent_triplet(bytes: &[u8]) -> bool {
    matches!(bytes, [b'%', high, low, ..] if high.is_ascii_hexdigit() && low.is_ascii_hexdigit())
}

/// RFC 3986 `unreserved`.
fn is_unreserved(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~')
}

/// RFC 3986 `reserved` (`gen-delims` and `sub-delims`).
fn is_reserved(byte: u8) -> bool {
    matches!(
        byte,
        b':' | b'/'
            | b'?'
            | b'#'
            | b'['
            | b']'
            | b'@'
            | b'!'
            | b'$'
            | b'&'
            | b'\''
            | b'('
            | b')'
            | b'*'
            | b'+'
            | b','
            | b';'
            | b'='
    )
}
