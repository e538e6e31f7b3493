//! Convenience calls: one method per common request, and whole lists read
//! page by page.

use std::collections::BTreeMap;

use mcpwire_session::RequestOptions;
use mcpwire_types::methods::{
    CallTool, ClientMethod, Complete, Discover, GetPrompt, ListPrompts, ListResourceTemplates,
    ListResources, ListTools, Ping, ReadResource, SetLevel, Subscribe, Unsubscribe,
};
use mcpwire_types::{
    CallToolRequestParams, CallToolResult, CompleteArgument, CompleteRequestParams, CompleteResult,
    CompletionReference, Cursor, DiscoverResult, GetPromptRequestParams, GetPromptResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    LoggingLevel, PaginatedRequestParams, Prompt, ReadResourceRequestParams, ReadResourceResult,
    RequestParams, Resource, ResourceTemplate, SetLevelRequestParams, SubscribeRequestParams, Tool,
    UnsubscribeRequestParams,
};
use serde_json::{Map, Value};

use crate::weight::Listing;
use crate::{Client, ClientError};

/// The most pages a `list_all_*` call reads before it gives up, so that a
/// server handing out cursors forever cannot keep the client busy forever.
pub const MAX_PAGES: usize = 10_000;

/// A page of a list: its items and where the next page starts.
trait Page {
    type Item: serde::Serialize;
    fn into_parts(self) -> (Vec<Self::Item>, Option<Cursor>);
}

macro_rules! page {
    ($result:ty, $item:ty, $field:ident) => {
        impl Page for $result {
            type Item = $item;
            fn into_parts(self) -> (Vec<$item>, Option<Cursor>) {
                (self.$field, self.next_cursor)
            }
        }
    };
}

page!(ListToolsResult, Tool, tools);
page!(ListResourcesResult, Resource, resources);
page!(
    ListResourceTemplatesResult,
    ResourceTemplate,
    resource_templates
);
page!(ListPromptsResult, Prompt, prompts);

fn page_params(cursor: Option<Cursor>) -> PaginatedRequestParams {
    PaginatedRequestParams {
        cursor,
        ..PaginatedRequestParams::default()
    }
}

impl Client {
    /// Reads every page of the list `M`, following `nextCursor` until it is
    /// absent (PAGE-03) and passing cursors back untouched (PAGE-04), and
    /// holding no more than [`ClientBuilder::max_listed_bytes`](crate::ClientBuilder::max_listed_bytes)
    /// of items.
    async fn list_all<M>(&self) -> Result<Vec<<M::Result as Page>::Item>, ClientError>
    where
        M: ClientMethod<Params = PaginatedRequestParams>,
        M::Result: Page,
    {
        let mut items = Listing::new(M::METHOD, self.shared().max_listed_bytes);
        let mut cursor: Option<Cursor> = None;
        for _ in 0..MAX_PAGES {
            let sent = cursor.clone();
            let page = self
                .request::<M>(page_params(cursor), RequestOptions::default())
                .await?;
            let (page_items, next) = page.into_parts();
            items.extend(page_items)?;
            match next {
                None => return Ok(items.into_items()),
                // A server answering a cursor with itself would loop forever.
                Some(next) if Some(&next) == sent.as_ref() => break,
                Some(next) => cursor = Some(next),
            }
        }
        Err(ClientError::EndlessPagination {
            method: M::METHOD,
            pages: MAX_PAGES,
        })
    }

    /// `ping`: checks that the server answers (PING-02). Handshake
    /// revisions only; 2026-07-28 has no ping.
    ///
    /// # Errors
    ///
    /// As [`Client::request`].
    pub async fn ping(&self) -> Result<(), ClientError> {
        self.request::<Ping>(RequestParams::default(), RequestOptions::default())
            .await
            .map(drop)
    }

    /// `server/discover` (2026-07-28): what the server speaks and offers.
    ///
    /// # Errors
    ///
    /// As [`Client::request`]; refused in handshake revisions.
    pub async fn discover(&self) -> Result<DiscoverResult, ClientError> {
        self.request::<Discover>(RequestParams::default(), RequestOptions::default())
            .await
    }

