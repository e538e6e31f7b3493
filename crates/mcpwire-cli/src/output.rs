//! Writing results: aligned tables and text for people, JSON for programs,
//! and binary contents (images, audio, blobs) saved to files.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use serde_json::Value;

use crate::error::{CliError, CliResult};

/// Prints `value` as pretty JSON on stdout.
pub(crate) fn print_json(value: &Value) {
    line(serde_json::to_string_pretty(value).unwrap_or_default());
}

/// Prints a line on stdout. A closed stdout (`mcpwire inspect | head`)
/// is not an error worth more than stopping the output.
pub(crate) fn line(text: impl AsRef<str>) {
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{}", text.as_ref()).and_then(|()| stdout.flush());
}

/// `value` as JSON, for output.
pub(crate) fn to_json(value: &impl serde::Serialize) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// Renders rows under headers as columns aligned with spaces; long cells
/// are cut so a row stays readable.
pub(crate) fn table(headers: &[&str], rows: &[Vec<String>]) -> String {
    const MAX_CELL: usize = 60;
    let cut = |cell: &str| -> String {
        let single: String = cell.replace('\n', " ");
        if single.chars().count() > MAX_CELL {
            let kept: String = single.chars().take(MAX_CELL - 1).collect();
            format!("{kept}…")
        } else {
            single
        }
    };
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|row| row.iter().map(|c| cut(c)).collect())
        .collect();
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let render = |cells: Vec<&str>| -> String {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        padded.join("  ").trim_end().to_owned()
    };
    let mut out = vec![render(headers.to_vec())];
    out.push(render(
        widths
            .iter()
            .map(|w| "─".repeat(*w))
            .collect::<Vec<_>>()
            .iter()
            .map(String::as_str)
            .collect(),
    ));
    for row in &rows {
        out.push(render(row.iter().map(String::as_str).collect()));
    }
    out.join("\n")
}

/// The file extension for a MIME type.
fn extension(mime: &str) -> &str {
    match mime {
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "image/svg+xml" => "svg",
        "audio/wav" | "audio/x-wav" | "audio/wave" => "wav",
        "audio/mpeg" => "mp3",
        "audio/ogg" => "ogg",
        "application/pdf" => "pdf",
        _ => "bin",
    }
}

/// Decodes base64 `data` and writes it to a new file in `dir`; returns its path.
///
/// # Errors
///
/// A protocol error when the data is not base64; an I/O error when the
/// file cannot be written.
pub(crate) fn save_binary(dir: &Path, stem: &str, mime: &str, data: &str) -> CliResult<PathBuf> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data.trim())
        .map_err(|error| {
            CliError::connection(format!("the server sent invalid base64: {error}"))
        })?;
    std::fs::create_dir_all(dir)?;
    let stamp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default();
    // Never overwrite: count up until a name is free (bounded).
    for n in 0..1000 {
        let path = dir.join(format!("{stem}-{stamp}-{n}.{}", extension(mime)));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut file) => {
                std::io::Write::write_all(&mut file, &bytes)?;
                return Ok(path);
            }
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(error) => return Err(error.into()),
        }
    }
    Err(CliError::connection(
        "no free file name to save the content to",
    ))
}

/// Renders content blocks (of a tool result or prompt) as text lines,
/// saving images and audio into `dir`. In JSON mode the saved paths are
/// written back into the blocks (`savedTo`) instead of their data.
///
/// # Errors
///
/// As [`save_binary`].
pub(crate) fn render_content(blocks: &mut [Value], dir: &Path) -> CliResult<Vec<String>> {
    let mut lines = Vec::new();
    for block in blocks {
        let kind = block
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_owned();
        match kind.as_str() {
            "text" => lines.push(
                block
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
            ),
            "image" | "audio" => {
                let mime = block
                    .get("mimeType")
                    .and_then(Value::as_str)
                    .unwrap_or("application/octet-stream")
                    .to_owned();
                let data = block
                    .get("data")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                let path = save_binary(dir, &kind, &mime, &data)?;
                lines.push(format!("[{kind} {mime} saved to {}]", path.display()));
                if let Some(object) = block.as_object_mut() {
                    object.remove("data");
                    object.insert("savedTo".into(), Value::String(path.display().to_string()));
                }
            }
            "resource_link" => {
                let uri = block.get("uri").and_then(Value::as_str).unwrap_or_default();
                let name = block
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                lines.push(format!("[link {name}: {uri}]"));
            }
            "resource" => {
                let Some(resource) = block.get_mut("resource") else {
                    continue;
                };
                let mut one = [std::mem::take(resource)];
                lines.extend(render_resource_contents(&mut one, dir)?);
                if let Some(slot) = block.get_mut("resource") {
                    *slot = std::mem::take(&mut one[0]);
                }
            }
            other => lines.push(format!("[{other} content]")),
        }
    }
    Ok(lines)
}

/// Renders resource contents (of `resources/read` or an embedded resource):
/// text as is, blobs saved to files.
///
/// # Errors
///
/// As [`save_binary`].
pub(crate) fn render_resource_contents(
    contents: &mut [Value],
    dir: &Path,
) -> CliResult<Vec<String>> {
    let mut lines = Vec::new();
    for item in contents {
        let uri = item
            .get("uri")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let mime = item
            .get("mimeType")
            .and_then(Value::as_str)
            .unwrap_or("application/octet-stream")
            .to_owned();
        if let Some(text) = item.get("text").and_then(Value::as_str) {
            lines.push(format!("── {uri} ({mime})"));
            lines.push(text.to_owned());
        } else if let Some(blob) = item.get("blob").and_then(Value::as_str).map(str::to_owned) {
            let path = save_binary(dir, "resource", &mime, &blob)?;
            lines.push(format!("── {uri} ({mime}) saved to {}", path.display()));
            if let Some(object) = item.as_object_mut() {
                object.remove("blob");
                object.insert("savedTo".into(), Value::String(path.display().to_string()));
            }
        }
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn tables_align_columns_and_cut_long_cells() {
        let long = "x".repeat(100);
        let text = table(
            &["a", "bb"],
            &[vec!["1".into(), long], vec!["22".into(), "y".into()]],
        );
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "a   bb");
        assert!(lines[2].starts_with("1   xxx"));
        assert!(lines[2].ends_with('…'));
        assert_eq!(lines[3], "22  y");
    }

    #[test]
    fn images_are_saved_to_files_and_their_paths_reported() {
        let dir = std::env::temp_dir().join(format!("mcpwire-cli-out-{}", std::process::id()));
        let mut blocks = vec![
            json!({"type": "text", "text": "hello"}),
            json!({"type": "image", "mimeType": "image/png", "data": "aGk="}),
        ];
        let lines = render_content(&mut blocks, &dir).unwrap();
        assert_eq!(lines[0], "hello");
        let saved = blocks[1]["savedTo"].as_str().unwrap();
        assert!(lines[1].contains(saved));
        assert_eq!(std::fs::read(saved).unwrap(), b"hi");
        assert!(blocks[1].get("data").is_none());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
