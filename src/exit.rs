//! How a command ends: what it writes to standard output, and the errors that are not an
//! input's.

/// Writes `text` to standard output; an error (a closed pipe) is returned, not a panic as
/// with `print!`.
pub fn print_out(text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// The error of a command that panicked (after the panic's own message).
pub fn thread_panicked() -> anyhow::Error {
    anyhow::anyhow!("internal error (a thread panicked); please report it")
}
