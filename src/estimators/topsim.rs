//! topsim
