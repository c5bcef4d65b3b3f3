//! Estimator names of the panel and how each is built from a [`PanelConfig`].

use crate::error::{KcompError, Result};
use crate::estimators::bdm::BdmEstimator;
use crate::estimators::compression::CompressionEstimator;
use crate::estimators::conflict_count::ConflictCountEstimator;
use crate::estimators::context_independence::ContextIndependenceEstimator;
use crate::estimators::disentanglement::{BosdisEstimator, PosdisEstimator};
use crate::estimators::ground_truth::ExactEstimator;
use crate::estimators::information::{EntropyEstimator, MutualInformationEstimator};
use crate::estimators::interface::Estimator;
use crate::estimators::llm_program::LlmProgramEstimator;
use crate::estimators::lz76::Lz76Estimator;
use crate::estimators::lz78::Lz78Estimator;
use crate::estimators::mapping_mdl::MappingMdlEstimator;
use crate::estimators::prequential::estimator::PrequentialEstimator;
use crate::estimators::requential::RequentialEstimator;
use crate::estimators::topsim::{TopsimConfig, TopsimEstimator, WDistance};
use crate::estimators::tre::{Composition, TreConfig, TreError, TreEstimator};
use crate::representation::learned_w::LearnedWEstimator;

use super::config::PanelConfig;

/// Every estimator the panel knows, in the default table order.
pub const ESTIMATORS: [&str; 22] = [
    "exact",
    "learned_w",
    "mapping_mdl",
    "prequential",
    "requential",
    "compression",
    "bdm",
    "topsim",
    "topsim_normalised_edit",
    "topsim_jaccard",
    "posdis",
    "bosdis",
    "entropy",
    "mutual_information",
    "context_independence",
    "conflict_count",
    "lz76",
    "lz78",
    "tre",
    "tre_linear",
    "tre_cosine",
    "llm_program",
];

/// What one estimator reports: its unit, which direction is more compositional and what data
/// it applies to (the table of docs/estimators.md; `kcomp compare --estimators list` prints it,
/// figures label their axes with it).
#[derive(Debug, Clone, Copy)]
pub struct EstimatorInfo {
    pub name: &'static str,
    /// Unit or range of the value.
    pub unit: &'static str,
    /// Which values mean more compositional (or that none do).
    pub direction: &'static str,
    /// The data it applies to.
    pub applies_to: &'static str,
}

const CODE: &str = "K(Z|W) in bits; C = K(Z)/K(Z|W)";
const LOWER_K: &str = "lower K(Z|W), higher C";

/// [`EstimatorInfo`] of every name in [`ESTIMATORS`], in the same order.
pub const ESTIMATOR_INFO: [EstimatorInfo; 22] = [
    info("exact", CODE, LOWER_K, "generated data (known generator)"),
    info(
        "learned_w",
        CODE,
        LOWER_K,
        "continuous Z (W learned; opt-in)",
    ),
    info("mapping_mdl", CODE, LOWER_K, "discrete Z"),
    info("prequential", CODE, LOWER_K, "all"),
    info(
        "requential",
        CODE,
        LOWER_K,
        "all (opt-in; 0.3-3x prequential's time)",
    ),
    info(
        "compression",
        CODE,
        LOWER_K,
        "all (needs thousands of rows)",
    ),
    info(
        "bdm",
        "bits, BDM(W then Z) - BDM(W) (an approximation, not a code)",
        LOWER_K,
        "discrete Z (opt-in: needs pybdm's CTM tables)",
    ),
    info("topsim", "correlation in [-1, 1]", "higher", "all"),
    info(
        "topsim_normalised_edit",
        "correlation in [-1, 1]",
        "higher",
        "all",
    ),
    info("topsim_jaccard", "correlation in [-1, 1]", "higher", "all"),
    info("posdis", "score in [0, 1]", "higher", "discrete Z"),
    info("bosdis", "score in [0, 1]", "higher", "discrete Z"),
    info("entropy", "bits, H(W)", "no direction (descriptive)", "all"),
    info(
        "mutual_information",
        "bits, I(W; Z)",
        "higher = more informative (not compositionality)",
        "discrete Z",
    ),
    info(
        "context_independence",
        "score in [0, 1]",
        "higher",
        "discrete Z",
    ),
    info(
        "conflict_count",
        "conflicts (count, grows with N)",
        "lower",
        "discrete Z",
    ),
    info(
        "lz76",
        "LZ76 phrases (Kaspar-Schuster exhaustive parsing)",
        "lower = more regular (not compositionality)",
        "all",
    ),
    info(
        "lz78",
        "LZ78 phrases (Ziv-Lempel dictionary parsing)",
        "lower = more regular (not compositionality)",
        "all",
    ),
    info(
        "tre",
        "mean reconstruction error (L1)",
        "lower",
        "discrete Z",
    ),
    info(
        "tre_linear",
        "mean reconstruction error (L1)",
        "lower",
        "discrete Z",
    ),
    info(
        "tre_cosine",
        "mean reconstruction error (cosine)",
        "lower",
        "discrete Z",
    ),
    info(
        "llm_program",
        "bits (l_bits code length), else C(P) in 0-100",
        "lower bits / higher C(P)",
        "published grid records with a grid report",
    ),
];

const fn info(
    name: &'static str,
    unit: &'static str,
    direction: &'static str,
    applies_to: &'static str,
) -> EstimatorInfo {
    EstimatorInfo {
        name,
        unit,
        direction,
        applies_to,
    }
}

