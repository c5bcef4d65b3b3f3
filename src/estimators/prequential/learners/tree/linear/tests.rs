//! The linear sub-model's fit checked against references.

use super::*;

impl LinearTree {
    /// The materialised-operator `J v` (downstream operators cached per row): the
    /// reference the matrix-free `jtjv` is checked against.
    fn jv_materialised(
        &self,
        br: &Bracketing,
        keys: &Keys,
        w: &TokenData,
        rows: &[usize],
        caches: &[RowCache],
        v: &[f64],
    ) -> Vec<f64> {
        let d = self.dim;
        let k = br.nodes.len();
        let ne = self.emb.len();
        let mut out = vec![0.0; rows.len() * d];
        let mut t = vec![0.0; d];
        for (ri, (&r, c)) in rows.iter().zip(caches).enumerate() {
            let dz = &mut out[ri * d..(ri + 1) * d];
            for (p, &tok) in w.row(r).iter().enumerate() {
                let de = &v[tok as usize * d..(tok as usize + 1) * d];
                let q = &c.q_leaf[p * d * d..(p + 1) * d * d];
                for (a, &dv) in de.iter().enumerate() {
                    if dv != 0.0 {
                        for (z, &qq) in dz.iter_mut().zip(&q[a * d..(a + 1) * d]) {
                            *z += dv * qq;
                        }
                    }
                }
            }
            for (i, &rule) in keys.rule[r * k..(r + 1) * k].iter().enumerate() {
                let da = &v[ne + rule as usize * 2 * d * d..][..2 * d * d];
                let x = &c.x[i * 2 * d..(i + 1) * 2 * d];
                t.iter_mut().for_each(|v| *v = 0.0);
                for (ii, &xv) in x.iter().enumerate() {
                    for (tv, &a) in t.iter_mut().zip(&da[ii * d..(ii + 1) * d]) {
                        *tv += xv * a;
                    }
                }
                let q = &c.q_node[i * d * d..(i + 1) * d * d];
                for (b, &tv) in t.iter().enumerate() {
                    for (z, &qq) in dz.iter_mut().zip(&q[b * d..(b + 1) * d]) {
                        *z += tv * qq;
                    }
                }
            }
        }
        out
    }
}

impl LinearTree {
    /// `J^T J v` one row at a time (the kernel before rows went two at a time): the reference
    /// [`LinearTree::jtjv`] must match bit for bit.
    fn jtjv_rowwise(&self, s: &StepRows, v: &[f64]) -> Vec<f64> {
        let at = self.maps_transposed();
        self.chunked_sums(s, |_, part| self.jtjv_chunk_rowwise(part, v, &at))
    }

    fn jtjv_chunk_rowwise(&self, s: &StepRows, v: &[f64], at: &[f64]) -> Vec<f64> {
        let StepRows {
            br,
            keys,
            w,
            rows,
            caches,
        } = *s;
        let d = self.dim;
        let m = br.len;
        let k = br.nodes.len();
        let ne = self.emb.len();
        let pb = 2 * d * d;
        let mut out = vec![0.0; self.n_params()];
        let mut dh = vec![0.0; (m + k) * d];
        let mut g = vec![0.0; (m + k) * d];
        let mut gi = vec![0.0; d];
        let mut gin = vec![0.0; 2 * d];
        for (&r, c) in rows.iter().zip(caches) {
            let toks = w.row(r);
            let rules = &keys.rule[r * k..(r + 1) * k];
            for (p, &tok) in toks.iter().enumerate() {
                dh[p * d..(p + 1) * d]
                    .copy_from_slice(&v[tok as usize * d..(tok as usize + 1) * d]);
            }
            for (i, nd) in br.nodes.iter().enumerate() {
                let rule = rules[i] as usize;
                let a = &self.maps[rule * pb..(rule + 1) * pb];
                let da = &v[ne + rule * pb..ne + (rule + 1) * pb];
                let x = &c.x[i * 2 * d..(i + 1) * 2 * d];
                let (head, tail) = dh.split_at_mut((m + i) * d);
                let o = &mut tail[..d];
                o.iter_mut().for_each(|v| *v = 0.0);
                for (half, s) in [(0, slot(nd.left, m)), (1, slot(nd.right, m))] {
                    for (ii, &xv) in head[s * d..(s + 1) * d].iter().enumerate() {
                        if xv != 0.0 {
                            let arow = &a[(half * d + ii) * d..(half * d + ii + 1) * d];
                            o.iter_mut().zip(arow).for_each(|(o, &av)| *o += xv * av);
                        }
                    }
                }
                for (ii, &xv) in x.iter().enumerate() {
                    if xv != 0.0 {
                        let drow = &da[ii * d..(ii + 1) * d];
                        o.iter_mut().zip(drow).for_each(|(o, &av)| *o += xv * av);
                    }
                }
            }
            // Reverse: every node has one parent, so each child's adjoint is set once.
            let root = m + k - 1;
            g[root * d..(root + 1) * d].copy_from_slice(&dh[root * d..(root + 1) * d]);
            for (i, nd) in br.nodes.iter().enumerate().rev() {
                let rule = rules[i] as usize;
                gi.copy_from_slice(&g[(m + i) * d..(m + i + 1) * d]);
                let x = &c.x[i * 2 * d..(i + 1) * 2 * d];
                let ga = &mut out[ne + rule * pb..ne + (rule + 1) * pb];
                for (ii, &xv) in x.iter().enumerate() {
                    if xv != 0.0 {
                        ga[ii * d..(ii + 1) * d]
                            .iter_mut()
                            .zip(&gi)
                            .for_each(|(o, &gv)| *o += xv * gv);
                    }
                }
                gin.iter_mut().for_each(|v| *v = 0.0);
                let t = &at[rule * pb..(rule + 1) * pb];
                for (j, &gv) in gi.iter().enumerate() {
                    if gv != 0.0 {
                        let trow = &t[j * 2 * d..(j + 1) * 2 * d];
                        gin.iter_mut().zip(trow).for_each(|(o, &tv)| *o += gv * tv);
                    }
                }
                let (l, rr) = (slot(nd.left, m), slot(nd.right, m));
                g[l * d..(l + 1) * d].copy_from_slice(&gin[..d]);
                g[rr * d..(rr + 1) * d].copy_from_slice(&gin[d..]);
            }
            for (p, &tok) in toks.iter().enumerate() {
                out[tok as usize * d..(tok as usize + 1) * d]
                    .iter_mut()
                    .zip(&g[p * d..(p + 1) * d])
                    .for_each(|(o, &gv)| *o += gv);
            }
        }
        out
    }
}

