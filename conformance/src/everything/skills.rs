//! The skills fixtures (`io.modelcontextprotocol/skills`): the tree under
//! `conformance/fixtures/skills` (a flat skill, one under an `acme/billing`
//! prefix, one with supporting files in subdirectories, a binary file and
//! a nested skill), built into the binary, plus one dynamic skill, with
//! `resources/directory/read` served.

use mcpwire_server::ServerBuilder;
use mcpwire_server::skills::{SkillCatalog, SkillError, SkillFiles};
use serde_json::{Map, Value};

/// The fixture tree's files, by their path in the tree.
pub const FIXTURE_FILES: [(&str, &[u8]); 9] = [
    (
        "acme/billing/refunds/SKILL.md",
        include_bytes!("../../fixtures/skills/acme/billing/refunds/SKILL.md"),
    ),
    (
        "acme/billing/refunds/examples/email.md",
        include_bytes!("../../fixtures/skills/acme/billing/refunds/examples/email.md"),
    ),
    (
        "git-workflow/SKILL.md",
        include_bytes!("../../fixtures/skills/git-workflow/SKILL.md"),
    ),
    (
        "pdf-processing/SKILL.md",
        include_bytes!("../../fixtures/skills/pdf-processing/SKILL.md"),
    ),
    (
        "pdf-processing/assets/logo.png",
        include_bytes!("../../fixtures/skills/pdf-processing/assets/logo.png"),
    ),
    (
        "pdf-processing/form-filling/SKILL.md",
        include_bytes!("../../fixtures/skills/pdf-processing/form-filling/SKILL.md"),
    ),
    (
        "pdf-processing/references/FORMS.md",
        include_bytes!("../../fixtures/skills/pdf-processing/references/FORMS.md"),
    ),
    (
        "pdf-processing/templates/invoice.md",
        include_bytes!("../../fixtures/skills/pdf-processing/templates/invoice.md"),
    ),
    (
        "pdf-processing/templates/regional/eu-invoice.md",
        include_bytes!("../../fixtures/skills/pdf-processing/templates/regional/eu-invoice.md"),
    ),
];

/// The dynamic skill's path.
pub const DYNAMIC_SKILL: &str = "reports/daily";

/// The fixture catalog.
///
/// # Errors
///
/// When a fixture is refused (a bug in the fixtures or a regression in
/// the loader).
pub fn catalog() -> Result<SkillCatalog, SkillError> {
    let frontmatter = Map::from_iter([
        ("name".to_owned(), Value::from("daily")),
        (
            "description".to_owned(),
            Value::from("Assemble today's operational report from live data"),
        ),
    ]);
    SkillCatalog::new().with_files(FIXTURE_FILES)?.with_dynamic(
        DYNAMIC_SKILL,
        frontmatter,
        || async { Ok(daily_report()) },
    )
}

/// The dynamic skill's files, made at each read.
fn daily_report() -> SkillFiles {
    let skill = "---\nname: daily\ndescription: Assemble today's operational report from live data\n---\n\n\
                 # Daily report\n\nRead `data/today.md` and summarise it in five lines.\n";
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default();
    vec![
        ("SKILL.md".to_owned(), skill.as_bytes().to_vec()),
        (
            "data/today.md".to_owned(),
            format!("# Today\n\nGenerated at {now} (seconds since 1970).\n").into_bytes(),
        ),
    ]
}

/// Adds the fixture skills; a refused fixture is logged and left out, so
/// that the other scenarios still run (the skills scenarios then fail).
pub(super) fn register(builder: ServerBuilder) -> ServerBuilder {
    match catalog() {
        Ok(catalog) => builder.skills(catalog),
        Err(error) => {
            tracing::error!(%error, "the skills fixtures were refused");
            builder
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fixture_loads_and_the_pdf_skill_lists_its_nested_and_binary_files() {
        let catalog = catalog().unwrap();
        let skills = catalog.skills();
        assert_eq!(skills.len(), 5);
        let pdf = skills
            .iter()
            .find(|s| s.uri == "skill://pdf-processing/SKILL.md")
            .unwrap();
        for file in [
            "skill://pdf-processing/assets/logo.png",
            "skill://pdf-processing/form-filling/SKILL.md",
            "skill://pdf-processing/templates/regional/eu-invoice.md",
        ] {
            assert!(pdf.file(file).is_some(), "{file}");
        }
    }
}
