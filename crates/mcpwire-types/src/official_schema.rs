//! The official JSON Schema of each revision, as vendored in `schema/`
//! (feature `official-schemas`): for tools that judge what a peer sent
//! against the published definitions, such as `mcpwire check`.

use crate::ProtocolVersion;

/// The text of the official schema of `version` (a JSON document whose
/// `definitions`, or `$defs` from 2025-11-25 on, hold every type).
pub fn text(version: ProtocolVersion) -> &'static str {
    match version {
        ProtocolVersion::V2024_11_05 => include_str!("../schema/schema-2024-11-05.json"),
        ProtocolVersion::V2025_03_26 => include_str!("../schema/schema-2025-03-26.json"),
        ProtocolVersion::V2025_06_18 => include_str!("../schema/schema-2025-06-18.json"),
        ProtocolVersion::V2025_11_25 => include_str!("../schema/schema-2025-11-25.json"),
        ProtocolVersion::V2026_07_28 => include_str!("../schema/schema-2026-07-28.json"),
    }
}
