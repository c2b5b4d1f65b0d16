//! `gen` and `compare`.

use anyhow::{bail, Result};
use clap::Args;

/// Arguments of `gen`.
#[derive(Args)]
pub struct GenArgs {}

/// Arguments of `compare`.
#[derive(Args)]
pub struct CompareArgs {}

pub fn gen(_args: GenArgs) -> Result<u8> {
    bail!("not implemented yet")
}

pub fn compare(_args: CompareArgs) -> Result<u8> {
    bail!("not implemented yet")
}
