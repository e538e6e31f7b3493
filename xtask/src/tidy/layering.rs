//! Tidy rule: crates depend only along the edges the layer map allows.
//!
//! The rules encode `DESIGN.md` ("Layers"): the sans-IO core (L0 to L2)
//! never pulls an async runtime, an HTTP stack or tower at any depth;
//! transports and runtimes never depend on each other; nothing depends on
//! the facade. They are checked with `cargo tree` over normal dependencies
//! with all features on, so an optional feature cannot smuggle in a runtime,
//! while dev-dependencies (tests may use anything) are left out. A rule for
//! a crate that does not exist yet is skipped, so the table can describe
//! the whole layer map from the start.

use std::collections::BTreeSet;
use std::path::Path;

use super::{cargo_stdout, workspace_members};

/// Which workspace crates (names starting with `mcpwire`) a crate may reach.
#[derive(Debug, Clone, Copy)]
enum Reach {
    /// Only these, at any depth; every other `mcpwire*` crate is forbidden.
    Only(&'static [&'static str]),
    /// Any but the facade `mcpwire`.
    AnyButFacade,
    /// Above the facade (the command-line tool, the demo server): its own
    /// direct dependencies among the workspace crates are only these (the
    /// facade first), so it uses mcpwire the way any user does; what they
    /// pull in turn is theirs to check.
    Direct(&'static [&'static str]),
}

/// What one crate may depend on.
#[derive(Debug, Clone, Copy)]
struct Rule {
    /// The crate the rule is about.
    krate: &'static str,
    /// The workspace crates it may reach.
    reach: Reach,
    /// External crates it must not reach at any depth; `name-*` matches
    /// every crate whose name starts with `name-`.
    forbidden: &'static [&'static str],
    /// Why, in one sentence, for the problem report.
    why: &'static str,
}

/// The async runtime, HTTP stack and service abstraction that enter at L3.
const RUNTIME_STACK: &[&str] = &["tokio", "tokio-*", "hyper", "hyper-*", "tower", "tower-*"];

/// What the runtime-free examples must not reach: the runtime stack, and
/// any executor (the `futures` facade crate carries one by default).
const EXECUTORS: &[&str] = &[
    "tokio",
    "tokio-*",
    "hyper",
    "hyper-*",
    "tower",
    "tower-*",
    "futures",
    "futures-executor",
    "async-std",
    "smol",
    "async-executor",
];

/// Why the runtime-free examples stay so.
const NO_RUNTIME_EXAMPLE: &str = "this example proves the engine and the codec run without an \
                                  async runtime (DESIGN.md, Layers; issue 21)";

/// Why L0 to L2 stay runtime-free.
const SANS_IO: &str = "L0-L2 are sans-IO: no async runtime, HTTP stack or tower below the \
                       transports (DESIGN.md, Layers)";

/// Why the store crate stays runtime-free.
const STORE: &str = "mcpwire-store holds the traits of shared state for every backend: types \
                     and jsonrpc only, and no async runtime, HTTP stack or tower at any depth \
                     (DESIGN.md, Layers; issue 19)";

/// Why transports and runtimes stay apart.
const TRANSPORT: &str = "transports depend on jsonrpc (and types) only; they meet runtimes in \
                         the facade or user code (DESIGN.md, Layers)";

/// Why runtimes stay apart from transports.
const RUNTIME: &str = "runtimes depend on session, store, types and jsonrpc only; they meet \
                       transports in the facade or user code (DESIGN.md, Layers)";

