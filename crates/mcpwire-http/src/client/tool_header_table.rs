//! The tools' header parameters the client remembers from `tools/list`
//! results, bounded in tools and bytes, the longest-unlisted forgotten
//! first.
//!
//! The table only serves to add a tool's `Mcp-Param-*` headers to its
//! `tools/call`, so a tool without header parameters needs no entry (a miss
//! means no such headers, which is right for it), and forgetting a tool
//! costs at worst a call without its headers, which the server refuses
//! with a clear error until the tool is listed again. A server listing new
//! tools forever therefore cannot grow the table past its bounds.

use std::collections::{HashMap, VecDeque};

use super::tool_headers::HeaderParam;

/// A tool's entry counts this much besides its strings: the allocations
/// and bookkeeping, so that many tiny entries weigh too.
const ENTRY_OVERHEAD: usize = 64;

/// The remembered header parameters, per tool name.
#[derive(Debug)]
pub(crate) struct ToolHeaderTable {
    tools: HashMap<String, Entry>,
    /// Tool names in the order they were (last) learned, each with the
    /// stamp of the entry it was pushed for. A pair whose stamp no longer
    /// matches (the tool was learned again, or forgotten) is stale: skipped
    /// when evicting, and dropped whenever stale pairs outnumber live ones.
    order: VecDeque<(u64, String)>,
    next_stamp: u64,
    /// The weight of every entry, in bytes.
    bytes: usize,
    max_tools: usize,
    max_bytes: usize,
}

#[derive(Debug)]
struct Entry {
    stamp: u64,
    bytes: usize,
    params: Vec<HeaderParam>,
}

impl ToolHeaderTable {
    /// A table holding at most `max_tools` tools and `max_bytes` bytes.
    pub(crate) fn new(max_tools: usize, max_bytes: usize) -> Self {
        Self {
            tools: HashMap::new(),
            order: VecDeque::new(),
            next_stamp: 0,
            bytes: 0,
            max_tools,
            max_bytes,
        }
    }

    /// The header parameters of `tool`, if it has any that are remembered.
    pub(crate) fn get(&self, tool: &str) -> Option<&[HeaderParam]> {
        self.tools.get(tool).map(|entry| entry.params.as_slice())
    }

    /// Records what a listing says of `tool`, replacing what was known;
    /// makes room by forgetting the tools learned longest ago.
    pub(crate) fn learn(&mut self, tool: String, params: Vec<HeaderParam>) {
        self.forget(&tool);
        if params.is_empty() {
            return;
        }
        let bytes = weight(&tool, &params);
        if self.max_tools == 0 || bytes > self.max_bytes {
            tracing::warn!(
                tool = tool.as_str(),
                bytes,
                "not remembering a tool's header parameters: larger than the table's bound"
            );
            return;
        }
        while self.tools.len() >= self.max_tools || self.bytes + bytes > self.max_bytes {
            if !self.evict_oldest() {
                break;
            }
        }
        let stamp = self.next_stamp;
        self.next_stamp += 1;
        self.bytes += bytes;
        self.order.push_back((stamp, tool.clone()));
        self.tools.insert(
            tool,
            Entry {
                stamp,
                bytes,
                params,
            },
        );
        self.compact();
    }

    /// How many tools are remembered.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.tools.len()
    }

    fn forget(&mut self, tool: &str) {
        if let Some(entry) = self.tools.remove(tool) {
            self.bytes -= entry.bytes;
        }
    }

    /// Forgets the tool learned longest ago; false when none is left.
    fn evict_oldest(&mut self) -> bool {
        while let Some((stamp, tool)) = self.order.pop_front() {
            if self.is_live(stamp, &tool) {
                tracing::debug!(
                    tool = tool.as_str(),
                    "forgetting a tool's header parameters to stay within the table's bound"
                );
                self.forget(&tool);
                return true;
            }
        }
        false
    }

    fn is_live(&self, stamp: u64, tool: &str) -> bool {
        self.tools
            .get(tool)
            .is_some_and(|entry| entry.stamp == stamp)
    }

    /// Drops the stale pairs of `order` once they outnumber the live ones,
    /// so that relisting the same tools forever keeps it bounded too (at
    /// an amortized constant cost per `learn`).
    fn compact(&mut self) {
        if self.order.len() > 2 * self.tools.len() + 16 {
            let tools = &self.tools;
            self.order.retain(|(stamp, tool)| {
                tools
                    .get(tool.as_str())
                    .is_some_and(|entry| entry.stamp == *stamp)
            });
        }
    }
}

