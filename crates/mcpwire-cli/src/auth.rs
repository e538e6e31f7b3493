//! OAuth for URL targets: where tokens are kept, the authorizer every URL
//! target uses when tokens for it are stored, and the `login` and `logout`
//! commands.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use http::{HeaderMap, Method, StatusCode, Uri};

use mcpwire::auth::client::{
    BoxFuture, Error as AuthError, FileStore, HttpFetch, HyperFetch, LoopbackRedirect,
    OAuthAuthorizer, OAuthClient, OAuthConfig, Opener, RedirectCapture, TokenStore, UserAgent,
};
use mcpwire::http::client::{AuthFuture, Authorizer, Retry};
use mcpwire::types::LoggingLevel;

use crate::cli::{GlobalOptions, LoginArgs, LogoutArgs};
use crate::error::{CliError, CliResult};
use crate::interact::Interactive;
use crate::output::line;
use crate::target::{self, Target};

/// The environment variable naming the token file.
pub(crate) const TOKEN_FILE_VARIABLE: &str = "MCPWIRE_TOKEN_FILE";

/// The environment variable that makes `login` use [`RedirectCapture`]
/// (when set to `1`): for authorization servers that approve without a
/// user, in tests and automation.
pub(crate) const LOGIN_CAPTURE_VARIABLE: &str = "MCPWIRE_LOGIN_CAPTURE";

/// The name the CLI registers under at authorization servers.
const CLIENT_NAME: &str = "mcpwire-cli";

/// The path of the loopback redirect listener.
const CALLBACK_PATH: &str = "/callback";

/// The token file: `--token-file`, else `$MCPWIRE_TOKEN_FILE`, else
/// `$XDG_CONFIG_HOME/mcpwire/tokens.json`, else
/// `~/.config/mcpwire/tokens.json`.
///
/// # Errors
///
/// A usage error when none of these can be found.
pub(crate) fn token_file(global: &GlobalOptions) -> CliResult<PathBuf> {
    let variable = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    if let Some(path) = &global.token_file {
        return Ok(path.clone());
    }
    if let Some(path) = variable(TOKEN_FILE_VARIABLE) {
        return Ok(PathBuf::from(path));
    }
    let config = variable("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| variable("HOME").map(|home| PathBuf::from(home).join(".config")))
        .ok_or_else(|| {
            CliError::usage(format!(
                "cannot find a place for tokens: set HOME, XDG_CONFIG_HOME or {TOKEN_FILE_VARIABLE}, or give --token-file"
            ))
        })?;
    Ok(config.join("mcpwire").join("tokens.json"))
}

/// The key tokens of `url` are stored under: the URL as the OAuth client
/// normalizes it.
fn store_key(url: &str) -> CliResult<String> {
    url::Url::parse(url)
        .map(String::from)
        .map_err(|error| CliError::usage(format!("{url:?} is not a URL: {error}")))
}

/// Opens the token file at `path`.
fn open_store(path: &Path) -> CliResult<Arc<FileStore>> {
    FileStore::open(path)
        .map(Arc::new)
        .map_err(|error| CliError::connection(format!("the token file: {error}")))
}

/// A user agent for commands other than `login`: it never starts an
/// authorization, it tells the user to log in again.
#[derive(Debug)]
struct LoginRequired {
    url: String,
}

impl UserAgent for LoginRequired {
    fn authorize<'a>(
        &'a self,
        _authorization_url: &'a str,
        _redirect_uri: &'a str,
    ) -> BoxFuture<'a, Result<String, AuthError>> {
        let message = format!(
            "the stored login is no longer accepted: run `mcpwire login {}`",
            self.url
        );
        Box::pin(async move { Err(AuthError::UserAgent(message)) })
    }
}

/// The authorizer for a URL target when the token file holds tokens for
/// it; `None` otherwise (the server is then asked without a token).
///
/// # Errors
///
/// When the token file cannot be read.
pub(crate) fn stored_authorizer(
    url: &str,
    global: &GlobalOptions,
) -> CliResult<Option<Arc<OAuthAuthorizer>>> {
    let path = token_file(global)?;
    if !path.exists() {
        return Ok(None);
    }
    let store = open_store(&path)?;
    if store.tokens(&store_key(url)?).is_none() {
        return Ok(None);
    }
    let user_agent = Arc::new(LoginRequired {
        url: url.to_owned(),
    });
    // No authorization runs here, so the redirect URI is never sent.
    let config = OAuthConfig::new(CLIENT_NAME, format!("http://127.0.0.1{CALLBACK_PATH}"));
    oauth_authorizer(url, config, user_agent, store).map(Some)
}