    /// `tools/list`: one page, starting at `cursor` (the first page for
    /// `None`). Output schemas it lists are remembered to check the
    /// structured results of later calls.
    ///
    /// # Errors
    ///
    /// As [`Client::request`].
    pub async fn list_tools(&self, cursor: Option<Cursor>) -> Result<ListToolsResult, ClientError> {
        self.request::<ListTools>(page_params(cursor), RequestOptions::default())
            .await
    }

    /// Every tool, page after page (at most [`MAX_PAGES`] pages, and
    /// [`ClientBuilder::max_listed_bytes`](crate::ClientBuilder::max_listed_bytes)
    /// of tools).
    ///
    /// # Errors
    ///
    /// As [`Client::request`], [`ClientError::EndlessPagination`], or
    /// [`ClientError::ListTooLarge`].
    pub async fn list_all_tools(&self) -> Result<Vec<Tool>, ClientError> {
        self.list_all::<ListTools>().await
    }

    /// `tools/call` of tool `name` with `arguments`.
    ///
    /// A failure of the tool itself is a result with `isError: true`, not an
    /// error (TOOL-16). When the tool's output schema was listed, a
    /// successful result's `structuredContent` is checked against it.
    ///
    /// # Errors
    ///
    /// As [`Client::request`], or [`ClientError::InvalidStructuredContent`].
    ///
    /// `arguments` is anything that serializes to a JSON object: a struct
    /// deriving `Serialize`, `json!({..})`, or a `Map`.
    pub async fn call_tool(
        &self,
        name: impl Into<String>,
        arguments: impl serde::Serialize,
    ) -> Result<CallToolResult, ClientError> {
        let name = name.into();
        let arguments = match serde_json::to_value(arguments) {
            Ok(Value::Object(map)) => map,
            Ok(Value::Null) => Map::new(),
            Ok(other) => {
                return Err(ClientError::InvalidArguments(format!(
                    "the arguments of tool {name:?} must serialize to a JSON object, not {other}"
                )));
            }
            Err(error) => {
                return Err(ClientError::InvalidArguments(format!(
                    "the arguments of tool {name:?} do not serialize: {error}"
                )));
            }
        };
        let params = CallToolRequestParams::with_arguments(name, arguments);
        self.request::<CallTool>(params, RequestOptions::default())
            .await
    }

    /// `tools/call`, reading the result's `structuredContent` as `T`
    /// (checked first against the tool's listed `outputSchema`, as in
    /// [`Client::call_tool`]).
    ///
    /// # Errors
    ///
    /// As [`Client::call_tool`]; [`ClientError::ToolFailed`] when the tool
    /// reported an error (`isError`), [`ClientError::InvalidResult`] when
    /// there is no structured content or it does not fit `T`.
    pub async fn call_tool_as<T: serde::de::DeserializeOwned>(
        &self,
        name: impl Into<String>,
        arguments: impl serde::Serialize,
    ) -> Result<T, ClientError> {
        let name = name.into();
        let result = self.call_tool(name.clone(), arguments).await?;
        if result.is_error == Some(true) {
            let message = result
                .content
                .iter()
                .filter_map(|block| block.as_text())
                .collect::<Vec<_>>()
                .join("\n");
            return Err(ClientError::ToolFailed {
                tool: name,
                message,
            });
        }
        let Some(structured) = result.structured_content else {
            return Err(ClientError::InvalidResult(format!(
                "tool {name:?} returned no structuredContent"
            )));
        };
        serde_json::from_value(structured).map_err(|error| {
            ClientError::InvalidResult(format!(
                "the structuredContent of tool {name:?} does not fit the type asked for: {error}"
            ))
        })
    }

    /// `resources/list`: one page, starting at `cursor`.
    ///
    /// # Errors
    ///
    /// As [`Client::request`].
    pub async fn list_resources(
        &self,
        cursor: Option<Cursor>,
    ) -> Result<ListResourcesResult, ClientError> {
        self.request::<ListResources>(page_params(cursor), RequestOptions::default())
            .await
    }

    /// Every listed resource, page after page.
    ///
    /// # Errors
    ///
    /// As [`Client::list_all_tools`].
    pub async fn list_all_resources(&self) -> Result<Vec<Resource>, ClientError> {
        self.list_all::<ListResources>().await
    }

