//! Input formats read by the runtime's front ends.
//!
//! - [`events`]: event logs (JSON Lines or CSV), grouped by run.

pub mod events;
