//! The skills commands (extension `io.modelcontextprotocol/skills`):
//! `skills list`, `skills get` and `skills read`, which loads a skill the
//! way a host does (every byte verified against its entry) and says so.

use std::io::Write as _;

use clap::{Args, Subcommand};
use mcpwire::client::Client;
use mcpwire::types::LoggingLevel;
use mcpwire::types::skills::{Skill, SkillResources};

use crate::cli::GlobalOptions;
use crate::commands::no_more_words;
use crate::error::{CliError, CliResult};
use crate::output::{line, print_json, table, to_json};
use crate::session;
use crate::target::resolve;

/// `skills` subcommands.
#[derive(Debug, Clone, Subcommand)]
pub(crate) enum SkillsAction {
    /// List the server's skills with their files (no file is read).
    List(SkillArgs),
    /// Show one skill's current entry: frontmatter and manifest.
    Get(SkillArgs),
    /// Load a skill: read its SKILL.md (or, with FILE, one of its files),
    /// verified against the skill's entry, and print it.
    Read(SkillArgs),
}

/// A target, then the words of the action.
#[derive(Debug, Clone, Args)]
pub(crate) struct SkillArgs {
    /// [TARGET] [SKILL_URI [FILE]]
    #[arg(value_name = "ARGS")]
    pub(crate) words: Vec<String>,
    /// The stdio server to start, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub(crate) command: Vec<String>,
}

/// `skills list|get|read`.
pub(crate) async fn skills(action: &SkillsAction, global: &GlobalOptions) -> CliResult {
    let (SkillsAction::List(args) | SkillsAction::Get(args) | SkillsAction::Read(args)) = action;
    let (target, rest) = resolve(&args.words, &args.command, global)?;
    let words = rest;
    let json_mode = global.json;
    session::run(&target, global, LoggingLevel::Warning, true, |client, _| async move {
        if !client.supports_skills() {
            return Err(CliError::connection(
                "the server does not serve skills (no io.modelcontextprotocol/skills extension)",
            ));
        }
        match action {
            SkillsAction::List(_) => {
                no_more_words(&words)?;
                list(&client, json_mode).await
            }
            SkillsAction::Get(_) => {
                let (uri, rest) = skill_uri(&words)?;
                no_more_words(rest)?;
                get(&client, uri, json_mode).await
            }
            SkillsAction::Read(_) => {
                let (uri, rest) = skill_uri(&words)?;
                let (file, rest) = match rest.split_first() {
                    Some((file, rest)) => (Some(file.as_str()), rest),
                    None => (None, rest),
                };
                no_more_words(rest)?;
                read(&client, uri, file).await
            }
        }
    })
    .await
}

fn skill_uri(words: &[String]) -> CliResult<(&str, &[String])> {
    match words.split_first() {
        Some((uri, rest)) => Ok((uri.as_str(), rest)),
        None => Err(CliError::usage(
            "name the skill by the URI of its SKILL.md (see `mcpwire skills list`)",
        )),
    }
}

/// What a skill's files come to, in words.
fn files_summary(skill: &Skill) -> String {
    match &skill.resources {
        SkillResources::Dynamic => "dynamic".to_owned(),
        SkillResources::Listed(files) => {
            let bytes: u64 = files.iter().map(|f| f.size).sum();
            let count = files.len();
            let noun = if count == 1 { "file" } else { "files" };
            format!("{count} {noun}, {bytes} bytes")
        }
    }
}

async fn list(client: &Client, json_mode: bool) -> CliResult {
    let skills = client.list_skills().await?;
    if json_mode {
        print_json(&to_json(&skills));
        return Ok(());
    }
    let rows: Vec<Vec<String>> = skills
        .iter()
        .map(|skill| {
            vec![
                skill.name().unwrap_or_default().to_owned(),
                skill.uri.clone(),
                files_summary(skill),
                skill.description().unwrap_or_default().to_owned(),
            ]
        })
        .collect();
    line(table(&["NAME", "URI", "FILES", "DESCRIPTION"], &rows));
    Ok(())
}

async fn get(client: &Client, uri: &str, json_mode: bool) -> CliResult {
    let skill = client.get_skill(uri).await?;
    if json_mode {
        print_json(&to_json(&skill));
        return Ok(());
    }
    line(format!("Skill:        {}", skill.uri));
    for (field, value) in &skill.frontmatter {
        let shown = value
            .as_str()
            .map_or_else(|| value.to_string(), str::to_owned);
        line(format!("  {field}: {shown}"));
    }
    match &skill.resources {
        SkillResources::Dynamic => line("Files:        dynamic (no digests to verify)"),
        SkillResources::Listed(files) => {
            let rows: Vec<Vec<String>> = files
                .iter()
                .map(|f| vec![f.uri.clone(), f.size.to_string(), f.digest.clone()])
                .collect();
            line(table(&["FILE", "SIZE", "DIGEST"], &rows));
        }
    }
    Ok(())
}

async fn read(client: &Client, uri: &str, file: Option<&str>) -> CliResult {
    // The current entry, as a host loading a skill by URI confirms it.
    let entry = client.get_skill(uri).await?;
    let loaded = client.load_skill(&entry).await?;
    let bytes = match file {
        None => {
            eprintln!("{}", verification_note(&entry, &entry.uri));
            loaded.text().as_bytes().to_vec()
        }
        Some(file) => {
            let bytes = loaded.read_file(client, file).await?;
            let file_uri = match entry.root() {
                Some(root) if !file.contains("://") => format!("{root}/{file}"),
                _ => file.to_owned(),
            };
            eprintln!("{}", verification_note(&entry, &file_uri));
            bytes
        }
    };
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(&bytes)
        .and_then(|()| stdout.flush())
        .map_err(|error| CliError::connection(format!("cannot write the file out: {error}")))
}

/// What was checked about `uri`, for stderr.
fn verification_note(entry: &Skill, uri: &str) -> String {
    match entry.file(uri) {
        Some(file) if uri == entry.uri => format!(
            "verified {uri}: {} bytes, {}, frontmatter equal to the entry's",
            file.size, file.digest
        ),
        Some(file) => format!(
            "verified {uri}: {} bytes, {} (after {} was verified)",
            file.size, file.digest, entry.uri
        ),
        None => format!("{uri}: dynamic skill, nothing to verify against but the frontmatter"),
    }
}
