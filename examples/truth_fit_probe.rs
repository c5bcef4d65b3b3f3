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
//!
//! Env ALIGN=1: the shared layout started from an unshared fit (a random start; ALIGN_SEEDS=
//! a,b,.. several, ALIGN_STEPS its Gauss-Newton steps, 30) with its gauges aligned across
//! heights (`align_shared`; ALIGN_SCALE=1 or =norm: Z's least-squares or norm scale refitted),
//! then fitted. ALIGN_TRUTH=1: the unshared model is the generator's own (ALIGN_GAUGE=1: each
//! height below the root in a random gauge), the check that the alignment recovers it exactly.
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
    let untied = (keys.clone(), rule_of_key.clone(), height_of_key.clone());
    let align = std::env::var_os("ALIGN").is_some();
    if align || std::env::var_os("SHARED").is_some() {
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
    // ALIGN_SEEDS=a,b,..: the unshared fit's random starts (one pipeline each); ALIGN_STEPS:
    // its Gauss-Newton steps (30).
    let align_seeds = match env_list("ALIGN_SEEDS") {
        v if v.is_empty() => vec![100],
        v => v,
    };
    let align_steps = env_list("ALIGN_STEPS").first().copied().unwrap_or(30);
    for &align_seed in align_seeds.iter().filter(|_| align) {
        // An unshared fit from a random start, its gauges aligned across heights into the
        // shared layout (see `align_shared`), then the shared fit from there.
        let (keys_u, rok_u, hok_u) = &untied;
        let mut mu = LinearTree::new(truth.vocab, d, keys_u.n_rules);
        mu.randomize(height, z_rms, align_seed as u64);
        mu.ridge = ridge;
        let effort = GnEffort {
            steps: align_steps,
            ..effort
        };
        let clock = std::time::Instant::now();
        if std::env::var_os("ALIGN_TRUTH").is_some() {
            // The generator's parameters in the unshared layout.
            mu.emb = truth.emb.clone();
            let pb = 2 * d * d;
            for (id, gr) in rok_u.iter().enumerate() {
                mu.maps[id * pb..(id + 1) * pb].copy_from_slice(
                    &mats[gr.expect("seen")]
                        .iter()
                        .map(|&v| v as f64 * lam)
                        .collect::<Vec<_>>(),
                );
            }
            if std::env::var_os("ALIGN_GAUGE").is_some() {
                // Random gauges per (height, symbol) below the root.
                use nalgebra::DMatrix;
                use rand::SeedableRng;
                use rand_distr::{Distribution, StandardNormal};
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
                let syms = g.grammar.symbol_count();
                let gs: Vec<Vec<DMatrix<f64>>> = (0..=height)
                    .map(|h| {
                        (0..syms)
                            .map(|_| {
                                if h == height || h == 0 {
                                    DMatrix::identity(d, d)
                                } else {
                                    DMatrix::from_fn(d, d, |_, _| StandardNormal.sample(&mut rng))
                                }
                            })
                            .collect()
                    })
                    .collect();
                for (id, gr) in rok_u.iter().enumerate() {
                    let rule = g.grammar.rules[gr.expect("seen")];
                    let h = hok_u[id];
                    let a = DMatrix::from_row_slice(2 * d, d, &mu.maps[id * pb..(id + 1) * pb]);
                    let (il, ir) = if h == 1 {
                        (DMatrix::identity(d, d), DMatrix::identity(d, d))
                    } else {
                        (
                            gs[h - 1][rule.left].clone().try_inverse().unwrap(),
                            gs[h - 1][rule.right].clone().try_inverse().unwrap(),
                        )
                    };
                    let mut bd = DMatrix::zeros(2 * d, 2 * d);
                    bd.view_mut((0, 0), (d, d)).copy_from(&il);
                    bd.view_mut((d, d), (d, d)).copy_from(&ir);
                    let b = bd * a * &gs[h][rule.lhs];
                    for i in 0..2 * d {
                        for j in 0..d {
                            mu.maps[id * pb + i * d + j] = b[(i, j)];
                        }
                    }
                }
            }
        } else {
            mu.fit(&br, keys_u, &data_w, &y, &train, effort, z_rms, 1);
        }
        let rm = |m: &LinearTree, rows: &[usize]| {
            (m.sse(&br, keys_u, &data_w, &y, rows) / (rows.len() * d).max(1) as f64).sqrt()
        };
        println!(
            "unshared random start {align_seed}: train rmse {:.4}, held-out rmse {:.4} ({:.1} s)",
            rm(&mu, &train),
            rm(&mu, &test),
            clock.elapsed().as_secs_f64()
        );
        let aligned = align_shared(&mu, &g.grammar, rok_u, hok_u, &rule_of_key, height);
        let mut start = aligned;
        start.map_var = mu.map_var;
        // ALIGN_SCALE=1: Z's scale by least squares (the model is linear in the word vectors).
        let rescale = std::env::var_os("ALIGN_SCALE").is_some();
        let (mut yp, mut pp) = (0.0, 0.0);
        let mut out = vec![0.0; d];
        for &r in &train {
            start.predict(&br, &keys, &data_w, r, &mut out);
            for (j, &o) in out.iter().enumerate() {
                yp += y(r, j) * o;
                pp += o * o;
            }
        }
        let c = yp / pp.max(1e-300);
        // ALIGN_SCALE=norm: the scale that gives the predictions Z's norm instead.
        let yy: f64 = train
            .iter()
            .map(|&r| (0..d).map(|j| y(r, j).powi(2)).sum::<f64>())
            .sum();
        let c_norm = (yy / pp.max(1e-300)).sqrt();
        let by_norm = std::env::var("ALIGN_SCALE").is_ok_and(|v| v == "norm");
        println!(
            "aligned start: Z's least-squares scale {c:.4}, norm scale {c_norm:.4} (applied: {rescale})"
        );
        if rescale {
            let c = if by_norm { c_norm } else { c };
            start.emb.iter_mut().for_each(|v| *v *= c);
        }
        report("aligned shared start", start);
    }
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

/// The shared layout's parameters from an unshared fit. Height h of the unshared fit has its
/// own gauge `M[h][s]` per symbol s (its node values are the shared model's times `M`), the
/// identity at the root; a rule at heights h and h+1 gives `blockdiag(M[h-1][l], M[h-1][r])
/// A_h = T M[h][lhs]` with the shared map `T = blockdiag(M[top-1][l], M[top-1][r]) A_top`.
/// Heights top-1 and top: with `N_s = M[top-1][s]^-1 M[top-2][s]` each half of a rule reads
/// `N_s X = Y M[top-1][lhs]` (X, Y: the half's blocks at top-1 and top), linear and
/// homogeneous in (N, M[top-1]): the null vector (up to the model's own scale symmetry, top
/// maps times a, first level times a^-(top-1)). Lower heights by least squares from the top
/// down; a rule below the shared ones takes its output gauge out (`A_h M[h][lhs]^-1`).
fn align_shared(
    unshared: &LinearTree,
    grammar: &kcomp::datasets::grammar::cfg::Grammar,
    rule_of_key_u: &[Option<usize>],
    height_of_key_u: &[usize],
    rule_of_key_s: &[Option<usize>],
    top: usize,
) -> LinearTree {
    use nalgebra::DMatrix;
    let d = unshared.dim;
    let pb = 2 * d * d;
    let dd = d * d;
    let block = |id: usize, half: usize| {
        DMatrix::from_row_slice(d, d, &unshared.maps[id * pb + half * dd..][..dd])
    };
    let mut key_of = std::collections::HashMap::new();
    for (id, (gr, &h)) in rule_of_key_u.iter().zip(height_of_key_u).enumerate() {
        key_of.insert((gr.expect("seen"), h), id);
    }
    let symbols = grammar.symbol_count();
    // Rules at both top-1 and top, and the symbols they touch (numbered).
    let pairs: Vec<(usize, usize, usize)> = grammar
        .rules
        .iter()
        .enumerate()
        .filter_map(|(gr, _)| Some((gr, *key_of.get(&(gr, top - 1))?, *key_of.get(&(gr, top))?)))
        .collect();
    let mut index = vec![usize::MAX; symbols];
    let mut n_sym = 0;
    for &(gr, _, _) in &pairs {
        let r = grammar.rules[gr];
        for s in [r.left, r.right, r.lhs] {
            if index[s] == usize::MAX {
                index[s] = n_sym;
                n_sym += 1;
            }
        }
    }
    let unknowns = 2 * n_sym * dd;
    let mut ata = DMatrix::<f64>::zeros(unknowns, unknowns);
    for &(gr, kl, kt) in &pairs {
        let r = grammar.rules[gr];
        for (half, s) in [(0, r.left), (1, r.right)] {
            let (x, y) = (block(kl, half), block(kt, half));
            let (ns, mc) = (index[s] * dd, n_sym * dd + index[r.lhs] * dd);
            // Entry (i, j): sum_l N[i,l] X[l,j] - sum_l Y[i,l] M[l,j].
            for i in 0..d {
                for j in 0..d {
                    let mut row: Vec<(usize, f64)> = Vec::with_capacity(2 * d);
                    for l in 0..d {
                        row.push((ns + i * d + l, x[(l, j)]));
                        row.push((mc + l * d + j, -y[(i, l)]));
                    }
                    for &(a, va) in &row {
                        for &(b, vb) in &row {
                            ata[(a, b)] += va * vb;
                        }
                    }
                }
            }
        }
    }
    let eig = nalgebra::SymmetricEigen::new(ata);
    let (mut lo, mut second) = (0, usize::MAX);
    for i in 0..unknowns {
        if eig.eigenvalues[i] < eig.eigenvalues[lo] {
            lo = i;
        }
    }
    for i in 0..unknowns {
        if i != lo && (second == usize::MAX || eig.eigenvalues[i] < eig.eigenvalues[second]) {
            second = i;
        }
    }
    println!(
        "alignment: {} rules at both top heights, {n_sym} symbols, smallest eigenvalues {:.3e}, {:.3e} (largest {:.3e})",
        pairs.len(),
        eig.eigenvalues[lo],
        eig.eigenvalues[second],
        eig.eigenvalues.max()
    );
    let v = eig.eigenvectors.column(lo);
    let mut gauge: Vec<Vec<Option<DMatrix<f64>>>> = vec![vec![None; symbols]; top + 1];
    gauge[top] = vec![Some(DMatrix::identity(d, d)); symbols];
    let mut n_of = vec![None; symbols];
    for s in 0..symbols {
        if index[s] != usize::MAX {
            let at = |o: usize| DMatrix::from_fn(d, d, |i, j| v[o + i * d + j]);
            n_of[s] = Some(at(index[s] * dd));
            gauge[top - 1][s] = Some(at(n_sym * dd + index[s] * dd));
        }
    }
    // The shared maps, then their scale: rms 1 (the symmetry above leaves it free).
    let shared_map = |gauge: &Vec<Vec<Option<DMatrix<f64>>>>, gr: usize| {
        let r = grammar.rules[gr];
        let kt = *key_of.get(&(gr, top))?;
        let a = DMatrix::from_row_slice(2 * d, d, &unshared.maps[kt * pb..(kt + 1) * pb]);
        let (ml, mr) = (
            gauge[top - 1][r.left].clone()?,
            gauge[top - 1][r.right].clone()?,
        );
        let mut t = DMatrix::zeros(2 * d, d);
        t.view_mut((0, 0), (d, d))
            .copy_from(&(ml * a.view((0, 0), (d, d))));
        t.view_mut((d, 0), (d, d))
            .copy_from(&(mr * a.view((d, 0), (d, d))));
        Some(t)
    };
    let rms: f64 = {
        let (mut s2, mut n) = (0.0, 0.0);
        for &(gr, _, _) in &pairs {
            let t = shared_map(&gauge, gr).expect("aligned");
            s2 += t.norm_squared();
            n += t.len() as f64;
        }
        (s2 / n).sqrt()
    };
    for s in 0..symbols {
        if let Some(m) = gauge[top - 1][s].as_mut() {
            *m /= rms;
        }
        if let Some(n) = n_of[s].as_mut() {
            *n /= rms;
        }
        if let (Some(n), Some(m)) = (&n_of[s], &gauge[top - 1][s]) {
            gauge[top - 2][s] = Some(m * n);
        }
    }
    // Lower heights: M[h-1][s] X = (T M[h][lhs])_half for rules at heights h (h <= top-2).
    for h in (2..top - 1).rev() {
        let mut sxx = vec![DMatrix::<f64>::zeros(d, d); symbols];
        let mut syx = vec![DMatrix::<f64>::zeros(d, d); symbols];
        let mut seen = vec![false; symbols];
        for (gr, rule) in grammar.rules.iter().enumerate() {
            let Some(&kh) = key_of.get(&(gr, h)) else {
                continue;
            };
            let (Some(t), Some(mh)) = (shared_map(&gauge, gr), gauge[h][rule.lhs].clone()) else {
                continue;
            };
            let tm = t * mh;
            for (half, s) in [(0, rule.left), (1, rule.right)] {
                let x = block(kh, half);
                let y = tm.view((half * d, 0), (d, d)).clone_owned();
                sxx[s] += &x * x.transpose();
                syx[s] += &y * x.transpose();
                seen[s] = true;
            }
        }
        for s in 0..symbols {
            if seen[s] {
                let inv = (sxx[s].clone() + DMatrix::identity(d, d) * 1e-12)
                    .try_inverse()
                    .expect("regularised");
                gauge[h - 1][s] = Some(&syx[s] * inv);
            }
        }
    }
    let mut shared = LinearTree::new(unshared.vocab, d, rule_of_key_s.len());
    shared.emb = unshared.emb.clone();
    for (id, gr) in rule_of_key_s.iter().enumerate() {
        let gr = gr.expect("every key has a rule");
        let lhs = grammar.rules[gr].lhs;
        let a = if let Some(t) = key_of.get(&(gr, top)).and_then(|_| shared_map(&gauge, gr)) {
            t
        } else {
            let (h, src) = (1..=top)
                .rev()
                .find_map(|h| key_of.get(&(gr, h)).map(|&k| (h, k)))
                .expect("a rule at some height");
            let mut a = DMatrix::from_row_slice(2 * d, d, &unshared.maps[src * pb..(src + 1) * pb]);
            // Rules feeding unshared ones (depth >= 2's lower levels) keep their gauge.
            if let Some(m) = &gauge[h][lhs] {
                a *= m
                    .clone()
                    .try_inverse()
                    .unwrap_or_else(|| DMatrix::identity(d, d));
            }
            a
        };
        for i in 0..2 * d {
            for j in 0..d {
                shared.maps[id * pb + i * d + j] = a[(i, j)];
            }
        }
    }
    shared
}