/// Runs `f` on the Gauss-Newton step rows of `rows` under `m` (every row's cache: node inputs
/// and downstream operators).
fn with_step<R>(
    m: &LinearTree,
    br: &Bracketing,
    keys: &Keys,
    w: &TokenData,
    rows: &[usize],
    f: impl FnOnce(&StepRows) -> R,
) -> R {
    let mut pred = vec![0.0; m.dim];
    let caches: Vec<RowCache> = rows
        .iter()
        .map(|&r| {
            let mut c = RowCache::default();
            m.cache_into(br, keys, w, r, &mut pred, &mut c, &mut Vec::new());
            c
        })
        .collect();
    f(&StepRows {
        br,
        keys,
        w,
        rows,
        caches: &caches,
    })
}

/// `n` rows of `len` tokens over `vocab`, token `i` = (7 i + i / `stride`) mod `vocab`.
fn token_rows(n: usize, len: usize, vocab: usize, stride: usize) -> TokenData {
    let tokens: Vec<u32> = (0..n * len)
        .map(|i| ((i * 7 + i / stride) % vocab) as u32)
        .collect();
    TokenData::new(n, len, vocab, tokens).unwrap()
}

/// Keys naming a rule per node (row-major), no roles.
fn rule_keys(rule: impl Iterator<Item = u32>, n_rules: usize) -> Keys {
    Keys {
        rule: rule.collect(),
        n_rules,
        role: vec![],
        n_roles: 0,
        depth: 0,
    }
}

/// `n` rows of 4 tokens, rules alternating over the nodes, and Z (noiseless) from a random
/// `LinearTree` of `n_rules` rules (seed 5).
fn planted(
    vocab: usize,
    dim: usize,
    n_rules: usize,
    n: usize,
) -> (Bracketing, Keys, TokenData, Vec<f64>) {
    let len = 4;
    let br = Bracketing::new(len);
    let k = br.nodes.len();
    let w = token_rows(n, len, vocab, 5);
    let keys = rule_keys((0..n * k).map(|i| (i % n_rules) as u32), n_rules);
    let mut truth = LinearTree::new(vocab, dim, n_rules);
    truth.randomize(2, 1.0, 5);
    let mut z = vec![0.0; n * dim];
    for r in 0..n {
        truth.predict(&br, &keys, &w, r, &mut z[r * dim..(r + 1) * dim]);
    }
    (br, keys, w, z)
}

