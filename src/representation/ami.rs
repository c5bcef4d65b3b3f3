//! How well learned sentences recover the true ones: adjusted mutual information (AMI) per
//! position after the best matching of learned to true positions.
//!
//! AMI(U, V) = (I(U; V) - E[I]) / (mean(H(U), H(V)) - E[I]) with the expected mutual
//! information under the hypergeometric model of random labelings with the same cluster
//! sizes (Vinh, Epps, Bailey, JMLR 2010) and the arithmetic mean, as scikit-learn's
//! `adjusted_mutual_info_score` (checked against it on golden vectors in
//! tests/representation.rs). Positions are matched by the Hungarian algorithm
//! (`pathfinding::kuhn_munkres`) on the matrix of AMIs.

use pathfinding::kuhn_munkres::kuhn_munkres;
use pathfinding::matrix::Matrix;
use serde::Serialize;
use statrs::function::gamma::ln_gamma;

use crate::dataset::TokenData;
use crate::error::{KcompError, Result};

/// AMI of two labelings of the same items (labels are any `u32`), in [-1, 1] (1 = the same
/// partition). Two one-cluster labelings give 1, as scikit-learn.
pub fn adjusted_mutual_info(a: &[u32], b: &[u32]) -> f64 {
    assert_eq!(a.len(), b.len(), "labelings of different lengths");
    let n = a.len();
    let (ka, ia) = relabel(a);
    let (kb, ib) = relabel(b);
    if n == 0 || (ka == 1 && kb == 1) || (ka == n && kb == n) {
        return 1.0;
    }
    let mut table = vec![0usize; ka * kb];
    for (&x, &y) in ia.iter().zip(&ib) {
        table[x * kb + y] += 1;
    }
    let rows: Vec<usize> = (0..ka)
        .map(|i| table[i * kb..(i + 1) * kb].iter().sum())
        .collect();
    let cols: Vec<usize> = (0..kb)
        .map(|j| (0..ka).map(|i| table[i * kb + j]).sum())
        .collect();
    let nf = n as f64;
    let entropy = |c: &[usize]| -> f64 {
        c.iter()
            .filter(|&&x| x > 0)
            .map(|&x| {
                let p = x as f64 / nf;
                -p * p.ln()
            })
            .sum()
    };
    let (ha, hb) = (entropy(&rows), entropy(&cols));
    let mut mi = 0.0;
    for i in 0..ka {
        for j in 0..kb {
            let c = table[i * kb + j];
            if c > 0 {
                let c = c as f64;
                mi += c / nf * (nf * c / (rows[i] as f64 * cols[j] as f64)).ln();
            }
        }
    }
    let emi = expected_mutual_info(&rows, &cols, n);
    let normaliser = 0.5 * (ha + hb);
    let mut denominator = normaliser - emi;
    // As scikit-learn: keep the sign, avoid a division by zero.
    denominator = if denominator < 0.0 {
        denominator.min(-f64::EPSILON)
    } else {
        denominator.max(f64::EPSILON)
    };
    (mi - emi) / denominator
}

/// Dense labels 0..k in order of first appearance, and k.
fn relabel(x: &[u32]) -> (usize, Vec<usize>) {
    let mut map = std::collections::HashMap::new();
    let out = x
        .iter()
        .map(|v| {
            let k = map.len();
            *map.entry(*v).or_insert(k)
        })
        .collect();
    (map.len(), out)
}

/// E[I(U; V)] in nats for random labelings with row sizes `a` and column sizes `b` of `n`
/// items (the hypergeometric sum of Vinh et al.).
fn expected_mutual_info(a: &[usize], b: &[usize], n: usize) -> f64 {
    let nf = n as f64;
    let lg = |x: usize| ln_gamma(x as f64 + 1.0);
    let lg_n = lg(n);
    let mut emi = 0.0;
    for &ai in a {
        for &bj in b {
            let lo = (ai + bj).saturating_sub(n).max(1);
            let hi = ai.min(bj);
            let fixed = lg(ai) + lg(bj) + lg(n - ai) + lg(n - bj) - lg_n;
            for nij in lo..=hi {
                let x = nij as f64;
                let term = x / nf * (nf * x / (ai as f64 * bj as f64)).ln();
                let log_p = fixed - lg(nij) - lg(ai - nij) - lg(bj - nij) - lg(n + nij - ai - bj);
                emi += term * log_p.exp();
            }
        }
    }
    emi
}

