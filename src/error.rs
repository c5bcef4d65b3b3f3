//! Error type shared by the library; the CLI maps every variant to exit status 2.

use std::path::PathBuf;

/// Errors kcomp reports to the user. Messages name the offending parameter, file or field.
#[derive(Debug, thiserror::Error)]
pub enum KcompError {
    /// A parameter value is out of its domain (e.g. `q` does not divide `M`).
    #[error("invalid parameter `{name}`: {reason}")]
    InvalidParameter { name: String, reason: String },
    /// A file could not be read or has the wrong content.
    #[error("{path}: {reason}")]
    BadFile { path: PathBuf, reason: String },
    /// Underlying I/O failure.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Any other failure with a descriptive message.
    #[error("{0}")]
    Other(String),
}

impl KcompError {
    /// Shorthand for [`KcompError::InvalidParameter`].
    pub fn param(name: impl Into<String>, reason: impl Into<String>) -> Self {
        KcompError::InvalidParameter {
            name: name.into(),
            reason: reason.into(),
        }
    }

    /// Shorthand for [`KcompError::BadFile`].
    pub fn file(path: impl Into<PathBuf>, reason: impl Into<String>) -> Self {
        KcompError::BadFile {
            path: path.into(),
            reason: reason.into(),
        }
    }

    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        KcompError::Io {
            path: path.into(),
            source,
        }
    }
}

/// Result alias used across the crate.
pub type Result<T, E = KcompError> = std::result::Result<T, E>;
