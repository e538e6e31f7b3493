//! Plain HTTP for the transport checks: a request written exactly as the
//! check wants it (headers, session, body), and what came back.

use bytes::Bytes;
use http::{HeaderMap, Method, StatusCode};
use http_body_util::BodyExt;
use mcpwire_http::client::{ClientOptions, HttpClient, parse_url};
use serde_json::{Value, json};

use crate::Options;

/// The most of an answer's body a check reads: more than any answer a
/// check provokes, and the transport's own message limit.
const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// One exchange: status, headers and body.
pub(super) struct Exchange {
    pub(super) status: StatusCode,
    pub(super) headers: HeaderMap,
    pub(super) body: String,
}

/// One request to the endpoint.
pub(super) struct Request {
    method: Method,
    headers: Vec<(&'static str, String)>,
    body: Option<Value>,
    /// Read the status and headers only (an event stream never ends).
    headers_only: bool,
}

impl Request {
    pub(super) fn new(method: Method) -> Self {
        Self {
            method,
            headers: Vec::new(),
            body: None,
            headers_only: false,
        }
    }

    /// A POST of `body` as JSON, accepting JSON and event streams.
    pub(super) fn post(body: &Value) -> Self {
        let mut request = Self::new(Method::POST)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json");
        request.body = Some(body.clone());
        request
    }

    pub(super) fn header(mut self, name: &'static str, value: &str) -> Self {
        self.headers.retain(|(n, _)| *n != name);
        self.headers.push((name, value.to_owned()));
        self
    }

    /// Sets (or with `None`, leaves out) the session header.
    pub(super) fn session(self, session: Option<&str>) -> Self {
        match session {
            Some(session) => self.header("mcp-session-id", session),
            None => self,
        }
    }

    pub(super) fn headers_only(mut self) -> Self {
        self.headers_only = true;
        self
    }

    /// The request as JSON, for a report.
    pub(super) fn to_json(&self) -> Value {
        let headers: serde_json::Map<String, Value> = self
            .headers
            .iter()
            .map(|(name, value)| ((*name).to_owned(), Value::String(value.clone())))
            .collect();
        json!({"method": self.method.as_str(), "headers": headers, "body": self.body})
    }
}

pub(super) struct Http<'a> {
    client: HttpClient,
    url: &'a str,
    options: &'a Options,
}

impl<'a> Http<'a> {
    /// A client for `url`, or `None` when the URL cannot be used.
    pub(super) fn new(url: &'a str, options: &'a Options) -> Option<Self> {
        let endpoint = parse_url(url).ok()?;
        let client = HttpClient::for_endpoint(&endpoint, &ClientOptions::default()).ok()?;
        Some(Self {
            client,
            url,
            options,
        })
    }

    pub(super) fn url(&self) -> &str {
        self.url
    }

    pub(super) async fn send(&self, request: Request) -> Result<Exchange, String> {
        let mut builder = http::Request::builder()
            .method(request.method.clone())
            .uri(self.url);
        for (name, value) in &request.headers {
            builder = builder.header(*name, value.as_str());
        }
        // The user's headers, except those the check sets itself.
        for (name, value) in &self.options.headers {
            if !request.headers.iter().any(|(own, _)| name == own) {
                builder = builder.header(name, value);
            }
        }
        let bytes = request
            .body
            .as_ref()
            .map_or_else(Bytes::new, |body| Bytes::from(body.to_string()));
        let http_request = builder.body(bytes).map_err(|e| e.to_string())?;
        let exchange = async {
            let response = self
                .client
                .request(http_request)
                .await
                .map_err(|e| e.to_string())?;
            let (parts, body) = response.into_parts();
            let body = match request.headers_only {
                true => String::new(),
                false => {
                    // Bounded in size as in time: a check reads answers,
                    // not whatever a server streams at it.
                    let bytes = http_body_util::Limited::new(body, MAX_BODY_BYTES)
                        .collect()
                        .await
                        .map_err(|e| e.to_string())?
                        .to_bytes();
                    String::from_utf8_lossy(&bytes).into_owned()
                }
            };
            Ok(Exchange {
                status: parts.status,
                headers: parts.headers,
                body,
            })
        };
        match tokio::time::timeout(self.options.timeout, exchange).await {
            Ok(result) => result,
            Err(_) => Err(format!("no answer within {:?}", self.options.timeout)),
        }
    }
}