/// The recovery of true sentences by learned ones.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Recovery {
    /// Per true position: the AMI with the learned position matched to it (0 when there are
    /// fewer learned positions than true ones and it is unmatched).
    pub ami_per_position: Vec<f64>,
    /// Per true position: the matched learned position, if any.
    pub matched: Vec<Option<usize>>,
    /// Mean over the true positions.
    pub mean_ami: f64,
}

/// AMI per true position after the best one-to-one matching of positions (maximum total AMI).
pub fn recovery(learned: &TokenData, truth: &TokenData) -> Result<Recovery> {
    if learned.n != truth.n {
        return Err(KcompError::param(
            "w",
            format!("learned W has {} rows, true W has {}", learned.n, truth.n),
        ));
    }
    let column = |w: &TokenData, m: usize| -> Vec<u32> { (0..w.n).map(|i| w.row(i)[m]).collect() };
    let (ml, mt) = (learned.n_words, truth.n_words);
    let lc: Vec<Vec<u32>> = (0..ml).map(|m| column(learned, m)).collect();
    let tc: Vec<Vec<u32>> = (0..mt).map(|m| column(truth, m)).collect();
    let ami: Vec<f64> = {
        use rayon::prelude::*;
        (0..mt * ml)
            .into_par_iter()
            .map(|k| adjusted_mutual_info(&tc[k / ml], &lc[k % ml]))
            .collect()
    };
    if ml == 0 || mt == 0 {
        return Ok(Recovery {
            ami_per_position: vec![0.0; mt],
            matched: vec![None; mt],
            mean_ami: 0.0,
        });
    }
    // The assignment runs on integers (it needs a total order): AMI in units of 1e-9.
    let scaled = |x: f64| (x.clamp(-1.0, 1.0) * 1e9).round() as i64;
    let mut matched = vec![None; mt];
    if mt <= ml {
        let m = Matrix::from_vec(mt, ml, ami.iter().map(|&x| scaled(x)).collect())
            .map_err(|e| KcompError::Other(format!("assignment matrix: {e}")))?;
        let (_, assign) = kuhn_munkres(&m);
        for (t, &l) in assign.iter().enumerate() {
            matched[t] = Some(l);
        }
    } else {
        let t_major: Vec<i64> = (0..ml * mt)
            .map(|k| scaled(ami[(k % mt) * ml + k / mt]))
            .collect();
        let m = Matrix::from_vec(ml, mt, t_major)
            .map_err(|e| KcompError::Other(format!("assignment matrix: {e}")))?;
        let (_, assign) = kuhn_munkres(&m);
        for (l, &t) in assign.iter().enumerate() {
            matched[t] = Some(l);
        }
    }
    let per: Vec<f64> = (0..mt)
        .map(|t| matched[t].map_or(0.0, |l| ami[t * ml + l]))
        .collect();
    let mean = per.iter().sum::<f64>() / mt as f64;
    Ok(Recovery {
        ami_per_position: per,
        matched,
        mean_ami: mean,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_partitions_score_one_whatever_the_names() {
        let a = [0, 0, 1, 1, 2, 2, 2];
        let b = [5, 5, 9, 9, 1, 1, 1];
        assert!((adjusted_mutual_info(&a, &b) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn positions_are_matched_by_permutation() {
        let t = TokenData::new(6, 2, 3, vec![0, 1, 1, 2, 2, 0, 0, 0, 1, 1, 2, 2]).unwrap();
        // Learned: the two columns swapped and renamed.
        let mut l = Vec::new();
        for i in 0..6 {
            let r = t.row(i);
            l.push((r[1] + 1) % 3);
            l.push(2 - r[0]);
        }
        let l = TokenData::new(6, 2, 3, l).unwrap();
        let r = recovery(&l, &t).unwrap();
        assert_eq!(r.matched, vec![Some(1), Some(0)]);
        assert!((r.mean_ami - 1.0).abs() < 1e-12);
    }
}
