//! Settings of requential coding.

use serde::{Deserialize, Serialize};

use crate::error::{KcompError, Result};
use crate::estimators::prequential::Ordering;
use crate::estimators::prequential::online::{LearnerSpec, OnlineConfig, learners_by_name_or_spec};

/// Which teacher state draws the synthetic rows the student learns from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Teacher {
    /// The teacher as it trains on the real rows (Finzi et al.'s scheme): the rows of a
    /// message are drawn from the teacher after it has learned the real rows up to the end of
    /// that message.
    Online,
    /// The teacher after it has learned every real row draws every synthetic row (the
    /// default: learners that keep sufficient statistics never forget the samples of an
    /// early, poor teacher, which made the online teacher's codes about twice as long on
    /// lookup tables).
    #[default]
    Final,
}

/// Settings of requential coding (lengths in bits).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RequentialConfig {
    /// Seed of the row order, the learners and the synthetic draws.
    pub seed: u64,
    /// Row order (a seeded permutation by default; `grouped` is refused as for every code
    /// length kcomp reports, see `Ordering::for_code_length`).
    pub ordering: Ordering,
    /// The teacher state that draws each synthetic row.
    pub teacher: Teacher,
    /// Message schedule: the message after `t` rows holds `max(min_block, ceil(growth t))`
    /// rows. Each message is one relative-entropy code (overhead `log2(KL + 1) + 4` bits) and
    /// the student's predictive is frozen within it, so larger messages cost less overhead
    /// and more KL.
    pub growth: f64,
    /// Smallest message.
    pub min_block: usize,
    /// Teacher/student pairs run side by side (short names as `--learners`); the shortest
    /// total wins and the choice costs log2 of the number that apply. Learners without a
    /// closed-form predictive (rules, the GRU's padding-free form is fine) are skipped.
    #[serde(deserialize_with = "learners_by_name_or_spec")]
    pub learners: Vec<LearnerSpec>,
    /// Weight of the guard in every message's coding distribution: the student's predictive
    /// mixed with Z-without-W on the synthetic rows so far, so a student that is confidently
    /// wrong early costs at most about log2(1/guard) bits more per value than the guard
    /// (costs at most -log2(1 - guard) bits per value otherwise).
    pub guard: f64,
    /// Also K(Z): the same learners with W withheld (every row's W replaced by one token).
    pub k_z: bool,
    /// Worker threads for the learners (0 = all cores).
    pub threads: usize,
}

impl Default for RequentialConfig {
    fn default() -> Self {
        let names = ["marginal", "ngram2", "linear1", "linear2", "mlp-linear"];
        RequentialConfig {
            seed: 0,
            ordering: Ordering::Random,
            teacher: Teacher::Final,
            growth: 0.5,
            min_block: 4,
            learners: names
                .iter()
                .filter_map(|n| LearnerSpec::from_name(n))
                .collect(),
            guard: 1.0 / 1024.0,
            k_z: true,
            threads: 0,
        }
    }
}

impl RequentialConfig {
    /// Checks the settings; errors name the key.
    pub fn validate(&self) -> Result<()> {
        if !(self.growth.is_finite() && self.growth > 0.0 && self.growth <= 100.0) {
            return Err(KcompError::param(
                "requential.growth",
                "must be in (0, 100]",
            ));
        }
        if !(self.guard > 0.0 && self.guard < 0.5) {
            return Err(KcompError::param("requential.guard", "must be in (0, 0.5)"));
        }
        if self.min_block == 0 {
            return Err(KcompError::param("requential.min_block", "must be >= 1"));
        }
        if self.learners.is_empty() {
            return Err(KcompError::param(
                "requential.learners",
                "needs >= 1 learner",
            ));
        }
        crate::io::limits::check_threads("requential.threads", self.threads, true)?;
        self.online().validate()
    }

    /// The online scheme's settings the learners are built with (replay budget, batch size,
    /// calibration window: the defaults of the prequential online scheme).
    pub fn online(&self) -> OnlineConfig {
        OnlineConfig {
            learners: self.learners.clone(),
            growth: self.growth,
            min_block: self.min_block,
            ..OnlineConfig::default()
        }
    }

    /// Message boundaries for `n` rows: 0, then growing messages up to `n`.
    pub fn boundaries(&self, n: usize) -> Vec<usize> {
        let mut b = vec![0];
        let mut t = 0;
        while t < n {
            let step = ((t as f64 * self.growth).ceil() as usize).max(self.min_block);
            t = (t + step).min(n);
            b.push(t);
        }
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_validate_and_messages_grow() {
        let c = RequentialConfig::default();
        c.validate().unwrap();
        assert_eq!(c.learners.len(), 5);
        // min_block 4, growth 0.5: 0, 4, 8, 12, 18, 27, 41, ...
        assert_eq!(&c.boundaries(50)[..7], &[0, 4, 8, 12, 18, 27, 41]);
        assert_eq!(*c.boundaries(50).last().unwrap(), 50);
        assert_eq!(c.boundaries(0), vec![0]);
        let t: RequentialConfig =
            toml::from_str("learners = [\"ngram1\", \"marginal\"]\nteacher = \"final\"").unwrap();
        assert_eq!(t.teacher, Teacher::Final);
        assert_eq!(t.learners[0], LearnerSpec::Ngram { order: 1 });
        assert!(toml::from_str::<RequentialConfig>("learners = [\"nope\"]").is_err());
        let bad = RequentialConfig {
            growth: 0.0,
            ..Default::default()
        };
        assert!(bad.validate().unwrap_err().to_string().contains("growth"));
    }
}
