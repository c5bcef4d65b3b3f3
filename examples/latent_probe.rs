//! Diagnostic of the tree learner's latent node categories, offline (one batch fit, not a
//! prequential code): how the linear rule maps fit a linear grammar given the generator's
//! categories (`oracle`), given a random assignment (`random`), and what an assignment search
//! finds (`search`).
//! Usage: cargo run --release --example latent_probe -- WIDTH DEPTH N SEED MODE [STEPS]
//! Prints the training RMS error (Z's grid step is 0.01, the noise 0.01) after every 10
//! Gauss-Newton steps, the row-iterations spent, and for `search` the assignment found beside
//! the generator's (categories up to renaming).
use kcomp::datasets::grammar::{Composition, GrammarParams, generate};
use kcomp::estimators::prequential::learners::tree::latent::{LatentKeys, permutations};
use kcomp::estimators::prequential::learners::tree::linear::{GnEffort, LinearTree};
use kcomp::estimators::prequential::learners::tree::setup::TreeSetup;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let arg = |i: usize, d: usize| a.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let mode = a.get(5).cloned().unwrap_or_else(|| "oracle".into());
    let steps = arg(6, 100);
    let p = GrammarParams {
        samples: arg(3, 1000),
        vocab: 20,
        width: arg(1, 3),
        depth: arg(2, 2),
        composition: Composition::Linear,
        seed: arg(4, 0) as u64,
        ..Default::default()
    };
    let g = generate(&p).unwrap();
    let s = TreeSetup::new(&g).unwrap();
    let (d, br, w, classes) = (s.dim, &s.br, &s.data.w, &s.classes);
    let c = p.width.max(2);
    let mut latent = s.latent_keys(c);
    // The generator's category of every pair of word classes (its level-0 non-terminal).
    let truth: Vec<usize> = (s.true_pair_categories(&g).into_iter())
        .map(|t| t.unwrap_or(usize::MAX))
        .collect();
    let rows: Vec<usize> = (0..s.data.n()).collect();
    let y = |r: usize, j: usize| s.y(r, j);
    let z_scale = s.z_scale(&rows);
    let height = br.nodes.last().unwrap().height;
    let n = rows.len();
    let rmse = |sse: f64| (sse / (n * d) as f64).sqrt();
    println!(
        "width={} depth={} N={} seed={} classes={} movable={} z_scale={z_scale:.1}",
        p.width,
        p.depth,
        n,
        p.seed,
        classes.count,
        latent.movable.len()
    );
    let truth_of_movable: Vec<usize> = latent.movable.iter().map(|&q| truth[q]).collect();
    println!("truth  {truth_of_movable:?}");
    match mode.as_str() {
        "oracle" | "random" => {
            if mode == "oracle" {
                for &q in &latent.movable.clone() {
                    latent.assign[q] = truth[q];
                }
            } else {
                latent.randomize(p.seed + 17);
            }
            let keys = latent.keys(br, n);
            let mut m = LinearTree::new(w.vocab, d, latent.n_rules());
            m.randomize(height, z_scale, 99);
            let t = std::time::Instant::now();
            let effort = GnEffort {
                steps: 10,
                cg: 60,
                restarts: 0,
            };
            for s in (0..steps).step_by(10) {
                let sse = m.fit(br, &keys, w, &y, &rows, effort, z_scale, 5);
                println!(
                    "steps {:4} rmse {:10.4}  {:.1}s",
                    s + 10,
                    rmse(sse),
                    t.elapsed().as_secs_f64()
                );
            }
        }
        "cluster" => {
            for c in 2..=4 {
                let mut l2 = s.latent_keys(c);
                l2.init_by_covariance(br, &rows, &y, d, 3);
                let got: Vec<usize> = l2.movable.iter().map(|&q| l2.assign[q]).collect();
                println!(
                    "c={c} found {got:?} wrong {}",
                    agreement(&l2.assign, &truth, &l2.movable, c)
                );
            }
        }
        "search" => {
            // One fit of the maps `m` under the assignment `latent`, on every row.
            let fit = |m: &mut LinearTree, latent: &LatentKeys, effort: GnEffort| {
                m.fit(br, &latent.keys(br, n), w, &y, &rows, effort, z_scale, 5)
            };
            // Greedy local search with refits inside: from a random assignment and a full fit,
            // every single move (a pair to another category) is scored by a warm-started short
            // fit; the best improving move is kept; repeat until none improves.
            latent.randomize(p.seed + 17);
            let t = std::time::Instant::now();
            let mut gn_steps = 0usize;
            let full = GnEffort {
                steps: 30,
                cg: 60,
                restarts: 0,
            };
            let short = GnEffort {
                steps: arg(7, 6),
                cg: 60,
                restarts: 0,
            };
            let mut m = LinearTree::new(w.vocab, d, latent.n_rules());
            m.randomize(height, z_scale, 99);
            let mut best = fit(&mut m, &latent, full);
            gn_steps += full.steps;
            let wrong = |l: &LatentKeys| agreement(&l.assign, &truth, &l.movable, l.c);
            println!(
                "start rmse {:.3} wrong {} {:.0}s",
                rmse(best),
                wrong(&latent),
                t.elapsed().as_secs_f64()
            );
            loop {
                let mut cand: Option<(f64, usize, usize, LinearTree)> = None;
                for &q in &latent.movable.clone() {
                    let was = latent.assign[q];
                    for k in (0..latent.c).filter(|&k| k != was) {
                        latent.assign[q] = k;
                        let mut t2 = m.clone();
                        let sse = fit(&mut t2, &latent, short);
                        gn_steps += short.steps;
                        if cand.as_ref().is_none_or(|c| sse < c.0) {
                            cand = Some((sse, q, k, t2));
                        }
                    }
                    latent.assign[q] = was;
                }
                let Some((sse, q, k, t2)) = cand else { break };
                if sse >= best {
                    break;
                }
                latent.assign[q] = k;
                best = sse;
                m = t2;
                println!(
                    "move pair {q} -> {k}: rmse {:.3} wrong {} steps {gn_steps} {:.0}s",
                    rmse(best),
                    wrong(&latent),
                    t.elapsed().as_secs_f64()
                );
            }
            let sse = fit(&mut m, &latent, full);
            println!(
                "final rmse {:.4} wrong {} steps {} {:.0}s",
                rmse(sse),
                wrong(&latent),
                gn_steps + full.steps,
                t.elapsed().as_secs_f64()
            );
        }
        other => panic!("unknown mode {other}"),
    }
}

/// Pairs misassigned under the best renaming of the categories (brute force over the c!
/// renamings, c <= 4).
fn agreement(assign: &[usize], truth: &[usize], movable: &[usize], c: usize) -> usize {
    permutations(c)
        .iter()
        .map(|pm| {
            movable
                .iter()
                .filter(|&&q| truth[q] >= c || pm[assign[q]] != truth[q])
                .count()
        })
        .min()
        .unwrap_or(0)
}
