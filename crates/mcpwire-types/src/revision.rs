//! Fitting a value to one revision before it is sent.
//!
//! The model holds the union of every revision. Before a value goes to a
//! peer that speaks revision `v`, [`ForRevision::fit_to`] removes what `v`
//! does not know (fields it lacks, content kinds it cannot carry) and fills
//! what `v` requires and the model can default (e.g. `resultType` in
//! 2026-07-28), so a message built once can be sent to any peer.

use crate::ProtocolVersion;

/// A value that can be fitted to what one revision knows.
///
/// Implementations remove fields the revision does not define, convert
/// values it cannot express into the closest form it can, and fill fields it
/// requires with their documented defaults. They never invent content, and
/// leave [`Extra`](crate::Extra) (what a peer sent that we do not model)
/// alone.
pub trait ForRevision {
    /// Removes, converts or fills, in place, so that the value is what `version` expects.
    fn fit_to(&mut self, version: ProtocolVersion);
}

impl<T: ForRevision> ForRevision for Option<T> {
    fn fit_to(&mut self, version: ProtocolVersion) {
        if let Some(inner) = self {
            inner.fit_to(version);
        }
    }
}

impl<T: ForRevision> ForRevision for Vec<T> {
    fn fit_to(&mut self, version: ProtocolVersion) {
        for item in self {
            item.fit_to(version);
        }
    }
}

impl<T: ForRevision> ForRevision for Box<T> {
    fn fit_to(&mut self, version: ProtocolVersion) {
        (**self).fit_to(version);
    }
}

/// Returns `value` fitted to `version`; shorthand for owned values.
pub fn fitted<T: ForRevision>(mut value: T, version: ProtocolVersion) -> T {
    value.fit_to(version);
    value
}

/// Clears `field` unless `present` (the revision has it); a one-line helper
/// for `ForRevision` implementations.
pub(crate) fn keep_if<T>(present: bool, field: &mut Option<T>) {
    if !present {
        *field = None;
    }
}
