//! Expected work of estimators and datasets, for progress bars whose ETA follows work instead
//! of counts ([`crate::progress::WorkBar`]). A panel's datasets differ by 250x in cost (a
//! 16-row grid record against 4,096 rows of six-letter grids) and its estimators by 10,000x
//! (entropy against the prequential code), so an ETA that counts datasets said "eta 2 seconds"
//! a minute before the end.
//!
//! The unit is about one second of one idle core: each estimator's model was fitted to the
//! `seconds` of `runs.csv` of the default panel and the metric zoo (threads = 1). Only ratios
//! matter; the models need to be right within a factor of about 2 on the datasets a panel
//! holds, not exact (`tests/compare_panel.rs` checks the ETA on a panel).

use crate::dataset::Dataset;
use crate::estimators::interface::Estimator;
use crate::estimators::prequential::code::Scheme;
use crate::estimators::topsim::Correlation;

use super::config::PanelConfig;
use super::run::PlannedDataset;
use super::{family, registry};

/// What the work of an estimator depends on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shape {
    /// Rows N.
    pub n: usize,
    /// Tokens per message M.
    pub m: usize,
    /// Attributes (discrete Z) or dimensions (continuous Z).
    pub attrs: usize,
    pub discrete: bool,
}

impl Shape {
    pub fn of(data: &Dataset) -> Self {
        Shape {
            n: data.n(),
            m: data.w.n_words,
            attrs: data.z.width(),
            discrete: data.is_discrete(),
        }
    }
}

/// Expected seconds (one idle core) of estimator `name` on data of `shape` with `config`'s
/// settings.
pub fn estimator_work(name: &str, shape: Shape, config: &PanelConfig) -> f64 {
    let n = shape.n as f64;
    let (m, a) = (shape.m as f64, shape.attrs as f64);
    let cells = n * (m + a);
    let pairs = (n * (n - 1.0) / 2.0).min(config.topsim.max_pairs as f64);
    let ranked = if config.topsim.correlation == Correlation::Spearman {
        8.0
    } else {
        1.0
    };
    match name {
        // Fitted: language 640 rows, M = A = 2: 0.16 s; grids of 4,096 rows, M = 6, 36
        // cells: 4.0 s; lookup tables of 500 rows, M = 4, D = 8: 0.20 s.
        "prequential" => {
            let online = 0.002 + 1.3e-4 * n * (m + a).sqrt();
            match config.prequential.config.scheme {
                Scheme::Online => online,
                // A network retrained per chunk.
                Scheme::Reference => 10.0 * online,
            }
        }
        // A prequential code per sentence space tried: minutes.
        "learned_w" => 40.0 * (0.002 + 1.3e-4 * n * (m + a).sqrt()),
        "compression" => 0.009 + 2e-6 * cells,
        "mapping_mdl" => 1.5e-7 * n * m * a,
        "topsim" | "topsim_normalised_edit" | "topsim_jaccard" => {
            let per_pair = match name {
                "topsim" => 1.0,
                _ => 6.0,
            };
            2e-9 * per_pair * ranked * pairs * (m + a)
        }
        "tre" | "tre_linear" | "tre_cosine" => 7e-8 * config.tre.steps as f64 * n,
        "llm_program" => 0.01,
        // Counting estimators (posdis, bosdis, entropy, ...): a pass or two over the cells.
        _ => 5e-7 * cells,
    }
}

/// Expected work of every dataset of `plan` through `config`'s estimators (the estimators
/// that do not apply to a dataset cost nothing), for the panel's progress bar. The shape of
/// each (family, value) comes from generating its first seed once (shapes do not depend on
/// the seed); a value that cannot be generated gets the mean weight (its job will report the
/// error).
pub fn plan_weights(config: &PanelConfig, plan: &[PlannedDataset]) -> Vec<f64> {
    let estimators: Vec<Option<Box<dyn Estimator>>> = config
        .estimators
        .iter()
        .map(|name| registry::build(name, config).ok())
        .collect();
    let mut shapes: Vec<((usize, usize), Option<f64>)> = Vec::new();
    let mut weights: Vec<Option<f64>> = Vec::with_capacity(plan.len());
    for planned in plan {
        let key = (planned.family_index, planned.value_index);
        let weight = match shapes.iter().find(|(k, _)| *k == key) {
            Some((_, w)) => *w,
            None => {
                let fam = &config.families[planned.family_index];
                let w = family::generate(fam, &planned.value, planned.seed)
                    .ok()
                    .map(|data| dataset_work(&data, config, &estimators));
                shapes.push((key, w));
                w
            }
        };
        weights.push(weight);
    }
    let known: Vec<f64> = weights.iter().flatten().copied().collect();
    let mean = if known.is_empty() {
        1.0
    } else {
        known.iter().sum::<f64>() / known.len() as f64
    };
    weights.into_iter().map(|w| w.unwrap_or(mean)).collect()
}

/// Expected seconds of one dataset through `estimators` (`None`: could not be built).
fn dataset_work(
    data: &Dataset,
    config: &PanelConfig,
    estimators: &[Option<Box<dyn Estimator>>],
) -> f64 {
    let shape = Shape::of(data);
    // Generating the dataset and writing its rows.
    let fixed = 0.002 + 1e-7 * (shape.n * (shape.m + shape.attrs)) as f64;
    fixed
        + config
            .estimators
            .iter()
            .zip(estimators)
            .filter(|(_, e)| e.as_ref().is_none_or(|e| e.applies_to(data).is_ok()))
            .map(|(name, _)| estimator_work(name, shape, config))
            .sum::<f64>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_costly_estimators_and_datasets_weigh_most() {
        let config = PanelConfig::single_dataset_defaults();
        let language = Shape {
            n: 640,
            m: 2,
            attrs: 2,
            discrete: true,
        };
        let grid6 = Shape {
            n: 4096,
            m: 6,
            attrs: 36,
            discrete: true,
        };
        let w = |name: &str, s: Shape| estimator_work(name, s, &config);
        assert!(w("prequential", language) > 100.0 * w("posdis", language));
        assert!(w("tre", language) > 10.0 * w("entropy", language));
        // The measured ratio of the prequential code: 4.0 s / 0.16 s.
        let ratio = w("prequential", grid6) / w("prequential", language);
        assert!((12.0..50.0).contains(&ratio), "{ratio}");
    }
}
