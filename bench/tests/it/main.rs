//! The bench crate's tests in one binary: the whole suite in smoke mode,
//! and the instruction budgets under callgrind.

mod support;

mod instruction_budget;
mod smoke;