/// The layer map as rules, one per crate below the facade.
const RULES: &[Rule] = &[
    Rule {
        krate: "mcpwire-jsonrpc",
        reach: Reach::Only(&[]),
        forbidden: RUNTIME_STACK,
        why: SANS_IO,
    },
    Rule {
        krate: "mcpwire-types",
        reach: Reach::Only(&["mcpwire-jsonrpc"]),
        forbidden: RUNTIME_STACK,
        why: SANS_IO,
    },
    Rule {
        krate: "mcpwire-session",
        reach: Reach::Only(&["mcpwire-types", "mcpwire-jsonrpc"]),
        forbidden: RUNTIME_STACK,
        why: SANS_IO,
    },
    Rule {
        krate: "mcpwire-store",
        reach: Reach::Only(&["mcpwire-types", "mcpwire-jsonrpc"]),
        forbidden: RUNTIME_STACK,
        why: STORE,
    },
    Rule {
        krate: "mcpwire-redis",
        // A shared-state backend implements mcpwire-store's traits; it must
        // not pull the transport or the runtime its users may not want.
        reach: Reach::Only(&["mcpwire-store", "mcpwire-types", "mcpwire-jsonrpc"]),
        forbidden: &["hyper", "hyper-*", "tower", "tower-*"],
        why: "a store backend depends on mcpwire-store (and types, jsonrpc) only: never on \
              mcpwire-http or mcpwire-server (DESIGN.md, Layers; issue 19)",
    },
    Rule {
        krate: "mcpwire-stdio",
        reach: Reach::Only(&["mcpwire-jsonrpc", "mcpwire-types"]),
        forbidden: &[],
        why: TRANSPORT,
    },
    Rule {
        krate: "mcpwire-http",
        reach: Reach::Only(&["mcpwire-store", "mcpwire-jsonrpc", "mcpwire-types"]),
        forbidden: &[],
        why: TRANSPORT,
    },
    Rule {
        krate: "mcpwire-http-legacy",
        reach: Reach::Only(&[
            "mcpwire-http",
            "mcpwire-store",
            "mcpwire-jsonrpc",
            "mcpwire-types",
        ]),
        forbidden: &[],
        why: "the legacy transport builds on mcpwire-http (never the reverse) and meets \
              runtimes only in the facade or user code (DESIGN.md, Layers)",
    },
    Rule {
        krate: "mcpwire-auth",
        // The one transport edge: the optional `http-client` feature
        // implements mcpwire-http's client `Authorizer` hook for the OAuth
        // client (as http-legacy builds on http), so users need not write
        // the adapter; mcpwire-http never depends on mcpwire-auth.
        reach: Reach::Only(&[
            "mcpwire-http",
            "mcpwire-store",
            "mcpwire-types",
            "mcpwire-jsonrpc",
        ]),
        forbidden: &[],
        why: "auth depends on the codec (for the one BoxFuture) and types at most, and on \
              mcpwire-http only for its client (the HTTPS stack of HyperFetch and the optional \
              Authorizer adapter) (DESIGN.md, Layers)",
    },
    Rule {
        krate: "mcpwire-server",
        reach: Reach::Only(&[
            "mcpwire-session",
            "mcpwire-store",
            "mcpwire-types",
            "mcpwire-jsonrpc",
        ]),
        forbidden: &[],
        why: RUNTIME,
    },
    Rule {
        krate: "mcpwire-client",
        reach: Reach::Only(&["mcpwire-session", "mcpwire-types", "mcpwire-jsonrpc"]),
        forbidden: &[],
        why: RUNTIME,
    },
    Rule {
        krate: "sans-io-server",
        reach: Reach::Only(&["mcpwire-session", "mcpwire-types", "mcpwire-jsonrpc"]),
        forbidden: EXECUTORS,
        why: NO_RUNTIME_EXAMPLE,
    },
    Rule {
        krate: "codec-only",
        reach: Reach::Only(&["mcpwire-jsonrpc"]),
        forbidden: EXECUTORS,
        why: NO_RUNTIME_EXAMPLE,
    },
    Rule {
        krate: "unix-socket-transport",
        reach: Reach::Only(&["mcpwire-jsonrpc"]),
        forbidden: &["hyper", "hyper-*", "tower", "tower-*"],
        why: "the one-page transport of docs/custom-transport.md depends on the codec and \
              its I/O crate only, so that it can be copied into any crate",
    },
    Rule {
        krate: "mcpwire-test",
        reach: Reach::AnyButFacade,
        forbidden: &[],
        why: "nothing depends on the facade (DESIGN.md, Layers)",
    },
    Rule {
        krate: "mcpwire-check",
        reach: Reach::AnyButFacade,
        forbidden: &[],
        why: "the check engine is a library below the CLI; nothing depends on the facade \
              (DESIGN.md, Layers)",
    },
    Rule {
        krate: "mcpwire-demo",
        reach: Reach::Direct(&["mcpwire"]),
        forbidden: &[],
        why: "the demo server is written on the facade, as a user would write it",
    },
    Rule {
        krate: "mcpwire-cli",
        // `mcpwire-types` only while `check.rs` (another change in flight)
        // still names it; everything else goes through the facade.
        reach: Reach::Direct(&["mcpwire", "mcpwire-check", "mcpwire-demo", "mcpwire-types"]),
        forbidden: &[],
        why: "the CLI goes through the mcpwire facade like any user (DESIGN.md, Layers); \
              tools of its own (check, demo) are its only other workspace dependencies",
    },
];

