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

#[test]
fn matrix_free_jtjv_is_the_materialised_jt_of_jv() {
    let (vocab, dim, len, n) = (6, 3, 5, 7);
    let br = Bracketing::new(len);
    let k = br.nodes.len();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let tokens: Vec<u32> = (0..n * len).map(|i| ((i * 7 + 3) % vocab) as u32).collect();
    let w = TokenData::new(n, len, vocab, tokens).unwrap();
    let n_rules = 3;
    let keys = Keys {
        rule: (0..n * k).map(|i| ((i * 5 + 1) % n_rules) as u32).collect(),
        n_rules,
        role: vec![],
        n_roles: 0,
        depth: 0,
    };
    let mut m = LinearTree::new(vocab, dim, n_rules);
    m.randomize(2, 1.0, 1);
    let rows: Vec<usize> = (0..n).collect();
    let mut pred = vec![0.0; dim];
    let caches: Vec<RowCache> = rows
        .iter()
        .map(|&r| m.cache(&br, &keys, &w, r, &mut pred))
        .collect();
    let v: Vec<f64> = (0..m.n_params())
        .map(|_| StandardNormal.sample(&mut rng))
        .collect();
    let fast = m.jtjv(&br, &keys, &w, &rows, &caches, &v);
    let jv = m.jv_materialised(&br, &keys, &w, &rows, &caches, &v);
    let slow = m.jt(&br, &keys, &w, &rows, &caches, &jv);
    let scale = slow.iter().map(|x| x.abs()).fold(0.0, f64::max);
    assert!(scale > 0.1);
    for (a, b) in fast.iter().zip(&slow) {
        assert!((a - b).abs() <= 1e-12 * scale, "{a} vs {b}");
    }
}
