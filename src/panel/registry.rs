//! Estimator names of the panel and how each is built from a [`PanelConfig`].

use crate::error::{KcompError, Result};
use crate::estimators::compression::CompressionEstimator;
use crate::estimators::conflict_count::ConflictCountEstimator;
use crate::estimators::context_independence::ContextIndependenceEstimator;
use crate::estimators::disentanglement::{BosdisEstimator, PosdisEstimator};
use crate::estimators::ground_truth::ExactEstimator;
use crate::estimators::information::{EntropyEstimator, MutualInformationEstimator};
use crate::estimators::interface::Estimator;
use crate::estimators::llm_program::LlmProgramEstimator;
use crate::estimators::lz76::Lz76Estimator;
use crate::estimators::mapping_mdl::MappingMdlEstimator;
use crate::estimators::prequential::estimator::PrequentialEstimator;
use crate::estimators::topsim::{TopsimConfig, TopsimEstimator, WDistance};
use crate::estimators::tre::{Composition, TreConfig, TreError, TreEstimator};
use crate::representation::learned_w::LearnedWEstimator;

use super::config::PanelConfig;

/// Every estimator the panel knows, in the default table order.
pub const ESTIMATORS: [&str; 19] = [
    "exact",
    "learned_w",
    "mapping_mdl",
    "prequential",
    "compression",
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
    "tre",
    "tre_linear",
    "tre_cosine",
    "llm_program",
];

/// Errors on an unknown estimator name.
pub fn check_name(name: &str) -> Result<()> {
    if ESTIMATORS.contains(&name) {
        Ok(())
    } else {
        Err(KcompError::param(
            "estimators",
            format!(
                "unknown estimator `{name}` (known: {})",
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