#[test]
fn matrix_free_jtjv_is_the_materialised_jt_of_jv() {
    let (vocab, dim, len, n) = (6, 3, 5, 7);
    let br = Bracketing::new(len);
    let k = br.nodes.len();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let tokens: Vec<u32> = (0..n * len).map(|i| ((i * 7 + 3) % vocab) as u32).collect();
    let w = TokenData::new(n, len, vocab, tokens).unwrap();
    let n_rules = 3;
    let keys = rule_keys((0..n * k).map(|i| ((i * 5 + 1) % n_rules) as u32), n_rules);
    let mut m = LinearTree::new(vocab, dim, n_rules);
    m.randomize(2, 1.0, 1);
    let rows: Vec<usize> = (0..n).collect();
    let v: Vec<f64> = (0..m.n_params())
        .map(|_| StandardNormal.sample(&mut rng))
        .collect();
    let (fast, slow) = with_step(&m, &br, &keys, &w, &rows, |step| {
        let jv = m.jv_materialised(&br, &keys, &w, &rows, step.caches, &v);
        (m.jtjv(step, &v), m.jt(step, &jv))
    });
    let scale = slow.iter().map(|x| x.abs()).fold(0.0, f64::max);
    assert!(scale > 0.1);
    for (a, b) in fast.iter().zip(&slow) {
        assert!((a - b).abs() <= 1e-12 * scale, "{a} vs {b}");
    }
}

/// The row-chunked parallel sums (`J^T J v`, `J^T u`, the squared error) and a fit with random
/// starts side by side give the same bits on one thread and on two, over several chunks.
#[test]
fn parallel_sums_and_fit_do_not_depend_on_the_thread_count() {
    let (vocab, dim, n_rules, n) = (6, 3, 2, 3 * ROW_CHUNK + 17);
    let (br, keys, w, z) = planted(vocab, dim, n_rules, n);
    let y = |r: usize, j: usize| z[r * dim + j] + 0.01 * (((r * 31 + j * 17) % 13) as f64 - 6.0);
    let rows: Vec<usize> = (0..n).collect();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut m = LinearTree::new(vocab, dim, n_rules);
            m.randomize(2, 1.0, 1);
            let v: Vec<f64> = (0..m.n_params()).map(|i| (i as f64 * 0.37).sin()).collect();
            let u: Vec<f64> = (0..n * dim).map(|i| (i as f64 * 0.11).cos()).collect();
            let (jtjv, jt) = with_step(&m, &br, &keys, &w, &rows, |step| {
                (m.jtjv(step, &v), m.jt(step, &u))
            });
            let effort = GnEffort {
                steps: 5,
                cg: 20,
                restarts: 2,
            };
            let sse = m.fit(&br, &keys, &w, &y, &rows, effort, 1.0, 9);
            // Each start recorded (two random, then the best refined, which is the fit's).
            assert_eq!(m.start_outcomes.len(), 3);
            assert_eq!(m.start_outcomes[2].0.to_bits(), sse.to_bits());
            assert!(m.start_outcomes.iter().all(|&(s, _)| s >= sse));
            let steps: usize = m.start_outcomes.iter().map(|&(_, k)| k).sum();
            assert_eq!(steps, m.steps_taken);
            (jtjv, jt, sse, m.emb, m.maps)
        })
    };
    let (one, two) = (run(1), run(2));
    assert!(one.2.is_finite());
    assert_eq!(one.0, two.0);
    assert_eq!(one.1, two.1);
    assert_eq!(one.2.to_bits(), two.2.to_bits());
    assert_eq!(one.3, two.3);
    assert_eq!(one.4, two.4);
}

/// `J^T J v` compiled for the dimension (and with AVX2 where the CPU has it) is the portable
/// path's (SSE2, dimension read at run time) bit for bit: dimensions compiled for (3, 10) and
/// one that is not (7).
#[test]
fn compiled_jtjv_paths_give_the_portable_bits() {
    for dim in [3, 7, 10] {
        let (vocab, len, n) = (6, 8, ROW_CHUNK + 9);
        let br = Bracketing::new(len);
        let k = br.nodes.len();
        let w = token_rows(n, len, vocab, 3);
        let n_rules = 3;
        let keys = rule_keys((0..n * k).map(|i| ((i * 5 + 1) % n_rules) as u32), n_rules);
        let mut m = LinearTree::new(vocab, dim, n_rules);
        m.randomize(3, 1.0, 2);
        let rows: Vec<usize> = (0..n).collect();
        let v: Vec<f64> = (0..m.n_params()).map(|i| (i as f64 * 0.29).sin()).collect();
        let (fast, portable) = with_step(&m, &br, &keys, &w, &rows, |step| {
            (m.jtjv(step, &v), m.jtjv_portable(step, &v))
        });
        assert!(fast.iter().any(|&x| x != 0.0));
        let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&fast), bits(&portable), "dim {dim}");
    }
}

