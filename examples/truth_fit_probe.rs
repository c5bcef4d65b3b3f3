//! Probe: does the tree learner's linear model hold a generated grammar, and from which starts
//! does its fit get there? A diagnostic, not a learner: it reads the generator's word classes,
//! first-level categories and parameters (replaying the generator's draws).
//!
//! The rows are split 3:1; fits (30 Gauss-Newton steps, 60 CG iterations, no prior; env
//! RIDGE=1: the learner's prior, `LinearTree::ridge`) use the first part; the probe prints
//! training and held-out rmse (Z's units) for a fit started
//! - at the generator's parameters (env PERTURB=x: plus Gaussian noise of standard deviation x
//!   on every parameter; PARTIAL=1,4: with the maps of those heights drawn at random),
//! - at `STARTS` random starts (`LinearTree::randomize`, as the learner's).
//!
//! Usage: cargo run --release --example truth_fit_probe -- VOCAB WIDTH DEPTH N SEED [STARTS]
//! (linear composition, M = 16, D = 10). Env SHARED=1: one map per generator rule (the
//! recursive top level's maps shared across heights) instead of the learner's one per
//! (height, left category, right category). Env TABULAR=1: the first level as a table, one
//! vector per (first-level key, side, word) summed by one shared map (the word vectors and
//! first-level maps in fewer parameters where a class has fewer words than D).
use kcomp::coding::discretised_gaussian::DiscretisedGaussian;
use kcomp::dataset::Targets;
use kcomp::datasets::grammar::{GrammarParams, generate};
use kcomp::estimators::prequential::learners::tree::linear::{GnEffort, LinearTree};
use kcomp::estimators::prequential::learners::tree::shape::{Bracketing, Categories, Head, Keys};
use kcomp::rng::stream::Stream;

