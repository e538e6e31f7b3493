//! (being written) `cargo xtask conformance`.
pub(crate) fn run(_args: &[String]) -> Result<(), String> {
    Err("not yet written".into())
}
