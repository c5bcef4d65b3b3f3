//! Temporary: fit the tree learner's sub-models on a grammar and report errors.
use kcomp::datasets::grammar::{generate, Composition, GrammarParams};
use kcomp::dataset::Targets;
use kcomp::estimators::prequential::learners::tree::{classes, elementwise::*, linear::*, shape::*};
use std::time::Instant;
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let comp = if a[1] == "tensor" { Composition::Tensor } else { Composition::Linear };
    let (width, depth, n, vocab): (usize, usize, usize, usize) = (a[2].parse().unwrap(), a[3].parse().unwrap(), a[4].parse().unwrap(), a[5].parse().unwrap());
    let head_fine = a.get(6).map(|s| s.as_str()).unwrap_or("one");
    let p = GrammarParams { samples: n + 300, vocab, width, depth, composition: comp, seed: std::env::var("SEED").map(|v| v.parse().unwrap()).unwrap_or(0), ..Default::default() };
    let g = generate(&p).unwrap();
    let d = g.to_dataset().unwrap();
    let t0 = Instant::now();
    let cls = classes::learn_classes(&d.w, 16);
    println!("classes {} in {:.2}s", cls.count, t0.elapsed().as_secs_f64());
    let br = Bracketing::new(d.w.n_words);
    let fine = Categories::fine(cls.of_word.clone(), cls.count, Head::Right);
    let Targets::Continuous { grid, dim, lam } = &d.z else { panic!() };
    let y = |r: usize, j: usize| grid[r * dim + j] as f64 * lam;
    let rows: Vec<usize> = (0..n).collect();
    let test: Vec<usize> = (n..n + 300).collect();
    let rmse = |f: &dyn Fn(usize, &mut [f64]), rows: &[usize]| {
        let mut out = vec![0.0; *dim]; let mut s = 0.0;
        for &r in rows { f(r, &mut out); for j in 0..*dim { s += (y(r, j) - out[j]).powi(2); } }
        (s / (rows.len() * dim) as f64).sqrt()
    };
    if head_fine == "learner" {
        use kcomp::estimators::prequential::online::{run_learner, OnlineLearner};
        let mut l = kcomp::estimators::prequential::learners::tree::TreeLearner::new(&d.w, &d.z, &kcomp::estimators::prequential::learners::tree::TreeSettings { linear: std::env::var("NOLIN").is_err(), elementwise: std::env::var("NOEW").is_err(), ..Default::default() }, false, 1).unwrap();
        let order: Vec<usize> = (0..n).collect();
        let t0 = Instant::now();
        let bits = run_learner(&mut l, &d.w, &d.z, &order, &[4, n]);
        let mut m = kcomp::estimators::prequential::online::Marginal::new(&d.z);
        let mb = run_learner(&mut m, &d.w, &d.z, &order, &[4, n]);
        for c in (0..bits.len()).step_by(bits.len() / 20) {
            let e = (c + bits.len() / 20).min(bits.len());
            println!("rows {c}-{e}: tree {:.1} marginal {:.1} bits/row", bits[c..e].iter().sum::<f64>() / (e - c) as f64, mb[c..e].iter().sum::<f64>() / (e - c) as f64);
        }
        println!("total tree {:.0} marginal {:.0} exact {:.0} ({:.1}s)", bits.iter().sum::<f64>(), mb.iter().sum::<f64>(), g.terms.k_f + g.terms.k_z_given_wf * n as f64 / (n + 300) as f64, t0.elapsed().as_secs_f64());
        let _ = l.name();
        return;
    }
    if comp == Composition::Tensor {
        let keys = Keys::new(&br, &fine, &d.w);
        println!("roles {} depth {}", keys.n_roles, keys.depth);
        let mut m = Elementwise::new(d.w.vocab, *dim, keys.n_roles);
        for sub in [n / 8, n / 4, n / 2, n] {
            let t0 = Instant::now();
            let mse = m.fit(&keys, &d.w, &y, &rows[..sub], FitEffort { iters: std::env::var("IT").map(|v| v.parse().unwrap()).unwrap_or(100), restarts: std::env::var("RS").map(|v| v.parse().unwrap()).unwrap_or(3) }, 1);
            println!("per-dim train rmse {:?}", mse.iter().map(|v| (v.sqrt() * 1000.0).round() / 1000.0).collect::<Vec<_>>());
            println!("n {sub}: train {:.4} test {:.4} ({:.2}s)", rmse(&|r, o| m.predict(&keys, &d.w, r, o), &rows[..sub]), rmse(&|r, o| m.predict(&keys, &d.w, r, o), &test), t0.elapsed().as_secs_f64());
        }
    } else {
        let cats = if head_fine == "fine" { fine.clone() } else { fine.with_pairs(vec![0; cls.count * cls.count]) };
        let keys = Keys::new(&br, &cats, &d.w);
        println!("rules {}", keys.n_rules);
        let mut m = LinearTree::new(d.w.vocab, *dim, keys.n_rules);
        m.randomize(br.nodes.last().unwrap().height, 400.0, 5);
        for sub in [n] {
            let t0 = Instant::now();
            m.fit(&br, &keys, &d.w, &y, &rows[..sub], GnEffort { steps: std::env::var("ST").map(|v| v.parse().unwrap()).unwrap_or(40), cg: std::env::var("CG").map(|v| v.parse().unwrap()).unwrap_or(60), restarts: 0 }, 400.0, 3);
            println!("n {sub}: train {:.4} test {:.4} ({:.2}s)", rmse(&|r, o| m.predict(&br, &keys, &d.w, r, o), &rows[..sub]), rmse(&|r, o| m.predict(&br, &keys, &d.w, r, o), &test), t0.elapsed().as_secs_f64());
        }
    }
}
