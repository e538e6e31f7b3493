//! Tier-1 conformance: every wire transcript under `transcripts/<revision>/`
//! replayed against a fresh everything-server session over an in-memory
//! transport (no Node, no network). The format is described in
//! `transcripts/README.md`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use conformance::transcript::{Transcript, replay};
use mcpwire_types::ProtocolVersion;

/// How long each expected message may take to arrive. The slowest fixture
/// (the logging tool) needs about 100 ms; the margin is for loaded machines.
const WAIT: Duration = Duration::from_secs(10);

fn transcripts_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("transcripts")
}

/// The revision directories, sorted.
fn revision_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(transcripts_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// The transcripts of one revision directory, sorted.
fn transcripts_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "txt"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_revision_has_transcripts_and_every_directory_is_a_revision() {
    let names: Vec<String> = revision_dirs()
        .iter()
        .map(|dir| dir.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let mut revisions: Vec<String> = ProtocolVersion::ALL
        .iter()
        .map(ToString::to_string)
        .collect();
    revisions.sort();
    assert_eq!(names, revisions);
    for dir in revision_dirs() {
        assert!(
            !transcripts_in(&dir).is_empty(),
            "{} holds no transcript",
            dir.display()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_transcript_replays_against_the_everything_server() {
    let server = conformance::everything::server().unwrap();
    let mut failures = Vec::new();
    let mut replayed = 0;
    for dir in revision_dirs() {
        for path in transcripts_in(&dir) {
            let shown = path
                .strip_prefix(transcripts_dir())
                .unwrap()
                .display()
                .to_string();
            let text = std::fs::read_to_string(&path).unwrap();
            let transcript = match Transcript::parse(&text) {
                Ok(transcript) => transcript,
                Err(error) => {
                    failures.push(format!("{shown}: {error}"));
                    continue;
                }
            };
            replayed += 1;
            // Each transcript gets a fresh session of the same server, as
            // each runner scenario does.
            if let Err(error) = replay(&server, &transcript, WAIT).await {
                failures.push(format!("{shown}: {error}"));
            }
        }
    }
    assert!(replayed > 0, "no transcript found");
    assert!(
        failures.is_empty(),
        "{} transcript(s) failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// The replay itself must be able to fail: a transcript expecting a wrong
/// answer is reported at the line of that expectation.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_expectation_fails_at_its_line() {
    let server = conformance::everything::server().unwrap();
    let text = r#"# ping before initialize, expected with a wrong result
> {"jsonrpc": "2.0", "id": 1, "method": "ping"}
< {"jsonrpc": "2.0", "id": 1, "result": {"unexpected": true}}
"#;
    let transcript = Transcript::parse(text).unwrap();
    let error = replay(&server, &transcript, WAIT).await.unwrap_err();
    assert_eq!(error.line, Some(3), "{error}");
    assert!(error.message.contains("missing key"), "{error}");
}

/// A message the transcript does not expect fails the replay after its end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unexpected_extra_message_fails_the_replay() {
    let server = conformance::everything::server().unwrap();
    let text = "> {\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"}\n";
    let transcript = Transcript::parse(text).unwrap();
    let error = replay(&server, &transcript, WAIT).await.unwrap_err();
    assert_eq!(error.line, None, "{error}");
    assert!(error.message.contains("no entry expects"), "{error}");
}
