//! `cargo xtask codegen vendor-spec <spec-dir>`: copies the official schemas
//! and the schema's examples into the types crate, unmodified, and extracts
//! the JSON examples of the prose pages with a manifest saying what each is
//! an instance of.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::doc_blocks::{json_blocks, without_comments};
use super::doc_rules::{Classification, classify, known_invalid, report, unused_hand_rules};
use super::model;
use super::spec::{REVISIONS, Schema};

/// The schema examples directory (upstream ships examples for the newest revision only).
const EXAMPLES_DIR: &str = "examples-2026-07-28";

/// Prose directories under `docs/` whose JSON examples are extracted, with
/// the revision they describe (the extensions are written for 2026-07-28).
const DOC_DIRS: &[(&str, &str)] = &[
    ("2025-11-25", "2025-11-25"),
    ("2026-07-28", "2026-07-28"),
    ("extensions", "2026-07-28"),
];

/// Where the extracted prose examples go, under `schema/`.
const DOCS_EXAMPLES_DIR: &str = "docs-examples";

/// One extracted example, ready to be written.
struct Extracted {
    /// Path relative to `docs-examples/`, when the block is JSON.
    file: Option<String>,
    /// The JSON text written to `file`.
    text: String,
    /// The manifest entry.
    entry: Map<String, Value>,
}

/// Refreshes `<types_crate>/schema/` from the spec copy at `spec_dir`.
pub(crate) fn run(spec_dir: &Path, types_crate: &Path) -> Result<(), String> {
    let schemas = Schema::load_all(spec_dir)?;
    let methods = model::methods(&schemas)?;
    let extracted = extract_docs(&spec_dir.join("docs"), &schemas, &methods)?;

    let dest = types_crate.join("schema");
    create_dir(&dest)?;
    for revision in REVISIONS {
        let name = format!("schema-{revision}.json");
        copy_file(&spec_dir.join(&name), &dest.join(&name))?;
    }
    replace_dir_with_copy(&spec_dir.join(EXAMPLES_DIR), &dest.join(EXAMPLES_DIR))?;

    let docs_dest = dest.join(DOCS_EXAMPLES_DIR);
    remove_dir(&docs_dest)?;
    let mut entries = Vec::new();
    let mut written = 0;
    for example in extracted {
        if let Some(file) = &example.file {
            let path = docs_dest.join(file);
            if let Some(parent) = path.parent() {
                create_dir(parent)?;
            }
            write_file(&path, &format!("{}\n", example.text))?;
            written += 1;
        }
        entries.push(Value::Object(example.entry));
    }
    let manifest = json!({
        "about": "JSON examples of the prose pages, extracted by `cargo xtask codegen vendor-spec`; \
                  do not edit by hand. Each entry names the schema definition the value at \
                  `pointer` is an instance of (in the page's revision), or why it is skipped; \
                  `invalid_as_printed` says why an instance fails its schema as the page prints it.",
        "examples": entries,
    });
    let text = serde_json::to_string_pretty(&manifest)
        .map_err(|error| format!("could not serialize the manifest: {error}"))?;
    write_file(&docs_dest.join("manifest.json"), &format!("{text}\n"))?;
    println!(
        "vendor-spec: copied {} schemas and {EXAMPLES_DIR}, extracted {written} prose examples ({} blocks)",
        REVISIONS.len(),
        entries.len()
    );
    Ok(())
}

