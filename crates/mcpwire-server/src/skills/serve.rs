//! Serving skills: `skills/list` (paged, entries whole), `skills/get`,
//! `resources/read` of every skill file, `resources/directory/read`, and
//! the `resources/list` entry of each `SKILL.md`.

use std::sync::Arc;

use mcpwire_jsonrpc::{ErrorObject, RawJson};
use mcpwire_session::ExtensionCall;
use mcpwire_types::skills::{
    GetSkillRequestParams, GetSkillResult, ListSkillsResult, ReadResourceDirectoryRequestParams,
    ReadResourceDirectoryResult,
};
use mcpwire_types::{PaginatedRequestParams, ProtocolVersion, ReadResourceResult, ResultType};

use super::Skills;
use super::store::{RawFile, Store, contents};
use crate::catalog::ResourceEntry;
use crate::cursor::Page;
use crate::error::invalid_params;
use crate::handler::resource_fn;
use crate::{HandlerError, Server};

/// The `resources/list` entries of the skills' `SKILL.md` files, read
/// through `skills`.
pub(super) fn listing_entries(skills: &Arc<Skills>, store: &Store) -> Vec<ResourceEntry> {
    store
        .listed_resources()
        .into_iter()
        .map(|resource| {
            let skills = Arc::downgrade(skills);
            ResourceEntry {
                resource,
                handler: resource_fn(move |_ctx, uri: String| {
                    let skills = skills.upgrade();
                    async move {
                        let Some(skills) = skills else {
                            return Err(HandlerError::Internal("the server is gone".to_owned()));
                        };
                        match skills.read(&uri).await {
                            Some(result) => result,
                            None => {
                                Err(HandlerError::Internal(format!("{uri} is no longer served")))
                            }
                        }
                    }
                }),
            }
        })
        .collect()
}

impl Skills {
    /// Reads the skill file at `uri`; `None` when no skill holds it.
    pub(crate) async fn read(&self, uri: &str) -> Option<Result<ReadResourceResult, HandlerError>> {
        let store = self.store();
        if let Some(file) = store.files.get(uri) {
            return Some(Ok(ReadResourceResult::new(vec![contents(uri, file)])));
        }
        let (skill, path) = store.dynamic_for(uri)?;
        if path.is_empty() {
            return None;
        }
        let snapshot = match dynamic_snapshot(skill).await {
            Ok(snapshot) => snapshot,
            Err(error) => return Some(Err(error)),
        };
        let file = snapshot.files.get(uri)?;
        Some(Ok(ReadResourceResult::new(vec![contents(uri, file)])))
    }

    fn hint(&self) -> mcpwire_types::CacheHint {
        self.catalog.cache_hint
    }
}

/// A dynamic skill's files as its handler makes them now, checked like a
/// static skill's (paths, frontmatter equal to the declared one).
async fn dynamic_snapshot(skill: &super::store::SkillEntry) -> Result<Store, HandlerError> {
    let Some(handler) = &skill.dynamic else {
        return Err(HandlerError::Internal("not a dynamic skill".to_owned()));
    };
    let files = handler().await?;
    let skill_path = skill
        .root
        .strip_prefix(super::store::SCHEME)
        .unwrap_or(&skill.root);
    let files = files
        .into_iter()
        .map(|(path, bytes)| RawFile { path, bytes })
        .collect();
    let mut store = Store::default();
    store
        .add_static(skill_path, files)
        .map_err(|e| HandlerError::Internal(format!("dynamic skill {skill_path}: {e}")))?;
    let made = store.skills.first().map(|s| &s.skill.frontmatter);
    if made != Some(&skill.skill.frontmatter) {
        return Err(HandlerError::Internal(format!(
            "dynamic skill {skill_path}: its SKILL.md frontmatter differs from the declared one"
        )));
    }
    Ok(store)
}

