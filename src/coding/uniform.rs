//! Uniform codes: choosing one of `n` equally likely items costs `log2 n` bits.

/// Bits to name one of `n` equally likely items (`n >= 1`).
pub fn uniform_code_bits(n: f64) -> f64 {
    n.log2()
}

/// Bits to send `count` independent items, each uniform over `n` values.
pub fn uniform_sequence_bits(count: f64, n: f64) -> f64 {
    count * n.log2()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn powers_of_two_are_exact() {
        assert_eq!(uniform_code_bits(1024.0), 10.0);
        assert_eq!(uniform_sequence_bits(16.0, 2.0), 16.0);
        assert_eq!(uniform_code_bits(1.0), 0.0);
    }
}
