//! Finding the ```` ```json ```` code blocks of an MDX page, and reading the
//! few that carry `//` comments (the pages sometimes annotate values).

/// One ```` ```json ```` block of a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Block {
    /// 1-based position among the page's `json` blocks.
    pub(crate) index: usize,
    /// 1-based line of the opening fence.
    pub(crate) line: usize,
    /// The block's text, with the fence's indentation removed.
    pub(crate) text: String,
}

/// The ```` ```json ```` blocks of `page`, in order. Blocks fenced as
/// `jsonc` (commented sketches with elisions, not instances) are not
/// `json` blocks and are left out.
pub(crate) fn json_blocks(page: &str) -> Vec<Block> {
    let lines: Vec<&str> = page.lines().collect();
    let mut blocks = Vec::new();
    let mut at = 0;
    while at < lines.len() {
        let line = lines[at];
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let is_json_fence = trimmed
            .strip_prefix("```json")
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace));
        if !is_json_fence {
            at += 1;
            continue;
        }
        let mut body = Vec::new();
        let mut end = at + 1;
        while end < lines.len() && !lines[end].trim_start().starts_with("```") {
            body.push(dedent(lines[end], indent));
            end += 1;
        }
        blocks.push(Block {
            index: blocks.len() + 1,
            line: at + 1,
            text: body.join("\n"),
        });
        at = end + 1;
    }
    blocks
}

/// `line` without its first `indent` characters when they are all blanks.
fn dedent(line: &str, indent: usize) -> &str {
    match line.get(..indent) {
        Some(prefix) if prefix.trim().is_empty() => &line[indent..],
        _ => line.trim_start(),
    }
}

/// The text without `//` line comments (outside strings) and without the
/// trailing commas a removed comment may leave; `None` when there is no
/// comment to remove.
pub(crate) fn without_comments(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut removed = false;
    for line in text.lines() {
        match comment_start(line) {
            Some(at) => {
                removed = true;
                out.push_str(line[..at].trim_end());
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    removed.then(|| without_trailing_commas(out.trim_end()))
}

/// Where a `//` comment starts in `line`, ignoring `//` inside strings.
fn comment_start(line: &str) -> Option<usize> {
    let mut in_string = false;
    let mut escaped = false;
    let bytes = line.as_bytes();
    for (at, &byte) in bytes.iter().enumerate() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
        } else if byte == b'"' {
            in_string = true;
        } else if byte == b'/' && bytes.get(at + 1) == Some(&b'/') {
            return Some(at);
        }
    }
    None
}

/// Removes commas that directly precede (up to whitespace) a `}` or `]`.
fn without_trailing_commas(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    for (at, &c) in chars.iter().enumerate() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
        } else if c == ',' {
            let next = chars[at + 1..].iter().find(|c| !c.is_whitespace());
            if matches!(next, Some('}' | ']')) {
                continue;
            }
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_blocks_are_found_numbered_and_dedented_and_jsonc_is_left_out() {
        let page = "text\n```json\n{\"a\": 1}\n```\n```jsonc\n{}\n```\n   ```json\n   [\n     1\n   ]\n   ```\n";
        let blocks = json_blocks(page);
        assert_eq!(
            blocks,
            [
                Block {
                    index: 1,
                    line: 2,
                    text: "{\"a\": 1}".into()
                },
                Block {
                    index: 2,
                    line: 8,
                    text: "[\n  1\n]".into()
                },
            ]
        );
    }

    #[test]
    fn comments_outside_strings_are_removed_with_their_trailing_commas() {
        let text = "{\n  \"url\": \"https://x//y\", // a link\n  \"n\": 1, // last\n}";
        assert_eq!(
            without_comments(text).as_deref(),
            Some("{\n  \"url\": \"https://x//y\",\n  \"n\": 1\n}")
        );
        assert_eq!(without_comments("{\"url\": \"a//b\"}"), None);
    }
}