/// Extracts and classifies every `json` block of the prose pages; fails,
/// listing every block, when some block has no rule.
fn extract_docs(
    docs: &Path,
    schemas: &[Schema],
    methods: &[model::MethodSpec],
) -> Result<Vec<Extracted>, String> {
    let mut extracted = Vec::new();
    let mut problems: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut seen = Vec::new();
    for (dir, revision) in DOC_DIRS {
        let schema = schemas
            .iter()
            .find(|schema| schema.revision == *revision)
            .ok_or_else(|| format!("no schema for {revision}"))?;
        for page_path in mdx_files(&docs.join(dir))? {
            let relative = page_path.strip_prefix(docs).unwrap_or(&page_path);
            let page = slash_path(relative);
            let within = slash_path(relative.strip_prefix(dir).unwrap_or(relative));
            let stem = within.trim_end_matches(".mdx").replace('/', "-");
            let source = std::fs::read_to_string(&page_path)
                .map_err(|error| format!("could not read {}: {error}", page_path.display()))?;
            let mut earlier = Vec::new();
            for block in json_blocks(&source) {
                seen.push((page.clone(), block.index));
                let mut entry = Map::new();
                entry.insert("page".into(), json!(page));
                entry.insert("block".into(), json!(block.index));
                entry.insert("line".into(), json!(block.line));
                entry.insert("revision".into(), json!(revision));
                let parsed = match serde_json::from_str::<Value>(&block.text) {
                    Ok(value) => Some((value, block.text.clone())),
                    Err(error) => {
                        let stripped = without_comments(&block.text).and_then(|text| {
                            serde_json::from_str::<Value>(&text)
                                .ok()
                                .map(|value| (value, text))
                        });
                        if stripped.is_some() {
                            entry.insert("comments_removed".into(), json!(true));
                        } else {
                            let reason = format!(
                                "not JSON even without `//` comments (it elides values): {error}"
                            );
                            entry.insert("skip".into(), json!(reason));
                        }
                        stripped
                    }
                };
                let Some((value, text)) = parsed else {
                    extracted.push(Extracted {
                        file: None,
                        text: String::new(),
                        entry,
                    });
                    continue;
                };
                let file = format!("{dir}/{stem}-{}.json", block.index);
                entry.insert("file".into(), json!(file));
                match classify(&page, block.index, &value, &earlier, schema, methods) {
                    Ok(Classification::Instance(target)) => {
                        entry.extend(target.to_json());
                        if let Some(reason) = known_invalid(&page, block.index) {
                            entry.insert("invalid_as_printed".into(), json!(reason));
                        }
                    }
                    Ok(Classification::Skip(reason)) => {
                        entry.insert("skip".into(), json!(reason));
                    }
                    Err(message) => problems.entry(page.clone()).or_default().push(format!(
                        "block {} (line {}): {message}",
                        block.index, block.line
                    )),
                }
                earlier.push(value);
                extracted.push(Extracted {
                    file: Some(file),
                    text,
                    entry,
                });
            }
        }
    }
    for stale in unused_hand_rules(&seen) {
        problems
            .entry("hand rules".to_owned())
            .or_default()
            .push(stale);
    }
    if problems.is_empty() {
        Ok(extracted)
    } else {
        Err(report(&problems))
    }
}

/// Every `.mdx` file under `dir`, sorted.
fn mdx_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        let entries = std::fs::read_dir(&current)
            .map_err(|error| format!("could not list {}: {error}", current.display()))?;
        for entry in entries {
            let path = entry
                .map_err(|error| format!("could not list {}: {error}", current.display()))?
                .path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|extension| extension == "mdx") {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// `path` with `/` separators.
fn slash_path(path: &Path) -> String {
    let parts: Vec<String> = path
        .components()
        .map(|part| part.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

/// Replaces `dest` with a byte-for-byte copy of the tree at `source`.
fn replace_dir_with_copy(source: &Path, dest: &Path) -> Result<(), String> {
    remove_dir(dest)?;
    create_dir(dest)?;
    let entries = std::fs::read_dir(source)
        .map_err(|error| format!("could not list {}: {error}", source.display()))?;
    for entry in entries {
        let path = entry
            .map_err(|error| format!("could not list {}: {error}", source.display()))?
            .path();
        let target = dest.join(path.file_name().unwrap_or_default());
        if path.is_dir() {
            replace_dir_with_copy(&path, &target)?;
        } else {
            copy_file(&path, &target)?;
        }
    }
    Ok(())
}

fn copy_file(source: &Path, dest: &Path) -> Result<(), String> {
    std::fs::copy(source, dest).map(drop).map_err(|error| {
        format!(
            "could not copy {} to {}: {error}",
            source.display(),
            dest.display()
        )
    })
}

fn write_file(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text)
        .map_err(|error| format!("could not write {}: {error}", path.display()))
}

fn create_dir(path: &Path) -> Result<(), String> {
    std::fs::create_dir_all(path)
        .map_err(|error| format!("could not create {}: {error}", path.display()))
}

/// Removes the directory `path` if it exists (it is one this command wrote).
fn remove_dir(path: &Path) -> Result<(), String> {
    if path.exists() {
        std::fs::remove_dir_all(path)
            .map_err(|error| format!("could not remove {}: {error}", path.display()))?;
    }
    Ok(())
}