/// Rows two at a time give the row-by-row kernel's bits on every path (compiled for D = 3, 10;
/// run-time D = 7; portable), with an odd row count (a last row alone) and rows sharing rules.
#[test]
fn paired_jtjv_gives_the_row_by_row_bits() {
    for dim in [3, 7, 10] {
        let (vocab, len, n) = (6, 8, 2 * ROW_CHUNK + 7);
        let br = Bracketing::new(len);
        let k = br.nodes.len();
        let w = token_rows(n, len, vocab, 3);
        let n_rules = 3;
        let keys = rule_keys((0..n * k).map(|i| ((i * 5 + 2) % n_rules) as u32), n_rules);
        let mut m = LinearTree::new(vocab, dim, n_rules);
        m.randomize(3, 1.0, 4);
        let rows: Vec<usize> = (0..n).collect();
        let v: Vec<f64> = (0..m.n_params()).map(|i| (i as f64 * 0.31).cos()).collect();
        let (paired, portable, rowwise) = with_step(&m, &br, &keys, &w, &rows, |step| {
            (
                m.jtjv(step, &v),
                m.jtjv_portable(step, &v),
                m.jtjv_rowwise(step, &v),
            )
        });
        assert!(rowwise.iter().any(|&x| x != 0.0));
        let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&paired), bits(&rowwise), "dim {dim}");
        assert_eq!(bits(&portable), bits(&rowwise), "dim {dim}");
    }
}

/// The planted 6-word, D = 3, two-rule problem (120 rows, a small deterministic noise) fitted
/// from random start 1 with `effort`, after `setup` sets the fit's switches. Returns the
/// training squared error and the fitted model.
fn planted_fit(effort: GnEffort, setup: impl Fn(&mut LinearTree)) -> (f64, LinearTree) {
    let (vocab, dim, n_rules, n) = (6, 3, 2, 120);
    let (br, keys, w, z) = planted(vocab, dim, n_rules, n);
    let y = |r: usize, j: usize| z[r * dim + j] + 1e-3 * (((r * 31 + j * 17) % 13) as f64 - 6.0);
    let rows: Vec<usize> = (0..n).collect();
    let mut m = LinearTree::new(vocab, dim, n_rules);
    m.randomize(2, 1.0, 1);
    setup(&mut m);
    let sse = m.fit(&br, &keys, &w, &y, &rows, effort, 1.0, 9);
    (sse, m)
}

/// A fit still converging fast when its planned steps run out goes on (up to `extend` more
/// steps), stops once a few steps gain little, and reports the steps it took.
#[test]
fn a_fit_converging_fast_goes_past_its_planned_steps() {
    let effort = GnEffort {
        steps: 4,
        cg: 20,
        restarts: 0,
    };
    let fit = |extend: usize| {
        let (sse, m) = planted_fit(effort, |m| m.extend = extend);
        (sse, m.steps_taken)
    };
    let (planned, planned_steps) = fit(0);
    let (extended, extended_steps) = fit(200);
    assert_eq!(planned_steps, 4);
    assert!(extended_steps > 4, "{extended_steps} steps");
    // It stops on its own near the noise (measured: 9 steps, 60.8 -> 0.005; the noise's
    // squared error is about 0.006), long before the 200 allowed.
    assert!(extended_steps < 30, "{extended_steps} steps");
    assert!(extended < 1e-3 * planned, "{extended} vs {planned}");
    // Random starts: the steps of every start (no extension: 3 x 4).
    let starts = GnEffort {
        restarts: 2,
        ..effort
    };
    assert_eq!(planted_fit(starts, |_| {}).1.steps_taken, 12);
}

/// With `truncate_cg` the conjugate gradients stop once the quadratic model stops improving:
/// fewer iterations to the same fit (at the noise), and the iterations are counted.
#[test]
fn truncated_conjugate_gradients_reach_the_fit_in_fewer_iterations() {
    let effort = GnEffort {
        steps: 30,
        cg: 100,
        restarts: 0,
    };
    let fit = |truncate: bool| {
        let (sse, m) = planted_fit(effort, |m| m.truncate_cg = truncate);
        (sse, m.cg_taken, m.steps_taken)
    };
    let (full, full_cg, full_steps) = fit(false);
    let (cut, cut_cg, cut_steps) = fit(true);
    // Measured: 12 steps, 1,065 iterations (rejected solves included) and 9 steps, 204
    // iterations, both at a squared error of 0.0050115 (the noise's is about 0.005).
    assert!(full < 0.0051 && cut < 0.0051, "{full} {cut}");
    assert!((full - cut).abs() < 1e-6, "{full} {cut}");
    assert!(cut_steps <= full_steps, "{cut_steps} vs {full_steps} steps");
    assert!(3 * cut_cg < full_cg, "{cut_cg} vs {full_cg} iterations");
    assert!(full_cg > full_steps && cut_cg > cut_steps);
}
