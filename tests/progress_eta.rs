//! Progress ETAs weighted by expected work: on a panel whose cheap datasets come first (16-row
//! grid records, then 640-row languages, then 1,024-row grids), the ETA a work-weighted bar
//! would show after each dataset is within a factor 2 of the time that was really left, where
//! counting datasets is off by far more.
//!
//! No timing race: each dataset's cost is measured as the CPU time of the process that runs its
//! estimators (prequential with one thread), which other processes on the machine do not
//! inflate, and the ETA is computed from those costs with the bar's own formula
//! (`kcomp::progress::remaining_by_work`).

use std::time::Duration;

use kcomp::estimators::interface::{Progress, run_estimator};
use kcomp::panel::config::PanelConfig;
use kcomp::panel::{family, registry, run, work};

const PANEL: &str = r#"
name = "eta"
seeds = 1
estimators = ["exact", "mapping_mdl", "prequential", "compression", "topsim", "posdis"]
[prequential.config]
scheme = "online"
threads = 1
[[family]]
name = "grid-setting"
kind = "grid"
parameter = "setting"
values = ["h", "v", "b", "r", "hr", "holistic"]
[[family]]
name = "language-h"
kind = "language"
parameter = "holistic_fraction"
values = [0.0, 0.5, 1.0]
[family.params]
n_attr = 2
n_vals = 8
msg_len = 2
vocab = 8
repeats = 10
[[family]]
name = "grid5-h"
kind = "grid"
parameter = "holistic_fraction"
values = [0.0, 1.0]
[family.params]
setting = "r"
positions = 5
letters = 4
side = 5
complementary = false
"#;

/// CPU time of this process (all its threads: the prequential code runs in a pool of its own;
/// the other test of this file takes microseconds).
fn process_cpu() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec into the valid pointer it is given.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    assert_eq!(rc, 0);
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// The worst ratio (predicted / actual remaining time, or its inverse) over the checkpoints
/// after each job, where at least 5 % of the work is done and 10 % of the time is left.
fn worst_eta_ratio(costs: &[f64], weights: &[f64]) -> f64 {
    let total_time: f64 = costs.iter().sum();
    let total_work: f64 = weights.iter().sum();
    let (mut elapsed, mut done) = (0.0, 0.0);
    let mut worst: f64 = 1.0;
    for (c, w) in costs.iter().zip(weights) {
        elapsed += c;
        done += w;
        let actual = total_time - elapsed;
        if elapsed < 0.05 * total_time || actual < 0.1 * total_time {
            continue;
        }
        let predicted =
            kcomp::progress::remaining_by_work(Duration::from_secs_f64(elapsed), done, total_work)
                .expect("work done")
                .as_secs_f64();
        worst = worst.max(predicted / actual).max(actual / predicted);
    }
    worst
}

#[test]
fn the_eta_of_a_panel_is_within_a_factor_two() {
    let config = PanelConfig::from_toml("eta.toml", PANEL).unwrap();
    let plan = run::plan(&config).unwrap();
    let weights = work::plan_weights(&config, &plan);
    let estimators: Vec<_> = config
        .estimators
        .iter()
        .map(|n| registry::build(n, &config).unwrap())
        .collect();
    let hidden = Progress::hidden();
    let mut costs = Vec::new();
    for planned in &plan {
        let fam = &config.families[planned.family_index];
        let start = process_cpu();
        let data = family::generate(fam, &planned.value, planned.seed).unwrap();
        for e in &estimators {
            let row = run_estimator(e.as_ref(), &data, &hidden);
            assert!(
                !row.status.to_string().starts_with("failed"),
                "{}",
                row.status
            );
        }
        costs.push((process_cpu() - start).as_secs_f64());
    }
    let by_work = worst_eta_ratio(&costs, &weights);
    let by_count = worst_eta_ratio(&costs, &vec![1.0; costs.len()]);
    let shares: Vec<String> = costs
        .iter()
        .zip(&weights)
        .map(|(c, w)| format!("{c:.4} s / {w:.4}"))
        .collect();
    assert!(
        by_work <= 2.0,
        "ETA by work off by {by_work:.2}x (by count {by_count:.2}x); measured / predicted: {shares:?}"
    );
    // The plan is one where counting misleads (cheap datasets first).
    assert!(by_count > 2.0, "by count {by_count:.2}x: {shares:?}");
    eprintln!("worst ETA ratio: by work {by_work:.2}x, by count {by_count:.2}x; {shares:?}");
}

/// The bar's formula with a fake clock: after 10 s with 1 of 5 units done, 40 s are left;
/// nothing done, unknown.
#[test]
fn remaining_time_by_work() {
    let r = |s: u64, d: f64, t: f64| {
        kcomp::progress::remaining_by_work(Duration::from_secs(s), d, t).map(|x| x.as_secs_f64())
    };
    assert_eq!(r(10, 1.0, 5.0), Some(40.0));
    assert_eq!(r(10, 5.0, 5.0), Some(0.0));
    assert_eq!(r(10, 0.0, 5.0), None);
}