fn env_list(name: &str) -> Vec<usize> {
    std::env::var(name)
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_default()
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let arg = |i: usize, d: usize| a.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let p = GrammarParams {
        vocab: arg(1, 100),
        width: arg(2, 3),
        depth: arg(3, 2),
        samples: arg(4, 2000),
        seed: arg(5, 0) as u64,
        ..Default::default()
    };
    let starts = arg(6, 2) as u64;
    let g = generate(&p).expect("grammar parameters");
    let data = g.to_dataset().expect("dataset");
    let Targets::Continuous { grid, .. } = &data.z else {
        unreachable!("a grammar's Z is continuous")
    };
    let (t, d, lam) = (p.pos, p.dim, p.precision);
    // The generator's draws, in its order: embeddings, then one matrix per rule.
    let entry = DiscretisedGaussian::new(p.param_std, lam, "param_std").expect("grid");
    let mut stream = Stream::new(p.rng, p.seed);
    let emb = entry.sample(&mut stream, p.vocab * d);
    let mats: Vec<Vec<i64>> = g
        .grammar
        .rules
        .iter()
        .map(|_| entry.sample(&mut stream, 2 * d * d))
        .collect();

    // The generator's categories in the learner's terms: word class = POS, the pair category
    // of a first-level node its non-terminal, higher nodes take the right child's.
    let mut pair = vec![0usize; t * t];
    for (l, r, lhs) in g.first_level_nodes() {
        pair[(l % t) * t + r % t] = lhs - t;
    }
    let cats = Categories {
        word_class: (0..p.vocab).map(|w| w % t).collect(),
        n_word_classes: t,
        pair_class: pair,
        n_pair_classes: p.width,
        head: Head::Right,
    };
    let br = Bracketing::new(p.length);
    let height = br.nodes.last().expect("M >= 2").height;
    let k = br.nodes.len();
    let mut keys = Keys::new(&br, &cats, &data.w);
    // Generator rule and height of every learner key (one rule each: checked).
    let mut rule_of_key: Vec<Option<usize>> = vec![None; keys.n_rules];
    let mut height_of_key = vec![0usize; keys.n_rules];
    for (r, tree) in g.trees.iter().enumerate() {
        let rules = tree.rules_post_order();
        assert_eq!(
            rules.len(),
            k,
            "the generator's tree is the learner's bracketing"
        );
        for (i, &gr) in rules.iter().enumerate() {
            let id = keys.rule[r * k + i] as usize;
            assert!(
                rule_of_key[id].is_none_or(|x| x == gr),
                "a learner key covers two generator rules"
            );
            rule_of_key[id] = Some(gr);
            height_of_key[id] = br.nodes[i].height;
        }
    }
    let learner_keys = keys.n_rules;
    if std::env::var_os("SHARED").is_some() {
        let mut id_of_rule = std::collections::HashMap::new();
        let mut shared_height = Vec::new();
        for x in keys.rule.iter_mut() {
            let gr = rule_of_key[*x as usize].expect("seen");
            let next = id_of_rule.len() as u32;
            let id = *id_of_rule.entry(gr).or_insert_with(|| {
                shared_height.push(height_of_key[*x as usize]);
                next
            });
            *x = id;
        }
        keys.n_rules = id_of_rule.len();
        rule_of_key = vec![None; keys.n_rules];
        for (gr, id) in id_of_rule {
            rule_of_key[id as usize] = Some(gr);
        }
        height_of_key = shared_height;
    }
    let mut truth = LinearTree::new(p.vocab, d, keys.n_rules);
    truth.emb = emb.iter().map(|&v| v as f64 * lam).collect();
    for (id, gr) in rule_of_key.iter().enumerate() {
        let gr = gr.expect("every key has a rule");
        for (x, &v) in truth.maps[id * 2 * d * d..(id + 1) * 2 * d * d]
            .iter_mut()
            .zip(&mats[gr])
        {
            *x = v as f64 * lam;
        }
    }
    let mut data_w = data.w.clone();
    if std::env::var_os("TABULAR").is_some() {
        // Every (height-1 key, side, word) its own token; one shared height-1 map.
        let t = tabular(&truth, &br, &keys, &data.w, &height_of_key);
        (truth, data_w, keys, height_of_key) = (t.tree, t.w, t.keys, t.height_of_key);
    }

    let y = |r: usize, j: usize| grid[r * d + j] as f64 * lam;
    let split = p.samples * 3 / 4;
    let train: Vec<usize> = (0..split).collect();
    let test: Vec<usize> = (split..p.samples).collect();
    let z_rms = kcomp::estimators::prequential::learners::tree::setup::rms_of_rows(&train, d, y);
    let rmse = |m: &LinearTree, rows: &[usize]| {
        (m.sse(&br, &keys, &data_w, &y, rows) / (rows.len() * d).max(1) as f64).sqrt()
    };
    let params = truth.n_params();
    println!(
        "vocab {} width {} depth {} N {} seed {}: {} keys (learner {learner_keys}, generator rules {}), {params} parameters, {} training rows ({:.2} equations a parameter), Z rms {z_rms:.1}",
        p.vocab,
        p.width,
        p.depth,
        p.samples,
        p.seed,
        keys.n_rules,
        g.grammar.rules.len(),
        train.len(),
        (train.len() * d) as f64 / params as f64
    );
    let effort = GnEffort {
        steps: 30,
        cg: 60,
        restarts: 0,
    };
    let ridge: f64 = std::env::var("RIDGE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0);
    let report = |label: &str, mut m: LinearTree| {
        let start = rmse(&m, &train);
        let clock = std::time::Instant::now();
        m.ridge = ridge;
        m.fit(&br, &keys, &data_w, &y, &train, effort, z_rms, 1);
        println!(
            "{label}: start {start:.4}, fitted: train rmse {:.4}, held-out rmse {:.4} ({:.1} s)",
            rmse(&m, &train),
            rmse(&m, &test),
            clock.elapsed().as_secs_f64()
        );
    };

    let perturb: f64 = std::env::var("PERTURB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0);
    let partial = env_list("PARTIAL");
    let mut start = truth.clone();
    let mut noise = LinearTree::new(truth.vocab, d, keys.n_rules);
    noise.randomize(height, z_rms, 1_000);
    if perturb > 0.0 {
        use rand::SeedableRng;
        use rand_distr::{Distribution, StandardNormal};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for x in start.maps.iter_mut().chain(start.emb.iter_mut()) {
            let e: f64 = StandardNormal.sample(&mut rng);
            *x += perturb * e;
        }
    }
    for (id, h) in height_of_key.iter().enumerate() {
        if partial.contains(h) {
            let block = id * 2 * d * d..(id + 1) * 2 * d * d;
            start.maps[block.clone()].copy_from_slice(&noise.maps[block]);
        }
    }
    start.map_var = noise.map_var;
    report(
        &format!("generator's parameters (perturb {perturb}, random heights {partial:?})"),
        start,
    );
    for s in 0..starts {
        let mut m = LinearTree::new(truth.vocab, d, keys.n_rules);
        m.randomize(height, z_rms, 100 + s);
        report(&format!("random start {s}"), m);
    }
}

/// A layout rewritten with its first level as a table: the model, W's tokens, the keys and the
/// height of every key.
struct Tabular {
    tree: LinearTree,
    w: kcomp::dataset::TokenData,
    keys: Keys,
    height_of_key: Vec<usize>,
}

/// The tabular form of the first level: token `(height-1 key, side, word)` with the vector
/// `word A_side` of the generator, and one height-1 map `[I; I]` (its own key, height 1).
fn tabular(
    truth: &LinearTree,
    br: &Bracketing,
    keys: &Keys,
    w: &kcomp::dataset::TokenData,
    height_of_key: &[usize],
) -> Tabular {
    use kcomp::estimators::prequential::learners::tree::shape::Child;
    let d = truth.dim;
    let (m, k) = (br.len, br.nodes.len());
    let mut tok_id = std::collections::HashMap::new();
    let mut tok_vec: Vec<Vec<f64>> = Vec::new();
    let mut tokens = vec![0u32; w.n * m];
    let mut rule_id = std::collections::HashMap::new();
    let mut heights = vec![1usize];
    let mut new_maps: Vec<Vec<f64>> = vec![{
        let mut a = vec![0.0; 2 * d * d];
        for i in 0..d {
            a[i * d + i] = 1.0;
            a[(d + i) * d + i] = 1.0;
        }
        a
    }];
    let mut rule = vec![0u32; w.n * k];
    for r in 0..w.n {
        let row = w.row(r);
        for (i, nd) in br.nodes.iter().enumerate() {
            let old = keys.rule[r * k + i] as usize;
            let a = &truth.maps[old * 2 * d * d..(old + 1) * 2 * d * d];
            if let (Child::Leaf(pl), Child::Leaf(pr)) = (nd.left, nd.right) {
                for (side, pos) in [(0usize, pl), (1, pr)] {
                    let word = row[pos] as usize;
                    let next = tok_id.len() as u32;
                    let id = *tok_id.entry((old, side, word)).or_insert_with(|| {
                        let x = &truth.emb[word * d..(word + 1) * d];
                        tok_vec.push(
                            (0..d)
                                .map(|j| (0..d).map(|ii| x[ii] * a[(side * d + ii) * d + j]).sum())
                                .collect(),
                        );
                        next
                    });
                    tokens[r * m + pos] = id;
                }
                rule[r * k + i] = 0;
            } else {
                let next = rule_id.len() as u32 + 1;
                let id = *rule_id.entry(old).or_insert_with(|| {
                    heights.push(height_of_key[old]);
                    new_maps.push(a.to_vec());
                    next
                });
                rule[r * k + i] = id;
            }
        }
    }
    let vocab = tok_vec.len();
    let mut t = LinearTree::new(vocab, d, new_maps.len());
    t.emb = tok_vec.concat();
    t.maps = new_maps.concat();
    let w2 = kcomp::dataset::TokenData::new(w.n, m, vocab, tokens).expect("tokens below vocab");
    let mut keys2 = keys.clone();
    keys2.rule = rule;
    keys2.n_rules = t.n_rules;
    Tabular {
        tree: t,
        w: w2,
        keys: keys2,
        height_of_key: heights,
    }
}
