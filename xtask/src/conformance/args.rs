//! The command line of `cargo xtask conformance`.

/// What to test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Our everything-server (the runner plays the client).
    Server,
    /// Our everything-client (the runner plays the servers).
    Client,
    /// An authorization server (the runner's `authorization` command).
    AuthServer,
    /// The server suite through a round-robin proxy over three
    /// everything-server instances sharing one Redis.
    ScaleOut,
    /// All of the above, in turn.
    All,
    /// Only install the tools and print the runner's scenario list.
    List,
}

impl Mode {
    /// The name on the command line, in baselines and in result paths.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Server => "server",
            Self::Client => "client",
            Self::AuthServer => "auth-server",
            Self::ScaleOut => "scale-out",
            Self::All => "all",
            Self::List => "list",
        }
    }

    fn from_name(name: &str) -> Option<Self> {
        [
            Self::Server,
            Self::Client,
            Self::AuthServer,
            Self::ScaleOut,
            Self::All,
            Self::List,
        ]
        .into_iter()
        .find(|mode| mode.name() == name)
    }
}

/// The parsed command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Options {
    /// What to test (default: everything).
    pub(crate) mode: Mode,
    /// Run only this scenario.
    pub(crate) scenario: Option<String>,
    /// Use this runner version instead of the pinned one.
    pub(crate) runner: Option<String>,
    /// Rewrite the baseline from the run instead of judging against it.
    pub(crate) bless: bool,
}

/// Reads the arguments after `conformance`.
pub(crate) fn parse(args: &[String]) -> Result<Options, String> {
    let mut mode = None;
    let mut scenario = None;
    let mut runner = None;
    let mut bless = false;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--scenario" => scenario = Some(value_of("--scenario", rest.next())?),
            "--runner" => runner = Some(value_of("--runner", rest.next())?),
            "--bless" => bless = true,
            flag if flag.starts_with('-') => {
                return Err(format!(
                    "unknown option {flag:?} (known: --scenario NAME, --runner VERSION, --bless)"
                ));
            }
            name => {
                let Some(parsed) = Mode::from_name(name) else {
                    return Err(format!(
                        "unknown mode {name:?} (known: server, client, auth-server, scale-out, all, list)"
                    ));
                };
                if mode.replace(parsed).is_some() {
                    return Err("give at most one mode".to_owned());
                }
            }
        }
    }
    let mode = mode.unwrap_or(Mode::All);
    if scenario.is_some() && matches!(mode, Mode::All | Mode::List) {
        return Err(format!(
            "--scenario needs one of server, client, auth-server or scale-out, not {}",
            mode.name()
        ));
    }
    if bless && mode == Mode::List {
        return Err("--bless needs a run to bless; `list` runs nothing".to_owned());
    }
    Ok(Options {
        mode,
        scenario,
        runner,
        bless,
    })
}

fn value_of(flag: &str, value: Option<&String>) -> Result<String, String> {
    match value {
        Some(value) if !value.starts_with('-') && !value.is_empty() => Ok(value.clone()),
        _ => Err(format!("{flag} needs a value")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(args: &[&str]) -> Result<Options, String> {
        let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
        parse(&args)
    }

    #[test]
    fn no_arguments_run_everything_with_the_pinned_runner() {
        assert_eq!(
            parsed(&[]),
            Ok(Options {
                mode: Mode::All,
                scenario: None,
                runner: None,
                bless: false
            })
        );
    }

    #[test]
    fn every_option_is_read_in_any_order() {
        let options = parsed(&[
            "--bless",
            "server",
            "--runner",
            "0.1.16",
            "--scenario",
            "ping",
        ]);
        assert_eq!(
            options,
            Ok(Options {
                mode: Mode::Server,
                scenario: Some("ping".to_owned()),
                runner: Some("0.1.16".to_owned()),
                bless: true
            })
        );
        assert_eq!(parsed(&["auth-server"]).unwrap().mode, Mode::AuthServer);
        let scale_out = parsed(&["scale-out", "--scenario", "ping"]).unwrap();
        assert_eq!(scale_out.mode, Mode::ScaleOut);
        assert_eq!(scale_out.scenario.as_deref(), Some("ping"));
    }

    #[test]
    fn bad_command_lines_are_refused_with_a_reason() {
        for (args, needle) in [
            (&["nonsense"][..], "unknown mode"),
            (&["--fast"][..], "unknown option"),
            (&["server", "client"][..], "at most one mode"),
            (&["server", "--scenario"][..], "needs a value"),
            (&["--runner", "--bless"][..], "needs a value"),
            (&["--scenario", "ping"][..], "--scenario needs"),
            (&["list", "--bless"][..], "--bless"),
        ] {
            let error = parsed(args).unwrap_err();
            assert!(error.contains(needle), "{args:?}: {error}");
        }
    }
}