impl Server {
    /// Serves a request of the skills extension; `None` when `call` is
    /// not one or the server has no skills.
    pub(crate) async fn serve_skills(
        &self,
        call: &ExtensionCall,
        version: ProtocolVersion,
    ) -> Option<Result<RawJson, ErrorObject>> {
        let skills = self.inner.skills.as_ref()?;
        let result_type = version.is_stateless().then_some(ResultType::Complete);
        let answer = match call.method.as_str() {
            "skills/list" => list(skills, call, self.inner.page_size, result_type),
            "skills/get" => get(skills, call, result_type),
            "resources/directory/read" if skills.catalog.directory_read => {
                directory(skills, call, self.inner.page_size, result_type).await
            }
            _ => return None,
        };
        Some(answer)
    }
}

fn list(
    skills: &Skills,
    call: &ExtensionCall,
    page_size: usize,
    result_type: Option<ResultType>,
) -> Result<RawJson, ErrorObject> {
    let params: PaginatedRequestParams = read_params(call)?;
    let store = skills.store();
    let page = Page::of(&store.skills, params.cursor.as_deref(), page_size)
        .map_err(|error| invalid_params(format!("invalid cursor: {error}")))?;
    let hint = skills.hint();
    let result = ListSkillsResult {
        skills: page.items.iter().map(|s| s.skill.clone()).collect(),
        next_cursor: page.next_cursor,
        ttl_ms: Some(hint.ttl_ms),
        cache_scope: Some(hint.scope),
        result_type,
        meta: None,
        extra: mcpwire_types::Extra::new(),
    };
    encode(&result)
}

fn get(
    skills: &Skills,
    call: &ExtensionCall,
    result_type: Option<ResultType>,
) -> Result<RawJson, ErrorObject> {
    let params: GetSkillRequestParams = read_params(call)?;
    let store = skills.store();
    let Some(skill) = store.skill(&params.uri) else {
        return Err(invalid_params(format!(
            "No skill is served at {}",
            params.uri
        )));
    };
    let hint = skills.hint();
    let result = GetSkillResult {
        skill: skill.skill.clone(),
        ttl_ms: Some(hint.ttl_ms),
        cache_scope: Some(hint.scope),
        result_type,
        meta: None,
        extra: mcpwire_types::Extra::new(),
    };
    encode(&result)
}

async fn directory(
    skills: &Skills,
    call: &ExtensionCall,
    page_size: usize,
    result_type: Option<ResultType>,
) -> Result<RawJson, ErrorObject> {
    let params: ReadResourceDirectoryRequestParams = read_params(call)?;
    let uri = params.uri.as_str();
    let store = skills.store();
    let children = match store.children(uri) {
        Some(children) => children,
        None => match store.dynamic_for(uri) {
            Some((skill, _)) => {
                let snapshot = dynamic_snapshot(skill)
                    .await
                    .map_err(|e| e.to_error_object(ProtocolVersion::LATEST))?;
                snapshot.children(uri).ok_or_else(|| not_a_directory(uri))?
            }
            None => return Err(not_a_directory(uri)),
        },
    };
    let page = Page::of(&children, params.cursor.as_deref(), page_size)
        .map_err(|error| invalid_params(format!("invalid cursor: {error}")))?;
    let result = ReadResourceDirectoryResult {
        resources: page.items.to_vec(),
        next_cursor: page.next_cursor,
        result_type,
        meta: None,
        extra: mcpwire_types::Extra::new(),
    };
    encode(&result)
}

fn not_a_directory(uri: &str) -> ErrorObject {
    invalid_params(format!("{uri} is not a directory resource"))
}

fn read_params<T: serde::de::DeserializeOwned>(call: &ExtensionCall) -> Result<T, ErrorObject> {
    let text = call.params.as_ref().map_or("{}", RawJson::get);
    serde_json::from_str(text)
        .map_err(|error| invalid_params(format!("invalid params for {}: {error}", call.method)))
}

fn encode<T: serde::Serialize>(value: &T) -> Result<RawJson, ErrorObject> {
    RawJson::from_serialize(value).map_err(|error| ErrorObject::internal_error(error.to_string()))
}