/// The estimators that give a score, not a code length (in table order; `llm_program`, which
/// gives either, is not listed).
pub fn scores() -> Vec<&'static str> {
    ESTIMATOR_INFO
        .iter()
        .filter(|i| i.direction != LOWER_K && i.name != "llm_program")
        .map(|i| i.name)
        .collect()
}

/// The [`EstimatorInfo`] of `name` (labels such as `topsim_jaccard` included).
pub fn estimator_info(name: &str) -> Option<&'static EstimatorInfo> {
    ESTIMATOR_INFO.iter().find(|i| i.name == name)
}

/// The table `kcomp compare --estimators list` prints.
pub fn estimator_table() -> String {
    let header = ["estimator", "unit", "more compositional when", "applies to"];
    let rows: Vec<[&str; 4]> = std::iter::once(header)
        .chain(
            ESTIMATOR_INFO
                .iter()
                .map(|i| [i.name, i.unit, i.direction, i.applies_to]),
        )
        .collect();
    let width = |c: usize| rows.iter().map(|r| r[c].len()).max().unwrap_or(0) + 2;
    let (w0, w1, w2) = (width(0), width(1), width(2));
    let mut out = String::new();
    for r in &rows {
        out.push_str(&format!(
            "{:<w0$}{:<w1$}{:<w2$}{}\n",
            r[0], r[1], r[2], r[3]
        ));
    }
    out.push_str(
        "Units, directions and references: docs/estimators.md. Default: every estimator that \
         applies, except learned_w, requential, bdm and llm_program (name them to run them).\n",
    );
    out
}

/// Errors on an unknown estimator name.
pub fn check_name(name: &str) -> Result<()> {
    if ESTIMATORS.contains(&name) {
        Ok(())
    } else {
        Err(KcompError::param(
            "estimators",
            format!(
                "unknown estimator `{name}` (known: {}; `--estimators list` describes them)",
                ESTIMATORS.join(", ")
            ),
        ))
    }
}

/// Builds the named estimator with the panel's settings.
pub fn build(name: &str, config: &PanelConfig) -> Result<Box<dyn Estimator>> {
    check_name(name)?;
    Ok(match name {
        "exact" => Box::new(ExactEstimator),
        "learned_w" => Box::new(LearnedWEstimator::default()),
        "llm_program" => match &config.llm_report {
            Some(path) => Box::new(LlmProgramEstimator::from_report(path)?),
            None => {
                return Err(KcompError::param(
                    "llm_report",
                    "the llm_program estimator needs a grid report (`llm_report = \"REPORT/per_answer.csv\"`, or --llm-report)",
                ));
            }
        },
        "mapping_mdl" => Box::new(MappingMdlEstimator),
        "compression" => Box::new(CompressionEstimator::default()),
        "topsim" => Box::new(TopsimEstimator {
            config: config.topsim.clone(),
            label: None,
        }),
        // The [topsim] settings with EGG's other message distances, so one panel can hold
        // several views of W.
        "topsim_normalised_edit" | "topsim_jaccard" => Box::new(TopsimEstimator {
            config: TopsimConfig {
                w_distance: if name == "topsim_jaccard" {
                    WDistance::Jaccard
                } else {
                    WDistance::NormalisedEdit
                },
                ..config.topsim.clone()
            },
            label: Some(if name == "topsim_jaccard" {
                "topsim_jaccard"
            } else {
                "topsim_normalised_edit"
            }),
        }),
        "posdis" => Box::new(PosdisEstimator),
        "bosdis" => Box::new(BosdisEstimator {
            eos: config.bosdis.eos,
        }),
        "entropy" => Box::new(EntropyEstimator),
        "mutual_information" => Box::new(MutualInformationEstimator),
        "context_independence" => Box::new(ContextIndependenceEstimator),
        "conflict_count" => Box::new(ConflictCountEstimator),
        "lz76" => Box::new(Lz76Estimator),
        "lz78" => Box::new(Lz78Estimator),
        "bdm" => Box::new(BdmEstimator {
            config: config.bdm.clone(),
        }),
        "tre" => Box::new(TreEstimator {
            config: config.tre.clone(),
            label: None,
        }),
        // The [tre] settings with the composition or the error overridden.
        "tre_linear" => Box::new(TreEstimator {
            config: TreConfig {
                composition: Composition::Linear,
                ..config.tre.clone()
            },
            label: Some("tre_linear"),
        }),
        "tre_cosine" => Box::new(TreEstimator {
            config: TreConfig {
                error: TreError::Cosine,
                ..config.tre.clone()
            },
            label: Some("tre_cosine"),
        }),
        "requential" => Box::new(RequentialEstimator {
            config: config.requential.clone(),
        }),
        "prequential" => Box::new(PrequentialEstimator {
            config: config.prequential.config.clone(),
            val_fraction: config.prequential.val_fraction,
        }),
        _ => {
            return Err(KcompError::param(
                "estimators",
                format!("`{name}` is not available in this build"),
            ));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_estimator_is_described_in_order() {
        let names: Vec<&str> = ESTIMATOR_INFO.iter().map(|i| i.name).collect();
        assert_eq!(names, ESTIMATORS);
        let table = estimator_table();
        assert_eq!(table.lines().count(), ESTIMATORS.len() + 2);
        assert!(table.contains("conflict_count") && table.contains("lower"));
        let scores = scores();
        assert!(scores.contains(&"lz78") && scores.contains(&"tre_cosine"));
        assert!(!scores.contains(&"bdm") && !scores.contains(&"requential"));
        assert_eq!(scores.len(), 14);
    }
}
