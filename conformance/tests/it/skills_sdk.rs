//! A real skills directory (`fixtures/skills`: a nested skill, a binary
//! file, files in subdirectories) served over Streamable HTTP on
//! 127.0.0.1, read by the TypeScript SDK's client through `resources/read`:
//! every byte it receives hashes to the manifest's digest.
//!
//! Needs the SDK (`cargo xtask npm-tools` prints the environment; `cargo
//! xtask ci` sets it). Without `MCPWIRE_NPM_TOOLS` the test skips with a
//! message; with `MCPWIRE_REQUIRE_EXTERNAL=1` it fails instead.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use base64::Engine as _;
use mcpwire_server::Server;
use mcpwire_server::skills::SkillCatalog;
use mcpwire_types::skills::digest_of;
use serde_json::Value;

/// Generous: the first `node` start loads the SDK from disk on a shared,
/// busy machine.
const NODE_TIMEOUT: Duration = Duration::from_secs(60);

fn npm_tools() -> Option<PathBuf> {
    match std::env::var("MCPWIRE_NPM_TOOLS") {
        Ok(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ if std::env::var("MCPWIRE_REQUIRE_EXTERNAL").as_deref() == Ok("1") => {
            panic!(
                "MCPWIRE_NPM_TOOLS is not set but MCPWIRE_REQUIRE_EXTERNAL=1; run `cargo xtask npm-tools`"
            )
        }
        _ => {
            eprintln!(
                "skipped: MCPWIRE_NPM_TOOLS is not set (run `cargo xtask npm-tools` and export what it prints)"
            );
            None
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_typescript_sdk_reads_skill_files_whose_bytes_match_the_manifest() {
    let Some(tools) = npm_tools() else {
        return;
    };
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/skills");
    let catalog = SkillCatalog::from_dir(&fixtures).unwrap();
    let manifest: Vec<(String, String, u64)> = catalog
        .skills()
        .iter()
        .filter_map(|skill| skill.resources.listed().map(<[_]>::to_vec))
        .flatten()
        .map(|file| (file.uri, file.digest, file.size))
        .collect();
    let server = Server::builder("skills-sdk", "1.0.0")
        .skills(catalog)
        .build()
        .unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel();
    let address = "127.0.0.1:0".parse().unwrap();
    let serving = tokio::spawn(conformance::http::serve(
        server,
        address,
        move |endpoints| {
            let _ = tx.send(endpoints.streamable.clone());
            Ok(())
        },
    ));
    let url = tokio::time::timeout(NODE_TIMEOUT, rx)
        .await
        .unwrap()
        .unwrap();

    let wanted = [
        "skill://pdf-processing/form-filling/SKILL.md",
        "skill://pdf-processing/assets/logo.png",
        "skill://pdf-processing/templates/regional/eu-invoice.md",
        "skill://acme/billing/refunds/examples/email.md",
    ];
    // The script must sit beside the SDK's node_modules to import it.
    let script = tools.join("mcpwire-read-skill-files.mjs");
    let source = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/ts/read_skill_files.mjs");
    std::fs::copy(&source, &script).unwrap();
    let node = std::env::var("MCPWIRE_NODE").unwrap_or_else(|_| "node".to_owned());
    let child = tokio::process::Command::new(node)
        .arg(&script)
        .arg(&url)
        .args(wanted)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let output = tokio::time::timeout(NODE_TIMEOUT, child.wait_with_output())
        .await
        .expect("the SDK client finished in time")
        .unwrap();
    serving.abort();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "node failed: {stderr}");
    let seen: Value = serde_json::from_slice(&output.stdout).unwrap();

    // resources/list names the SKILL.md of every skill, nested ones too.
    let listed: Vec<&str> = seen["listed"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["uri"].as_str())
        .collect();
    assert!(
        listed.contains(&"skill://pdf-processing/form-filling/SKILL.md"),
        "{listed:?}"
    );

    for uri in wanted {
        let contents = &seen["read"][uri][0];
        assert_eq!(contents["uri"], uri);
        let bytes = match contents.get("blob").and_then(Value::as_str) {
            Some(blob) => base64::engine::general_purpose::STANDARD
                .decode(blob)
                .unwrap(),
            None => contents["text"].as_str().unwrap().as_bytes().to_vec(),
        };
        let (_, digest, size) = manifest
            .iter()
            .find(|(listed, _, _)| listed == uri)
            .unwrap_or_else(|| panic!("{uri} is in no manifest"));
        assert_eq!(&digest_of(&bytes), digest, "{uri}");
        assert_eq!(bytes.len() as u64, *size, "{uri}");
        if uri.ends_with(".png") {
            assert_eq!(contents["mimeType"], "image/png");
            assert!(contents.get("blob").is_some(), "binary travels as a blob");
        }
    }
}
