//! Compiler.
