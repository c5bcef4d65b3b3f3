//! io
pub mod user_data;
