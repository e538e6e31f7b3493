//! Roots: the directories and files a client lets servers work in
//! (`roots/list`).

use serde::{Deserialize, Serialize};

use crate::revision::keep_if;
use crate::{Extra, ForRevision, Meta, ProtocolVersion};

/// A directory or file the server may operate on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Root {
    /// Where it is; a `file://` URI for now.
    pub uri: String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Metadata (2025-06-18 on).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl Root {
    /// The root at `uri`, without a name.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: None,
            meta: None,
            extra: Extra::new(),
        }
    }

    /// The same root with display name `name`.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
}

impl ForRevision for Root {
    fn fit_to(&mut self, version: ProtocolVersion) {
        keep_if(version.has_object_meta(), &mut self.meta);
    }
}

/// The client's answer to `roots/list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ListRootsResult {
    /// The roots.
    pub roots: Vec<Root>,
    /// Metadata (handshake revisions; 2026-07-28 sends this as an input
    /// response, which has no `_meta`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this model does not name.
    #[serde(flatten)]
    pub extra: Extra,
}

impl ListRootsResult {
    /// A result listing `roots`.
    pub fn new(roots: Vec<Root>) -> Self {
        Self {
            roots,
            meta: None,
            extra: Extra::new(),
        }
    }
}

impl ForRevision for ListRootsResult {
    /// No `resultType` here: in 2026-07-28 this travels as an input
    /// response, which the schema gives none.
    fn fit_to(&mut self, version: ProtocolVersion) {
        self.roots.fit_to(version);
        keep_if(version.has_server_requests(), &mut self.meta);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::fitted;

    fn round_trip<T: Serialize + for<'de> Deserialize<'de>>(value: &Value) -> Value {
        let parsed: T = serde_json::from_value(value.clone()).unwrap();
        serde_json::to_value(parsed).unwrap()
    }

    #[test]
    fn spec_examples_round_trip() {
        let root = json!({ "uri": "file:///home/user/projects/myproject", "name": "My Project" });
        assert_eq!(round_trip::<Root>(&root), root);
        let result = json!({ "roots": [
            { "uri": "file:///home/user/repos/frontend", "name": "Frontend Repository" },
            { "uri": "file:///home/user/repos/backend", "name": "Backend Repository" }
        ] });
        assert_eq!(round_trip::<ListRootsResult>(&result), result);
    }

    #[test]
    fn root_meta_exists_from_2025_06_18() {
        let mut root = Root::new("file:///a").with_name("A");
        root.meta = Some(Meta::new());
        assert_eq!(
            fitted(root.clone(), ProtocolVersion::V2025_03_26).meta,
            None
        );
        assert!(fitted(root, ProtocolVersion::V2025_06_18).meta.is_some());
    }

    #[test]
    fn result_meta_is_dropped_for_2026_07_28_input_responses() {
        let mut result = ListRootsResult::new(vec![Root::new("file:///a")]);
        result.meta = Some(Meta::new());
        assert!(
            fitted(result.clone(), ProtocolVersion::V2025_11_25)
                .meta
                .is_some()
        );
        let latest = serde_json::to_value(fitted(result, ProtocolVersion::V2026_07_28)).unwrap();
        assert_eq!(latest, json!({ "roots": [{ "uri": "file:///a" }] }));
    }

    #[test]
    fn unknown_fields_survive() {
        let result = json!({ "roots": [{ "uri": "file:///a", "x-r": 1 }], "x-vendor": "v" });
        assert_eq!(round_trip::<ListRootsResult>(&result), result);
    }
}
