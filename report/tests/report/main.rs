//! Integration tests of the report crate, one binary: sequence diagrams and the HTML report.
//!
//! `cargo test -p multitrace-report --test report MODULE::` runs one module's tests.

mod diagram;
mod html;
