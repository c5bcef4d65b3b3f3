//! Up-front parameter checks shared by the generators: every error names its parameter.

use crate::error::{KcompError, Result};

/// `value >= min`.
pub fn at_least(name: &str, value: usize, min: usize) -> Result<()> {
    if value < min {
        return Err(KcompError::param(
            name,
            format!("must be at least {min}, got {value}"),
        ));
    }
    Ok(())
}

/// A positive finite real.
pub fn positive(name: &str, value: f64) -> Result<()> {
    if !(value.is_finite() && value > 0.0) {
        return Err(KcompError::param(
            name,
            format!("must be positive and finite, got {value}"),
        ));
    }
    Ok(())
}

/// `divisor` divides `value`.
pub fn divides(divisor_name: &str, divisor: usize, value_name: &str, value: usize) -> Result<()> {
    if divisor == 0 || !value.is_multiple_of(divisor) {
        return Err(KcompError::param(
            divisor_name,
            format!("{divisor_name} = {divisor} must divide {value_name} = {value}"),
        ));
    }
    Ok(())
}
