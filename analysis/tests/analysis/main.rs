//! Integration tests of the analysis crate, one binary: the partition analysis on seed 002's
//! examples and against brute-force enumeration.
//!
//! `cargo test -p multitrace-analysis --test analysis MODULE::` runs one module's tests.

mod partition_analysis;