/// The authorizer of a URL target's transport: the OAuth one, if any, and
/// a note of whether the server refused the request for want of a (valid)
/// token, and why the OAuth client could not provide one, so that the
/// failure to connect can say so.
#[derive(Debug, Default)]
pub(crate) struct AuthWatch {
    inner: Option<Arc<OAuthAuthorizer>>,
    refused: Mutex<Option<String>>,
}

impl AuthWatch {
    /// Watches over `inner` (or over no authorizer at all).
    pub(crate) fn new(inner: Option<Arc<OAuthAuthorizer>>) -> Self {
        Self {
            inner,
            refused: Mutex::new(None),
        }
    }

    /// `Some` (with the OAuth client's error, possibly empty) when the
    /// server answered 401 or 403 and no token could be found.
    pub(crate) fn refusal(&self) -> Option<String> {
        self.refused
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn note_refusal(&self, why: String) {
        *self.refused.lock().unwrap_or_else(PoisonError::into_inner) = Some(why);
    }
}

impl Authorizer for AuthWatch {
    fn headers<'a>(
        &'a self,
        method: &'a Method,
        uri: &'a Uri,
    ) -> AuthFuture<'a, Result<HeaderMap, String>> {
        match &self.inner {
            Some(inner) => inner.headers(method, uri),
            None => Box::pin(async { Ok(HeaderMap::new()) }),
        }
    }

    fn challenged<'a>(
        &'a self,
        status: StatusCode,
        headers: &'a HeaderMap,
    ) -> AuthFuture<'a, Result<Retry, String>> {
        Box::pin(async move {
            let outcome = match &self.inner {
                Some(inner) => inner.challenged(status, headers).await,
                None => Ok(Retry::GiveUp),
            };
            match &outcome {
                Ok(Retry::Retry) => {}
                Ok(_) => self.note_refusal(String::new()),
                Err(why) => self.note_refusal(why.clone()),
            }
            outcome
        })
    }

    fn accepted(&self, headers: &HeaderMap) {
        if let Some(inner) = &self.inner {
            inner.accepted(headers);
        }
    }
}

/// An authorizer for `url` keeping its tokens in `store`.
fn oauth_authorizer(
    url: &str,
    config: OAuthConfig,
    user_agent: Arc<dyn UserAgent>,
    store: Arc<FileStore>,
) -> CliResult<Arc<OAuthAuthorizer>> {
    let http: Arc<dyn HttpFetch> = Arc::new(HyperFetch::new());
    OAuthClient::new(url, config, http, user_agent, store)
        .map(|client| Arc::new(OAuthAuthorizer::new(client)))
        .map_err(|error| CliError::usage(format!("cannot log in to {url}: {error}")))
}

/// Shows the authorization URL on stderr and, on a terminal, offers to open
/// it in the browser.
fn show_authorization_url(url: &str) -> Result<(), String> {
    eprintln!("To authorize mcpwire, open this URL in a browser:\n\n  {url}\n");
    let terminal = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    if !terminal {
        return Ok(());
    }
    eprint!("Open it in your browser now? [Y/n] ");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    // The listener waits for the redirect only after this returns, so a
    // blocking read here holds nothing else up.
    let _ = std::io::stdin().lock().read_line(&mut answer);
    if matches!(answer.trim(), "" | "y" | "Y" | "yes") {
        let program = if cfg!(target_os = "macos") {
            "open"
        } else {
            "xdg-open"
        };
        if let Err(error) = std::process::Command::new(program)
            .arg(url)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
        {
            eprintln!("could not start {program} ({error}): open the URL yourself");
        }
    }
    eprintln!("Waiting for the authorization server to redirect back...");
    Ok(())
}

/// Whether `login` should use [`RedirectCapture`].
fn capture_requested(args: &LoginArgs) -> bool {
    args.redirect_capture
        || std::env::var(LOGIN_CAPTURE_VARIABLE).is_ok_and(|value| value.trim() == "1")
}

