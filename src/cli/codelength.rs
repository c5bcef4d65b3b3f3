//! `kcomp codelength`: code lengths under kcomp's coding primitives.

use clap::{Args, Subcommand};

use crate::coding::bits::nats_to_bits;
use crate::coding::skellam::{MAX_MU, skellam_logpmf_nats};
use crate::error::KcompError;

/// Code length of a value under a distribution.
#[derive(Debug, Args)]
pub struct CodelengthArgs {
    #[command(subcommand)]
    pub distribution: Distribution,
}

/// Supported distributions.
#[derive(Debug, Subcommand)]
pub enum Distribution {
    /// Skellam(mu1, mu2), the difference of two Poissons. Prints
    /// {"logpmf_nats": ln p(k), "bits": -log2 p(k)}; finite far in the tails.
    ///
    /// Example: kcomp codelength skellam --mu1 5000 --mu2 5000 --k 1000
    #[command(allow_negative_numbers = true)]
    Skellam {
        /// Mean of the first Poisson (>= 0).
        #[arg(long)]
        mu1: f64,
        /// Mean of the second Poisson (>= 0).
        #[arg(long)]
        mu2: f64,
        /// The integer value to code.
        #[arg(long)]
        k: i64,
    },
}

/// Runs `kcomp codelength`.
pub fn run_codelength(args: CodelengthArgs) -> anyhow::Result<()> {
    match args.distribution {
        Distribution::Skellam { mu1, mu2, k } => {
            for (name, mu) in [("mu1", mu1), ("mu2", mu2)] {
                if !(mu.is_finite() && (0.0..=MAX_MU).contains(&mu)) {
                    return Err(KcompError::param(
                        name,
                        format!("must be in [0, {MAX_MU:e}] (finite), got {mu}"),
                    )
                    .into());
                }
            }
            if mu1 == 0.0 && mu2 == 0.0 {
                return Err(KcompError::param("mu1", "mu1 and mu2 cannot both be 0").into());
            }
            let lp = skellam_logpmf_nats(k, mu1, mu2);
            if !lp.is_finite() {
                return Err(KcompError::param(
                    "k",
                    format!("k = {k} has probability 0 under Skellam({mu1}, {mu2})"),
                )
                .into());
            }
            println!(
                "{}",
                serde_json::json!({ "logpmf_nats": lp, "bits": nats_to_bits(-lp) })
            );
        }
    }
    Ok(())
}
