//! Fuzz corpora replayed as ordinary tests: every crate with a `fuzz/`
//! directory checks its checked-in corpus on stable, through the same
//! property functions (`fuzz/checks/`) its fuzz targets call.

use std::path::Path;

/// Feeds every file of `{manifest_dir}/fuzz/corpus/{target}` to `check`,
/// the function the fuzz target calls: each must pass its property without
/// panicking. Pass the calling crate's `env!("CARGO_MANIFEST_DIR")`.
///
/// # Panics
///
/// When the corpus cannot be read or holds no file (a checked-in corpus
/// that went missing would make the test vacuous), and whenever `check`
/// panics; the file being checked is named on stderr first, which the
/// test harness shows when the test fails.
#[allow(
    clippy::panic,
    reason = "a test helper: like `assert!`, it fails the calling test by panicking"
)]
pub fn replay(manifest_dir: &str, target: &str, check: fn(&[u8])) {
    let dir = Path::new(manifest_dir).join("fuzz/corpus").join(target);
    let entries = std::fs::read_dir(&dir)
        .unwrap_or_else(|error| panic!("the corpus {} is unreadable: {error}", dir.display()));
    let mut inputs = 0;
    for entry in entries {
        let path = entry
            .unwrap_or_else(|error| panic!("a corpus entry is unreadable: {error}"))
            .path();
        if path.is_file() {
            eprintln!("{}", path.display());
            let input = std::fs::read(&path)
                .unwrap_or_else(|error| panic!("{} is unreadable: {error}", path.display()));
            check(&input);
            inputs += 1;
        }
    }
    assert!(inputs > 0, "no corpus in {}", dir.display());
}
