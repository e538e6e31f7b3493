//! Loading skills: discovery in trees, manifests from the bytes, and
//! every refusal (path escapes, symlinks out of the root, names).

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test fixtures: a panic is a failed assertion, as clippy.toml allows inside tests"
)]

use std::path::{Path, PathBuf};

use mcpwire_types::skills::{SkillResources, digest_of};

use super::{SkillCatalog, SkillError};

fn skill_md(name: &str) -> String {
    format!("---\nname: {name}\ndescription: The {name} skill\n---\n\n# {name}\n")
}

/// A fresh directory under the system's temporary directory, removed on drop.
struct TempTree(PathBuf);

impl TempTree {
    fn new(test: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("mcpwire-skills-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    fn write(&self, path: &str, bytes: &[u8]) {
        let path = self.0.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempTree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn a_tree_yields_flat_prefixed_and_nested_skills_with_complete_manifests() {
    let tree = TempTree::new("discovery");
    tree.write("pdf/SKILL.md", skill_md("pdf").as_bytes());
    tree.write("pdf/templates/a.md", b"template a");
    tree.write("pdf/assets/logo.png", &[0x89, b'P', b'N', b'G', 0xff, 0x00]);
    tree.write("pdf/forms/SKILL.md", skill_md("forms").as_bytes());
    tree.write(
        "acme/billing/refunds/SKILL.md",
        skill_md("refunds").as_bytes(),
    );
    tree.write("README.md", b"outside every skill");
    tree.write("pdf/.hidden", b"left out");
    let catalog = SkillCatalog::from_dir(tree.path()).unwrap();
    let uris: Vec<String> = catalog.skills().into_iter().map(|s| s.uri).collect();
    assert_eq!(
        uris,
        [
            "skill://acme/billing/refunds/SKILL.md",
            "skill://pdf/SKILL.md",
            "skill://pdf/forms/SKILL.md",
        ]
    );
    let pdf = catalog.skills().into_iter().nth(1).unwrap();
    let SkillResources::Listed(files) = &pdf.resources else {
        panic!("static skills have manifests");
    };
    let listed: Vec<&str> = files.iter().map(|f| f.uri.as_str()).collect();
    // SKILL.md first; the nested skill's files belong to the enclosing one too.
    assert_eq!(
        listed,
        [
            "skill://pdf/SKILL.md",
            "skill://pdf/assets/logo.png",
            "skill://pdf/forms/SKILL.md",
            "skill://pdf/templates/a.md",
        ]
    );
    let logo = &files[1];
    assert_eq!(logo.size, 6);
    assert_eq!(
        logo.digest,
        digest_of(&[0x89, b'P', b'N', b'G', 0xff, 0x00])
    );
}

#[test]
fn in_memory_paths_that_leave_the_tree_are_refused() {
    for path in [
        "../evil/SKILL.md",
        "/etc/evil/SKILL.md",
        "a//SKILL.md",
        "a/./SKILL.md",
        "a\\b/SKILL.md",
        "C:/evil/SKILL.md",
    ] {
        let outcome = SkillCatalog::new().with_files([(path, skill_md("evil"))]);
        assert!(
            matches!(outcome, Err(SkillError::PathEscape(_))),
            "{path}: {outcome:?}"
        );
    }
}

#[cfg(unix)]
#[test]
fn a_symlink_out_of_the_root_is_refused_and_one_inside_is_followed() {
    let outside = TempTree::new("outside");
    outside.write("secret.txt", b"do not serve");
    let tree = TempTree::new("symlinks");
    tree.write("a/SKILL.md", skill_md("a").as_bytes());
    tree.write("a/real.md", b"inside");
    std::os::unix::fs::symlink(
        tree.path().join("a/real.md"),
        tree.path().join("a/alias.md"),
    )
    .unwrap();
    let catalog = SkillCatalog::from_dir(tree.path()).unwrap();
    let skill = catalog.skills().remove(0);
    assert!(skill.file("skill://a/alias.md").is_some());
    std::os::unix::fs::symlink(
        outside.path().join("secret.txt"),
        tree.path().join("a/secret.txt"),
    )
    .unwrap();
    let outcome = SkillCatalog::from_dir(tree.path());
    assert!(
        matches!(outcome, Err(SkillError::SymlinkEscape { .. })),
        "{outcome:?}"
    );
}

#[test]
fn a_name_differing_from_its_directory_is_refused_with_both_names() {
    let outcome = SkillCatalog::new().with_files([("refunds/SKILL.md", skill_md("returns"))]);
    let Err(error) = outcome else {
        panic!("a mismatched name must be refused");
    };
    assert!(matches!(error, SkillError::NameMismatch { .. }), "{error}");
    let message = error.to_string();
    assert!(
        message.contains("\"returns\"") && message.contains("\"refunds\""),
        "{message}"
    );
}

#[test]
fn names_breaking_the_agent_skills_rule_are_refused() {
    for dir in ["Upper", "double--hyphen", "-lead", "under_score"] {
        let name = dir;
        let outcome = SkillCatalog::new().with_files([(format!("{dir}/SKILL.md"), skill_md(name))]);
        assert!(
            matches!(
                outcome,
                Err(SkillError::InvalidName(_) | SkillError::InvalidPath { .. })
            ),
            "{dir}: {outcome:?}"
        );
    }
}

#[test]
fn a_skill_without_frontmatter_or_description_is_refused() {
    for text in ["# no frontmatter\n", "---\nname: a\n---\n"] {
        let outcome = SkillCatalog::new().with_files([("a/SKILL.md", text)]);
        assert!(
            matches!(outcome, Err(SkillError::Frontmatter { .. })),
            "{text}: {outcome:?}"
        );
    }
}

#[test]
fn a_skill_over_the_limits_is_still_served() {
    // Over 512 files: warned about at load, not refused (SHOULD NOT serve).
    let mut files = vec![("big/SKILL.md".to_owned(), skill_md("big").into_bytes())];
    for i in 0..520 {
        files.push((format!("big/f/{i}.txt"), b"x".to_vec()));
    }
    let catalog = SkillCatalog::new().with_files(files).unwrap();
    let skill = catalog.skills().remove(0);
    assert_eq!(skill.resources.listed().map(<[_]>::len), Some(521));
}

#[test]
fn a_dynamic_skill_needs_a_valid_path_and_matching_frontmatter() {
    let frontmatter = |name: &str| {
        serde_json::json!({"name": name, "description": "d"})
            .as_object()
            .cloned()
            .unwrap()
    };
    let handler = || async { Ok(Vec::new()) };
    assert!(
        SkillCatalog::new()
            .with_dynamic("reports/daily", frontmatter("daily"), handler)
            .is_ok()
    );
    assert!(matches!(
        SkillCatalog::new().with_dynamic("reports/daily", frontmatter("weekly"), handler),
        Err(SkillError::NameMismatch { .. })
    ));
    assert!(matches!(
        SkillCatalog::new().with_dynamic("reports/../daily", frontmatter("daily"), handler),
        Err(SkillError::InvalidPath { .. })
    ));
}
