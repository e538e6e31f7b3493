//! The `echo` benchmark server on rmcp: the same tool as mcpwire's
//! `bench-server` (`{"text": string}` in, the same text back as one text
//! content block), served the same ways, so both are driven identically.
//!
//! `rmcp-echo --stdio [--pipes]` serves stdin/stdout until stdin ends
//! (`--pipes`: rmcp's non-blocking pipe transport instead of tokio's stdio).
//! `rmcp-echo --http ADDR [--json] [--stateless] [--threads N]` serves
//! Streamable HTTP at `/mcp` (any path, in fact) and prints
//! `http://ADDR/mcp` as the first line of stdout once it listens, and exits
//! when stdin closes.

use std::io::Write as _;
use std::sync::Arc;

use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, ServiceExt};

/// The echo server's one tool.
#[derive(Clone)]
struct Echo {
    /// The `echo` tool, built once.
    tool: Tool,
}

impl Echo {
    fn new() -> Self {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"]
        });
        let schema = match schema {
            serde_json::Value::Object(map) => map,
            _ => serde_json::Map::new(),
        };
        Self {
            tool: Tool::new("echo", "Returns its text.", Arc::new(schema)),
        }
    }
}

impl ServerHandler for Echo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult {
            tools: vec![self.tool.clone()],
            ..Default::default()
        })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != "echo" {
            return Err(ErrorData::invalid_params("unknown tool", None));
        }
        let text = request
            .arguments
            .as_ref()
            .and_then(|arguments| arguments.get("text"))
            .and_then(serde_json::Value::as_str)
            .ok_or_else(|| ErrorData::invalid_params("`text` must be a string", None))?;
        Ok(CallToolResponse::Complete(CallToolResult::success(vec![
            ContentBlock::text(text),
        ])))
    }
}

/// The value following `flag` on the command line.
fn option(args: &[String], flag: &str) -> Option<String> {
    let at = args.iter().position(|arg| arg == flag)?;
    args.get(at + 1).cloned()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let threads = option(&args, "--threads")
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(0);
    let runtime = if threads == 1 {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?
    } else {
        let mut builder = tokio::runtime::Builder::new_multi_thread();
        if threads > 1 {
            builder.worker_threads(threads);
        }
        builder.enable_all().build()?
    };
    runtime.block_on(async move {
        match option(&args, "--http") {
            Some(address) => serve_http(&address, &args).await,
            None => serve_stdio(args.iter().any(|arg| arg == "--pipes")).await,
        }
    })
}

/// Serves stdio: with `pipes`, rmcp's non-blocking pipe transport (its
/// fastest on Linux when both streams are pipes), else tokio's stdio.
async fn serve_stdio(pipes: bool) -> Result<(), Box<dyn std::error::Error>> {
    let running = if pipes {
        Echo::new().serve(rmcp::transport::stdio_pipes()).await?
    } else {
        Echo::new().serve(rmcp::transport::stdio()).await?
    };
    running.waiting().await?;
    Ok(())
}

async fn serve_http(address: &str, args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let mut config = StreamableHttpServerConfig::default();
    config.json_response = args.iter().any(|arg| arg == "--json");
    config.legacy_session_mode = !args.iter().any(|arg| arg == "--stateless");
    config.sse_keep_alive = None;
    let echo = Echo::new();
    let service = StreamableHttpService::new(
        move || Ok(echo.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let listener = tokio::net::TcpListener::bind(address).await?;
    let local = listener.local_addr()?;
    {
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "http://{local}/mcp")?;
        stdout.flush()?;
    }
    exit_when_stdin_closes();
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        let service = service.clone();
        tokio::spawn(async move {
            let io = hyper_util::rt::TokioIo::new(stream);
            let service = hyper_util::service::TowerToHyperService::new(service);
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(io, service)
                .await;
        });
    }
}

/// Ends the process when stdin closes, so that the load client can stop an
/// HTTP server the same way as a stdio one, and a profiler running it
/// sees an ordinary exit.
fn exit_when_stdin_closes() {
    std::thread::spawn(|| {
        let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
        std::process::exit(0);
    });
}
