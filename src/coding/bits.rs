//! Units: kcomp reports every description length in bits.

/// ln 2.
pub const LN_2: f64 = std::f64::consts::LN_2;

/// Converts a length in nats (natural-log units) to bits.
pub fn nats_to_bits(nats: f64) -> f64 {
    nats / LN_2
}

/// log2 C(n, k).
pub fn log2_binomial(n: usize, k: usize) -> f64 {
    let k = k.min(n - k.min(n));
    (0..k)
        .map(|j| ((n - j) as f64).log2() - ((j + 1) as f64).log2())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_nat_is_1_4427_bits() {
        assert!((nats_to_bits(1.0) - std::f64::consts::LOG2_E).abs() < 1e-15);
        // ln 8 nats = 3 bits exactly (up to rounding).
        assert!((nats_to_bits(8f64.ln()) - 3.0).abs() < 1e-15);
    }
}