/// Layering problems in the workspace at `root`.
pub(super) fn problems(root: &Path) -> Vec<String> {
    problems_with(root, RULES, Network::Allowed)
}

/// Whether nested cargo invocations may touch the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Network {
    /// Plain cargo: it only goes online if the lock file needs it.
    Allowed,
    /// `--offline`, for throwaway workspaces made of path crates.
    Offline,
}

/// Layering problems in the workspace at `root` under `rules`; rules about
/// crates that are not members of that workspace are skipped.
fn problems_with(root: &Path, rules: &[Rule], network: Network) -> Vec<String> {
    let members: BTreeSet<String> = match workspace_members(root) {
        Ok(members) => members.into_iter().map(|member| member.name).collect(),
        Err(error) => return vec![format!("layering: {error}")],
    };
    let mut problems = Vec::new();
    for rule in rules.iter().filter(|rule| members.contains(rule.krate)) {
        let direct = matches!(rule.reach, Reach::Direct(_));
        match normal_dependencies(root, rule.krate, network, direct) {
            Ok(dependencies) => problems.extend(rule_problems(rule, &dependencies)),
            Err(error) => problems.push(format!("layering: {}: {error}", rule.krate)),
        }
    }
    problems
}

/// The names of every crate `krate` reaches through normal dependencies,
/// at any depth (or only its own, when `direct`), with all its features on
/// (the crate itself excluded).
fn normal_dependencies(
    root: &Path,
    krate: &str,
    network: Network,
    direct: bool,
) -> Result<BTreeSet<String>, String> {
    let mut args = vec![
        "tree",
        "--package",
        krate,
        "--edges",
        "normal",
        "--all-features",
        "--prefix",
        "none",
        "--format",
        "{p}",
    ];
    if network == Network::Offline {
        args.push("--offline");
    }
    if direct {
        args.extend(["--depth", "1"]);
    }
    let stdout = cargo_stdout(root, &args)?;
    // The first line is the crate itself; each other line starts with a
    // dependency's name, then its version and source.
    Ok(stdout
        .lines()
        .skip(1)
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_string)
        .collect())
}

/// The edges in `dependencies` that `rule` forbids.
fn rule_problems(rule: &Rule, dependencies: &BTreeSet<String>) -> Vec<String> {
    let mut problems = Vec::new();
    for dependency in dependencies {
        let forbidden_external = rule
            .forbidden
            .iter()
            .any(|pattern| matches_pattern(pattern, dependency));
        let forbidden_internal = dependency.starts_with("mcpwire")
            && match rule.reach {
                Reach::Only(allowed) | Reach::Direct(allowed) => {
                    !allowed.contains(&dependency.as_str())
                }
                Reach::AnyButFacade => dependency == "mcpwire",
            };
        if forbidden_external || forbidden_internal {
            problems.push(format!(
                "layering: {krate} depends on {dependency} (normal dependencies, all features; \
                 see `cargo tree -p {krate} -e normal --all-features -i {dependency}`): {why}",
                krate = rule.krate,
                why = rule.why,
            ));
        }
    }
    problems
}

