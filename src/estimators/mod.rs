//! estimators