    /// `resources/templates/list`: one page, starting at `cursor`.
    ///
    /// # Errors
    ///
    /// As [`Client::request`].
    pub async fn list_resource_templates(
        &self,
        cursor: Option<Cursor>,
    ) -> Result<ListResourceTemplatesResult, ClientError> {
        self.request::<ListResourceTemplates>(page_params(cursor), RequestOptions::default())
            .await
    }

    /// Every resource template, page after page.
    ///
    /// # Errors
    ///
    /// As [`Client::list_all_tools`].
    pub async fn list_all_resource_templates(&self) -> Result<Vec<ResourceTemplate>, ClientError> {
        self.list_all::<ListResourceTemplates>().await
    }

    /// `resources/read` of `uri`.
    ///
    /// # Errors
    ///
    /// As [`Client::request`]; an unknown resource is a [`ClientError::Peer`]
    /// error (-32002 before 2026-07-28: RES-09).
    pub async fn read_resource(
        &self,
        uri: impl Into<String>,
    ) -> Result<ReadResourceResult, ClientError> {
        let params = ReadResourceRequestParams::new(uri);
        self.request::<ReadResource>(params, RequestOptions::default())
            .await
    }

    /// `resources/subscribe` to `uri`: its changes then arrive as
    /// `notifications/resources/updated` on [`Client::notifications`]
    /// (RES-03). Handshake revisions only.
    ///
    /// # Errors
    ///
    /// As [`Client::request`]; refused unless the server declared
    /// `resources.subscribe`.
    pub async fn subscribe(&self, uri: impl Into<String>) -> Result<(), ClientError> {
        let params = SubscribeRequestParams::new(uri);
        self.request::<Subscribe>(params, RequestOptions::default())
            .await
            .map(drop)
    }

    /// `resources/unsubscribe` from `uri`.
    ///
    /// # Errors
    ///
    /// As [`Client::subscribe`].
    pub async fn unsubscribe(&self, uri: impl Into<String>) -> Result<(), ClientError> {
        let params = UnsubscribeRequestParams::new(uri);
        self.request::<Unsubscribe>(params, RequestOptions::default())
            .await
            .map(drop)
    }

    /// `prompts/list`: one page, starting at `cursor`.
    ///
    /// # Errors
    ///
    /// As [`Client::request`].
    pub async fn list_prompts(
        &self,
        cursor: Option<Cursor>,
    ) -> Result<ListPromptsResult, ClientError> {
        self.request::<ListPrompts>(page_params(cursor), RequestOptions::default())
            .await
    }

    /// Every prompt, page after page.
    ///
    /// # Errors
    ///
    /// As [`Client::list_all_tools`].
    pub async fn list_all_prompts(&self) -> Result<Vec<Prompt>, ClientError> {
        self.list_all::<ListPrompts>().await
    }

    /// `prompts/get` of prompt `name` with `arguments`.
    ///
    /// # Errors
    ///
    /// As [`Client::request`].
    pub async fn get_prompt(
        &self,
        name: impl Into<String>,
        arguments: BTreeMap<String, String>,
    ) -> Result<GetPromptResult, ClientError> {
        let mut params = GetPromptRequestParams::new(name);
        params.arguments = (!arguments.is_empty()).then_some(arguments);
        self.request::<GetPrompt>(params, RequestOptions::default())
            .await
    }

    /// `completion/complete`: candidates for `argument` (its name and what
    /// was typed so far) of a prompt or resource template.
    ///
    /// # Errors
    ///
    /// As [`Client::request`]; refused unless the server offers completions.
    pub async fn complete(
        &self,
        reference: CompletionReference,
        argument: CompleteArgument,
    ) -> Result<CompleteResult, ClientError> {
        let mut params = CompleteRequestParams::new(reference, "", "");
        params.argument = argument;
        self.request::<Complete>(params, RequestOptions::default())
            .await
    }

    /// `logging/setLevel`: log messages at `level` and above from now on
    /// (LOG-02). Handshake revisions only; in 2026-07-28 the level goes
    /// with each request ([`ClientConfig::with_log_level`](mcpwire_session::ClientConfig::with_log_level)).
    ///
    /// # Errors
    ///
    /// As [`Client::request`]; refused unless the server declared `logging`.
    pub async fn set_log_level(&self, level: LoggingLevel) -> Result<(), ClientError> {
        let params = SetLevelRequestParams::new(level);
        self.request::<SetLevel>(params, RequestOptions::default())
            .await
            .map(drop)
    }
}
