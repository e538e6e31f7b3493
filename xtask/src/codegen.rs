//! `cargo xtask codegen`: the generated, committed files of the workspace.
//!
//! - `cargo xtask codegen` regenerates the method table of mcpwire-types
//!   (`crates/mcpwire-types/src/methods/*.rs` except `mod.rs`) from the
//!   vendored schemas under `crates/mcpwire-types/schema/`.
//! - `cargo xtask codegen --check` regenerates in memory and fails when a
//!   committed file differs (a test runs this too, so a stale table fails
//!   `cargo test`).
//! - `cargo xtask codegen vendor-spec <spec-dir>` refreshes the vendored
//!   schemas, the schema's examples and the JSON examples extracted from the
//!   prose pages (with their manifest) from an offline copy of the spec.

mod doc_blocks;
mod doc_rules;
mod model;
mod render;
mod spec;
mod vendor;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::workspace_root;

/// What `cargo xtask codegen help` prints.
const USAGE: &str = "\
usage: cargo xtask codegen [--check]
       cargo xtask codegen vendor-spec <spec-dir>

  (no argument)          regenerate crates/mcpwire-types/src/methods/ from the vendored schemas
  --check                fail if the committed generated files are stale
  vendor-spec <dir>      copy schemas and examples from <dir> (e.g. ../shared/spec) into
                         crates/mcpwire-types/schema/ and re-extract the prose examples
";

/// Runs `cargo xtask codegen` with `args`.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let root = workspace_root();
    match args {
        [] => {
            let changed = write_generated(&root)?;
            if changed.is_empty() {
                println!("codegen: generated files are up to date");
            }
            for path in changed {
                println!("codegen: wrote {}", path.display());
            }
            Ok(())
        }
        [flag] if flag == "--check" => check_generated(&root),
        [command, spec_dir] if command == "vendor-spec" => {
            vendor::run(Path::new(spec_dir), &root.join(TYPES_CRATE))
        }
        [help] if help == "help" || help == "--help" || help == "-h" => {
            print!("{USAGE}");
            Ok(())
        }
        other => Err(format!("unexpected arguments {other:?}\n\n{USAGE}")),
    }
}

/// The types crate, relative to the workspace root.
const TYPES_CRATE: &str = "crates/mcpwire-types";

/// Where the generated method files go, relative to the workspace root.
const METHODS_DIR: &str = "crates/mcpwire-types/src/methods";

/// Every generated file (absolute path) with its formatted text.
fn generated(root: &Path) -> Result<Vec<(PathBuf, String)>, String> {
    let schemas = spec::Schema::load_all(&root.join(TYPES_CRATE).join("schema"))?;
    let methods = model::methods(&schemas)?;
    let dir = root.join(METHODS_DIR);
    render::files(&methods)
        .into_iter()
        .map(|file| {
            let text = with_header(&rustfmt(root, &file.text)?);
            Ok((dir.join(file.name), text))
        })
        .collect()
}

/// Writes the generated files whose text changed; returns their paths.
fn write_generated(root: &Path) -> Result<Vec<PathBuf>, String> {
    let mut changed = Vec::new();
    std::fs::create_dir_all(root.join(METHODS_DIR))
        .map_err(|error| format!("could not create {METHODS_DIR}: {error}"))?;
    for (path, text) in generated(root)? {
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            std::fs::write(&path, text)
                .map_err(|error| format!("could not write {}: {error}", path.display()))?;
            changed.push(path);
        }
    }
    Ok(changed)
}

/// Fails, naming every stale file, when a committed generated file differs
/// from what the generator makes now.
fn check_generated(root: &Path) -> Result<(), String> {
    let stale: Vec<String> = generated(root)?
        .into_iter()
        .filter(|(path, text)| std::fs::read_to_string(path).ok().as_deref() != Some(text.as_str()))
        .map(|(path, _)| {
            path.strip_prefix(root)
                .unwrap_or(&path)
                .display()
                .to_string()
        })
        .collect();
    if stale.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "generated files are stale (run `cargo xtask codegen`): {}",
            stale.join(", ")
        ))
    }
}

/// Inserts [`render::GENERATED_HEADER`] after the leading `//!` lines.
///
/// The header is added after formatting because rustfmt leaves files that
/// say `@generated` unformatted.
fn with_header(formatted: &str) -> String {
    let doc_lines = formatted
        .lines()
        .take_while(|line| line.starts_with("//!"))
        .count();
    let mut out = String::with_capacity(formatted.len() + render::GENERATED_HEADER.len() + 1);
    for (index, line) in formatted.lines().enumerate() {
        if index == doc_lines {
            out.push_str(render::GENERATED_HEADER);
            out.push('\n');
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Formats Rust source with the workspace's rustfmt configuration.
fn rustfmt(root: &Path, source: &str) -> Result<String, String> {
    let mut child = Command::new("rustfmt")
        .args(["--edition", "2024", "--emit", "stdout", "--config-path"])
        .arg(root.join("rustfmt.toml"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| format!("could not run rustfmt: {error}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(source.as_bytes())
            .map_err(|error| format!("could not feed rustfmt: {error}"))?;
    }
    let output = child
        .wait_with_output()
        .map_err(|error| format!("rustfmt did not finish: {error}"))?;
    if !output.status.success() {
        return Err(format!(
            "rustfmt rejected generated code: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    String::from_utf8(output.stdout)
        .map_err(|error| format!("rustfmt output is not UTF-8: {error}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn committed_method_table_is_fresh() {
        if let Err(message) = check_generated(&workspace_root()) {
            panic!("{message}");
        }
    }

    #[test]
    fn header_goes_after_the_file_doc_lines() {
        let text = with_header("//! One.\n//! Two.\n\nuse x;\n");
        assert_eq!(
            text,
            format!(
                "//! One.\n//! Two.\n{}\n\nuse x;\n",
                render::GENERATED_HEADER
            )
        );
    }
}