/// What an entry weighs: its strings and a fixed overhead per allocation.
fn weight(tool: &str, params: &[HeaderParam]) -> usize {
    params
        .iter()
        .fold(tool.len() + ENTRY_OVERHEAD, |sum, param| {
            let path: usize = param
                .path
                .iter()
                .map(|key| key.len() + ENTRY_OVERHEAD)
                .sum();
            sum.saturating_add(param.header.as_str().len() + ENTRY_OVERHEAD)
                .saturating_add(path)
        })
}

#[cfg(test)]
mod tests {
    use http::HeaderName;

    use super::*;

    fn params(key: &str) -> Vec<HeaderParam> {
        vec![HeaderParam {
            header: HeaderName::from_static("mcp-param-region"),
            path: vec![key.to_owned()],
        }]
    }

    #[test]
    fn new_tool_names_forever_stay_within_the_tool_bound_forgetting_the_oldest() {
        let mut table = ToolHeaderTable::new(4, usize::MAX);
        for n in 0..10_000 {
            table.learn(format!("tool-{n}"), params("region"));
            assert!(table.len() <= 4);
        }
        assert!(table.get("tool-0").is_none());
        for n in 9_996..10_000 {
            assert!(table.get(&format!("tool-{n}")).is_some(), "tool-{n}");
        }
        assert!(table.order.len() <= 2 * 4 + 17);
    }

    #[test]
    fn large_entries_stay_within_the_byte_bound() {
        let one = weight("tool-0000", &params(&"k".repeat(1_000)));
        let mut table = ToolHeaderTable::new(usize::MAX, 3 * one);
        for n in 0..1_000 {
            table.learn(format!("tool-{n:04}"), params(&"k".repeat(1_000)));
            assert!(table.bytes <= 3 * one);
        }
        assert_eq!(table.len(), 3);
        table.learn("huge".to_owned(), params(&"k".repeat(10_000)));
        assert!(table.get("huge").is_none(), "larger than the whole table");
        assert_eq!(table.len(), 3, "and nothing was forgotten for it");
    }

    #[test]
    fn relisting_the_same_tools_forever_keeps_the_order_bounded() {
        let mut table = ToolHeaderTable::new(8, usize::MAX);
        for round in 0..10_000 {
            table.learn(format!("tool-{}", round % 3), params("region"));
        }
        assert_eq!(table.len(), 3);
        assert!(table.order.len() <= 2 * 3 + 17);
    }

    #[test]
    fn a_relisted_tool_is_the_last_forgotten() {
        let mut table = ToolHeaderTable::new(2, usize::MAX);
        table.learn("a".to_owned(), params("x"));
        table.learn("b".to_owned(), params("x"));
        table.learn("a".to_owned(), params("y"));
        table.learn("c".to_owned(), params("x"));
        assert!(table.get("b").is_none());
        assert_eq!(table.get("a").unwrap()[0].path, ["y"]);
        assert!(table.get("c").is_some());
    }

    #[test]
    fn a_tool_listed_again_without_header_params_has_none() {
        let mut table = ToolHeaderTable::new(8, usize::MAX);
        table.learn("a".to_owned(), params("x"));
        table.learn("a".to_owned(), Vec::new());
        assert!(table.get("a").is_none());
        assert_eq!(table.bytes, 0);
    }
}
