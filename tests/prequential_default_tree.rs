//! The tree-composition learner in the default online mixture: it runs (and wins) on a small
//! grammar, and is skipped at no cost, with its reason in the learner report, where it does
//! not apply (discrete Z, Z of more dimensions than it fits).

use kcomp::dataset::Dataset;
use kcomp::datasets::grammar::{Composition, GrammarParams, generate};
use kcomp::datasets::language_system::LanguageSystemConfig;
use kcomp::datasets::lookup_table::{self, LookupParams};
use kcomp::estimators::prequential::code::PrequentialCode;
use kcomp::estimators::prequential::learners::tree::MAX_TREE_DIM;
use kcomp::estimators::prequential::online::{
    LearnerSpec, LearnerStatus, LearnerTotal, OnlineConfig, online_code,
};
use kcomp::estimators::prequential::{Ordering, PrequentialConfig, Scheme};

fn default_online(seed: u64) -> PrequentialConfig {
    PrequentialConfig {
        seed,
        ordering: Ordering::Random,
        val_size: 0,
        scheme: Scheme::Online,
        threads: 2,
        online: OnlineConfig::default(),
        ..Default::default()
    }
}

fn tree(code: &PrequentialCode) -> &LearnerTotal {
    code.learners
        .iter()
        .find(|l| l.name == "tree")
        .expect("the default mixture reports the tree learner")
}

#[test]
fn default_learners_include_the_tree_learner() {
    let d = OnlineConfig::default();
    assert!(d.learners.iter().any(|l| matches!(l, LearnerSpec::Tree(_))));
}

/// A tensor-product grammar (width 1, depth 1, 20 words): the tree learner runs and carries
/// most of K(Z|W)'s bits; the mixture is far shorter than without it.
#[test]
fn default_mixture_runs_the_tree_learner_on_a_grammar_and_it_wins() {
    let g = generate(&GrammarParams {
        samples: 400,
        vocab: 20,
        width: 1,
        depth: 1,
        composition: Composition::Tensor,
        seed: 5,
        ..Default::default()
    })
    .unwrap();
    let data = g.to_dataset().unwrap();
    let with = online_code(&data.w, &data.z, &default_online(1), None).unwrap();
    let t = tree(&with);
    assert_eq!(t.status, LearnerStatus::Ran, "{:?}", t.note);
    let best = with
        .learners
        .iter()
        .max_by(|a, b| a.share.total_cmp(&b.share))
        .unwrap();
    assert_eq!(best.name, "tree", "{:?}", with.learners);
    assert!(t.share > 0.5, "tree share {}", t.share);
    let mut cfg = default_online(1);
    cfg.online
        .learners
        .retain(|l| !matches!(l, LearnerSpec::Tree(_)));
    let without = online_code(&data.w, &data.z, &cfg, None).unwrap();
    assert!(
        with.k_data < 0.8 * without.k_data,
        "{} bits with the tree learner, {} without",
        with.k_data,
        without.k_data
    );
}

fn skipped_for(data: &Dataset, reason: &str) {
    let with = online_code(&data.w, &data.z, &default_online(0), None).unwrap();
    let t = tree(&with);
    assert_eq!(t.status, LearnerStatus::Skipped);
    let note = t.note.as_deref().unwrap_or("");
    assert!(note.contains(reason), "{note}");
    // Skipped at no cost: the same bits as the mixture without it.
    let mut cfg = default_online(0);
    cfg.online
        .learners
        .retain(|l| !matches!(l, LearnerSpec::Tree(_)));
    let without = online_code(&data.w, &data.z, &cfg, None).unwrap();
    assert_eq!(with.k_data, without.k_data);
}

#[test]
fn default_mixture_skips_the_tree_learner_on_discrete_z() {
    let data = LanguageSystemConfig {
        n_attr: 2,
        n_vals: 4,
        msg_len: 2,
        vocab: 4,
        repeats: 10,
        ..Default::default()
    }
    .dataset()
    .unwrap();
    skipped_for(&data, "discrete Z");
}

#[test]
fn default_mixture_skips_the_tree_learner_on_wide_z() {
    let g = lookup_table::generate(&LookupParams {
        samples: 120,
        ..Default::default()
    })
    .unwrap();
    skipped_for(
        &g.to_dataset().unwrap(),
        &format!("Z has 64 dimensions, more than the {MAX_TREE_DIM}"),
    );
}