/// Whether the crate `name` matches `pattern` (`name` exactly, or a prefix
/// when the pattern ends in `-*`).
fn matches_pattern(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => name == pattern,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace_root;
    use std::path::PathBuf;

    fn names(list: &[&str]) -> BTreeSet<String> {
        list.iter().map(|name| (*name).to_string()).collect()
    }

    fn rule_for(krate: &str) -> &'static Rule {
        RULES.iter().find(|rule| rule.krate == krate).unwrap()
    }

    #[test]
    fn patterns_match_exact_names_and_dash_prefixes_only() {
        assert!(matches_pattern("tokio", "tokio"));
        assert!(matches_pattern("tokio-*", "tokio-util"));
        assert!(matches_pattern("tower-*", "tower-service"));
        assert!(!matches_pattern("tokio", "tokio-util"));
        assert!(!matches_pattern("tokio-*", "tokio"));
        assert!(!matches_pattern("tower-*", "towering"));
        assert!(!matches_pattern("hyper", "hyperx"));
    }

    #[test]
    fn core_crates_may_not_reach_the_runtime_stack() {
        for krate in ["mcpwire-jsonrpc", "mcpwire-types", "mcpwire-session"] {
            for dependency in [
                "tokio",
                "tokio-util",
                "hyper",
                "hyper-util",
                "tower",
                "tower-layer",
            ] {
                let found = rule_problems(rule_for(krate), &names(&[dependency]));
                assert_eq!(found.len(), 1, "{krate} -> {dependency}: {found:?}");
            }
        }
    }

    #[test]
    fn runtime_free_examples_may_not_reach_a_runtime_or_an_executor() {
        for krate in ["sans-io-server", "codec-only"] {
            for dependency in [
                "tokio",
                "hyper",
                "tower-service",
                "futures",
                "futures-executor",
            ] {
                let found = rule_problems(rule_for(krate), &names(&[dependency]));
                assert_eq!(found.len(), 1, "{krate} -> {dependency}: {found:?}");
            }
            // The codec's own channel and serde are fine.
            let found = rule_problems(
                rule_for(krate),
                &names(&[
                    "futures-channel",
                    "futures-core",
                    "serde_json",
                    "mcpwire-jsonrpc",
                ]),
            );
            assert!(found.is_empty(), "{krate}: {found:?}");
        }
        let found = rule_problems(rule_for("codec-only"), &names(&["mcpwire-session"]));
        assert_eq!(found.len(), 1, "codec-only is the codec alone: {found:?}");
    }

    #[test]
    fn core_crates_may_use_plain_libraries() {
        let found = rule_problems(
            rule_for("mcpwire-types"),
            &names(&[
                "serde",
                "serde_json",
                "thiserror",
                "bytes",
                "mcpwire-jsonrpc",
            ]),
        );
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn transports_and_runtimes_may_not_reach_each_other() {
        for (from, to) in [
            ("mcpwire-http", "mcpwire-server"),
            ("mcpwire-stdio", "mcpwire-client"),
            ("mcpwire-server", "mcpwire-http"),
            ("mcpwire-client", "mcpwire-stdio"),
            ("mcpwire-http", "mcpwire-http-legacy"),
            ("mcpwire-auth", "mcpwire-session"),
            ("mcpwire-redis", "mcpwire-http"),
            ("mcpwire-redis", "mcpwire-server"),
            ("mcpwire-store", "mcpwire-session"),
            ("mcpwire-store", "tokio"),
            ("mcpwire-store", "hyper"),
            ("mcpwire-store", "tower-service"),
        ] {
            let found = rule_problems(rule_for(from), &names(&[to]));
            assert_eq!(found.len(), 1, "{from} -> {to}: {found:?}");
        }
    }

    #[test]
    fn allowed_edges_pass() {
        for (from, to) in [
            ("mcpwire-types", "mcpwire-jsonrpc"),
            ("mcpwire-session", "mcpwire-types"),
            ("mcpwire-http-legacy", "mcpwire-http"),
            ("mcpwire-auth", "mcpwire-http"),
            ("mcpwire-http", "tokio"),
            ("mcpwire-server", "mcpwire-session"),
            ("mcpwire-server", "tokio"),
            ("mcpwire-test", "mcpwire-session"),
            ("mcpwire-redis", "mcpwire-store"),
            ("mcpwire-redis", "tokio"),
            ("mcpwire-http", "mcpwire-store"),
            ("mcpwire-server", "mcpwire-store"),
            ("mcpwire-store", "mcpwire-types"),
        ] {
            let found = rule_problems(rule_for(from), &names(&[to]));
            assert!(found.is_empty(), "{from} -> {to}: {found:?}");
        }
    }

    #[test]
    fn the_cli_and_the_demo_go_through_the_facade() {
        for krate in ["mcpwire-cli", "mcpwire-demo"] {
            let rule = rule_for(krate);
            assert!(rule_problems(rule, &names(&["mcpwire", "tokio"])).is_empty());
            for inner in [
                "mcpwire-client",
                "mcpwire-server",
                "mcpwire-http",
                "mcpwire-auth",
            ] {
                let found = rule_problems(rule, &names(&[inner]));
                assert_eq!(found.len(), 1, "{krate} -> {inner}: {found:?}");
            }
        }
    }

    #[test]
    fn nothing_below_the_facade_may_depend_on_it() {
        for rule in RULES
            .iter()
            .filter(|rule| !matches!(rule.reach, Reach::Direct(_)))
        {
            let found = rule_problems(rule, &names(&["mcpwire"]));
            assert_eq!(found.len(), 1, "{} -> mcpwire: {found:?}", rule.krate);
        }
    }

    /// A throwaway cargo workspace of path crates in the temp directory,
    /// removed when dropped.
    struct ThrowawayWorkspace {
        root: PathBuf,
    }

    impl ThrowawayWorkspace {
        /// Creates a workspace named after `label` whose members are
        /// `crates`, each a `(name, dependencies section)` pair.
        fn new(label: &str, crates: &[(&str, &str)]) -> Self {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos();
            let root = std::env::temp_dir().join(format!(
                "xtask-layering-{label}-{}-{nanos}",
                std::process::id()
            ));
            let workspace = Self { root };
            let members: Vec<String> = crates.iter().map(|(name, _)| format!("{name:?}")).collect();
            workspace.write(
                "Cargo.toml",
                &format!(
                    "[workspace]\nresolver = \"3\"\nmembers = [{}]\n",
                    members.join(", ")
                ),
            );
            for (name, dependencies) in crates {
                workspace.write(
                    &format!("{name}/Cargo.toml"),
                    &format!(
                        "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
                         publish = false\n\n{dependencies}\n"
                    ),
                );
                workspace.write(&format!("{name}/src/lib.rs"), "//! A fake crate.\n");
            }
            workspace
        }

        fn write(&self, relative: &str, contents: &str) {
            let path = self.root.join(relative);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, contents).unwrap();
        }
    }

    impl Drop for ThrowawayWorkspace {
        fn drop(&mut self) {
            // Best effort: a leftover directory in the temp dir harms nobody.
            let _ = std::fs::remove_dir_all(&self.root);
        }
    }

    #[test]
    fn a_core_crate_gaining_a_tokio_dependency_is_reported() {
        let workspace = ThrowawayWorkspace::new(
            "tokio",
            &[
                ("tokio", ""),
                (
                    "mcpwire-jsonrpc",
                    "[dependencies]\ntokio = { path = \"../tokio\" }",
                ),
            ],
        );
        let found = problems_with(&workspace.root, RULES, Network::Offline);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with("layering: mcpwire-jsonrpc depends on tokio "),
            "{found:?}"
        );
    }

    #[test]
    fn a_core_crate_reaching_tokio_through_another_crate_is_reported() {
        let workspace = ThrowawayWorkspace::new(
            "indirect",
            &[
                ("tokio", ""),
                ("middle", "[dependencies]\ntokio = { path = \"../tokio\" }"),
                (
                    "mcpwire-jsonrpc",
                    "[dependencies]\nmiddle = { path = \"../middle\" }",
                ),
                (
                    "mcpwire-types",
                    "[dependencies]\nmcpwire-jsonrpc = { path = \"../mcpwire-jsonrpc\" }",
                ),
            ],
        );
        let found = problems_with(&workspace.root, RULES, Network::Offline);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].starts_with("layering: mcpwire-jsonrpc depends on tokio "));
        assert!(found[1].starts_with("layering: mcpwire-types depends on tokio "));
    }

    #[test]
    fn optional_and_dev_dependencies_count_only_when_they_can_be_built_in() {
        // An optional dependency counts (all features are on); a
        // dev-dependency does not (tests may use a runtime).
        let workspace = ThrowawayWorkspace::new(
            "features",
            &[
                ("tokio", ""),
                (
                    "mcpwire-jsonrpc",
                    "[dependencies]\ntokio = { path = \"../tokio\", optional = true }",
                ),
                (
                    "mcpwire-types",
                    "[dev-dependencies]\ntokio = { path = \"../tokio\" }",
                ),
            ],
        );
        let found = problems_with(&workspace.root, RULES, Network::Offline);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].starts_with("layering: mcpwire-jsonrpc depends on tokio "));
    }

    #[test]
    fn the_workspace_follows_the_layer_map() {
        let found = problems(&workspace_root());
        assert!(found.is_empty(), "\n{}", found.join("\n"));
    }
}