/// `login`: runs the OAuth flow for the server at the URL (by connecting
/// to it: its 401 starts the flow) and keeps the tokens in the token file.
pub(crate) async fn login(args: &LoginArgs, global: &GlobalOptions) -> CliResult {
    let url = args.url.as_str();
    if !target::is_url(url) {
        return Err(CliError::usage(format!("{url:?} is not an http(s) URL")));
    }
    let key = store_key(url)?;
    let path = token_file(global)?;
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        create_private_dir(parent)?;
    }
    let store = open_store(&path)?;
    // A new login replaces the old tokens rather than reusing them.
    store
        .set_tokens(&key, None)
        .map_err(|error| CliError::connection(format!("the token file: {error}")))?;
    let (user_agent, redirect_uri): (Arc<dyn UserAgent>, String) = if capture_requested(args) {
        let http: Arc<dyn HttpFetch> = Arc::new(HyperFetch::new());
        (
            Arc::new(RedirectCapture::new(http)),
            format!("http://127.0.0.1{CALLBACK_PATH}"),
        )
    } else {
        let opener: Opener = Arc::new(show_authorization_url);
        let loopback = LoopbackRedirect::bind(0, CALLBACK_PATH, opener)
            .await
            .map_err(CliError::connection)?;
        let redirect_uri = loopback.redirect_uri().to_owned();
        (Arc::new(loopback), redirect_uri)
    };
    let config = OAuthConfig::new(CLIENT_NAME, redirect_uri);
    let authorizer = oauth_authorizer(url, config, user_agent, store)?;
    let target = Target::Url {
        url: url.to_owned(),
        headers: Vec::new(),
    };
    let connection = tokio::select! {
        connection = target::connect_with(
            &target,
            global,
            Interactive::new(),
            LoggingLevel::Info,
            Some(authorizer.clone()),
        ) => connection?,
        _ = tokio::signal::ctrl_c() => return Err(CliError::Interrupted),
    };
    connection.close().await;
    if authorizer.client().tokens().is_none() {
        return Err(CliError::connection(format!(
            "{url} accepted the connection without asking for authorization: nothing to store"
        )));
    }
    line(format!(
        "Logged in to {url}; tokens saved in {}",
        path.display()
    ));
    Ok(())
}

/// Creates `dir` (and its parents), readable by the user only on Unix.
fn create_private_dir(dir: &Path) -> CliResult {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt as _;
        builder.mode(0o700);
    }
    builder
        .create(dir)
        .map_err(|error| CliError::connection(format!("{}: {error}", dir.display())))
}

/// `logout`: forgets the tokens of the server at the URL.
pub(crate) fn logout(args: &LogoutArgs, global: &GlobalOptions) -> CliResult {
    let url = args.url.as_str();
    let key = store_key(url)?;
    let path = token_file(global)?;
    if !path.exists() {
        line(format!("Not logged in to {url}"));
        return Ok(());
    }
    let store = open_store(&path)?;
    if store.tokens(&key).is_none() {
        line(format!("Not logged in to {url}"));
        return Ok(());
    }
    store
        .set_tokens(&key, None)
        .map_err(|error| CliError::connection(format!("the token file: {error}")))?;
    line(format!("Logged out of {url}"));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn global(token_file: Option<&str>) -> GlobalOptions {
        GlobalOptions {
            json: false,
            config: None,
            protocol_version: None,
            headers: Vec::new(),
            timeout: 60,
            token_file: token_file.map(PathBuf::from),
        }
    }

    #[test]
    fn the_token_file_option_is_used_as_given() {
        let chosen = token_file(&global(Some("/tmp/x/tokens.json"))).unwrap();
        assert_eq!(chosen, PathBuf::from("/tmp/x/tokens.json"));
    }

    #[test]
    fn tokens_are_kept_under_the_normalized_url() {
        assert_eq!(
            store_key("http://127.0.0.1:8080").unwrap(),
            "http://127.0.0.1:8080/"
        );
        assert_eq!(
            store_key("https://Example.com/mcp").unwrap(),
            "https://example.com/mcp"
        );
        assert!(matches!(store_key("not a url"), Err(CliError::Usage(_))));
    }
}
