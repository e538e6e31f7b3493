//! The input loop of a call under 2026-07-28: a server's input requests
//! (multi round-trip) answered by asking the user, as server requests are
//! answered in the other revisions.

use mcpwire::types::{
    InputRequestKind, InputRequiredResult, InputResponse, InputResponses, ListRootsResult,
};

use crate::error::{CliError, CliResult};
use crate::interact::Interactive;

/// Fulfils a server's input requests (2026-07-28 multi round-trip) by
/// asking the user, as server requests are answered in the other revisions.
pub(super) async fn answer_inputs(input: &InputRequiredResult) -> CliResult<InputResponses> {
    let interactive = Interactive::new();
    let mut responses = InputResponses::default();
    for (key, request) in input
        .input_requests
        .iter()
        .flat_map(|requests| requests.0.iter())
    {
        let response = match &request.kind {
            InputRequestKind::Elicit(params) => interactive
                .ask_user(params.clone())
                .await
                .map(InputResponse::Elicit),
            InputRequestKind::CreateMessage(params) => interactive
                .sample(params.clone())
                .await
                .map(InputResponse::CreateMessage),
            // The CLI exposes no roots.
            InputRequestKind::ListRoots(_) => {
                Ok(InputResponse::ListRoots(ListRootsResult::new(Vec::new())))
            }
            InputRequestKind::Other { method, .. } => {
                return Err(CliError::connection(format!(
                    "the server asked for {method}, which mcpwire cannot answer"
                )));
            }
        };
        let response = response.map_err(|error| {
            CliError::connection(format!(
                "the server's request could not be answered: {}",
                error.message
            ))
        })?;
        responses.0.insert(key.clone(), response);
    }
    Ok(responses)
}
