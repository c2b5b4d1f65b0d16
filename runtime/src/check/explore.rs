//! Term exploration.
