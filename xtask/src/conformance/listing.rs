//! The runner's scenario list, read from the output of its `list` command:
//! every scenario's name and the spec revisions (or `extension`, `draft`)
//! it is tagged with.
//!
//! The output has one block per kind, each a heading followed by lines
//! `  - <scenario> [<tags>]`:
//!
//! ```text
//! Server scenarios (test against a server):
//!   - server-initialize [2025-06-18,2025-11-25]
//! Client scenarios (test against a client):
//!   - auth/dpop [extension]
//! Authorization server scenarios (test against an authorization server):
//!   - authorization-code-grant [2025-03-26,2025-06-18,2025-11-25,2026-07-28]
//! ```

/// One listed scenario.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Listed {
    /// Its name.
    pub(crate) name: String,
    /// Its tags, in the runner's order: spec revisions such as
    /// `2025-11-25`, or `extension`, `draft`, `backcompat`.
    pub(crate) tags: Vec<String>,
}

/// The scenarios of each kind, in the runner's order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Listing {
    /// Scenarios testing a server.
    pub(crate) server: Vec<Listed>,
    /// Scenarios testing a client.
    pub(crate) client: Vec<Listed>,
    /// Scenarios testing an authorization server (runner 0.2 on).
    pub(crate) authorization: Vec<Listed>,
}

/// The names of `listed`, in order.
pub(crate) fn names(listed: &[Listed]) -> Vec<String> {
    listed
        .iter()
        .map(|scenario| scenario.name.clone())
        .collect()
}

/// Reads the tags of a list item after its name: `[a,b]`, or none.
fn tags_of(rest: &str) -> Vec<String> {
    rest.trim()
        .strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
        .map(|inside| {
            inside
                .split(',')
                .map(str::trim)
                .filter(|tag| !tag.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// Where the items of a block go.
type Slot = fn(&mut Listing) -> &mut Vec<Listed>;

/// Which block a heading opens.
fn block_of(heading: &str) -> Option<Slot> {
    let heading = heading.to_ascii_lowercase();
    if heading.starts_with("server scenarios") {
        Some(|listing| &mut listing.server)
    } else if heading.starts_with("client scenarios") {
        Some(|listing| &mut listing.client)
    } else if heading.starts_with("authorization server scenarios") {
        Some(|listing| &mut listing.authorization)
    } else {
        None
    }
}

/// Where the items under the current heading go.
enum Block {
    /// No heading yet.
    Start,
    /// A heading this code knows.
    Known(Slot),
    /// A heading of a kind this code does not run (skipped).
    Other,
}

/// Reads the output of `list`.
pub(crate) fn parse(output: &str) -> Result<Listing, String> {
    let mut listing = Listing::default();
    let mut block = Block::Start;
    for line in output.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        let Some(item) = trimmed.strip_prefix("- ") else {
            block = block_of(trimmed).map_or(Block::Other, Block::Known);
            continue;
        };
        // `trimmed` has no trailing space, so the item has a first word.
        let name = item.split_whitespace().next().unwrap_or(item);
        let listed = Listed {
            name: name.to_owned(),
            tags: tags_of(&item[name.len()..]),
        };
        match block {
            Block::Start => return Err(format!("a scenario before any heading: {trimmed:?}")),
            Block::Known(list) => list(&mut listing).push(listed),
            Block::Other => {}
        }
    }
    if listing.server.is_empty() && listing.client.is_empty() {
        return Err("the runner listed no scenarios".to_owned());
    }
    Ok(listing)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Excerpts of the real output of runner 0.2.0-alpha.12.
    const LIST: &str = "\
Server scenarios (test against a server):
  - server-initialize [2025-06-18,2025-11-25]
  - sep-2640-skills-directory [extension]
  - input-required-result-validate-input [2026-07-28]

Client scenarios (test against a client):
  - initialize [2025-06-18,2025-11-25]
  - auth/metadata-default [2025-11-25,2026-07-28]

Authorization server scenarios (test against an authorization server):
  - authorization-server-metadata-endpoint [2025-03-26,2025-06-18,2025-11-25,2026-07-28]
";

    #[test]
    fn each_block_lists_its_scenario_names_and_tags() {
        let listing = parse(LIST).unwrap();
        assert_eq!(
            names(&listing.server),
            [
                "server-initialize",
                "sep-2640-skills-directory",
                "input-required-result-validate-input"
            ]
        );
        assert_eq!(
            names(&listing.client),
            ["initialize", "auth/metadata-default"]
        );
        assert_eq!(
            names(&listing.authorization),
            ["authorization-server-metadata-endpoint"]
        );
        assert_eq!(listing.server[0].tags, ["2025-06-18", "2025-11-25"]);
        assert_eq!(listing.server[1].tags, ["extension"]);
        assert_eq!(
            listing.authorization[0].tags,
            ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]
        );
    }

    #[test]
    fn runner_0_1_has_no_authorization_block() {
        let listing = parse(
            "Server scenarios (x):\n  - ping [2025-06-18]\nClient scenarios (y):\n  - initialize\n",
        )
        .unwrap();
        assert_eq!(names(&listing.server), ["ping"]);
        assert_eq!(names(&listing.client), ["initialize"]);
        assert!(listing.client[0].tags.is_empty(), "no tags listed");
        assert!(listing.authorization.is_empty());
    }

    #[test]
    fn output_without_scenarios_is_refused() {
        assert!(parse("Usage: conformance\n").is_err());
        assert!(parse("  - orphan [x]\n").is_err());
    }
}
