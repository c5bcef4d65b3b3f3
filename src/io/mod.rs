//! io
