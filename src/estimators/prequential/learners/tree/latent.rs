//! Latent node categories for linear rule maps.
//!
//! Under a head-driven grammar the rule at a node above the first level depends on its
//! children's categories, and a node's category is that of its head (right) child, down to a
//! node over two words, whose category is a function of its pair of word classes. The learner
//! does not know that function: it assigns every pair of word classes one of at most `c` latent
//! categories. Rule keys: a node over two words by its pair of word classes (its own map, as
//! every rule of the first level), a node above by (height, category of the left child,
//! category of the right child); a leaf child (sentences whose length is not a power of two)
//! has its word class as a category of its own.
//!
//! **Finding the assignment** ([`LatentKeys::init_by_covariance`]): no map is fitted. The rows
//! are grouped by the pair of word classes heading each child of the root, and each group's
//! covariance of Z (whitened by the covariance over all rows) is the pair's feature. The
//! category of the head of the root's child picks the root's rule and every rule on that
//! child's head path, so it shapes most of Z's covariance; the pair's own first-level map only
//! moves its two leaves' share (about 2/M of it). Pairs of one category therefore have nearly
//! equal features and pairs of different categories do not: grouping the features (least
//! within-group squared distance) recovers the generator's non-terminals of linear grammars of
//! widths 2-4 from N = 500-1,000 rows (`examples/latent_probe.rs`), and the count of
//! categories is the one whose grouping removes the largest share (at least
//! [`MIN_COST_DROP`]) of the cost left by one fewer.
//!
//! Why not search the assignment with the maps: maps fitted to a wrong assignment (random
//! start) are a compromise that does not say which move repairs it, so hard EM (every pair
//! moved to the category that lowers the training error given the maps) never moved from its
//! random start; a greedy search with a short refit inside every move does walk towards the
//! generator's categories, but at ~60 s per move at N = 2,000 (measured; [`LatentKeys::sweep`]
//! is kept for such experiments).

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::shape::{Bracketing, Child, Keys};
use crate::dataset::TokenData;

/// Least share of the within-group covariance cost a further category must remove to be used.
const MIN_COST_DROP: f64 = 0.35;

/// The head of every node of every row, and the key layout.
#[derive(Debug, Clone)]
pub struct LatentKeys {
    /// Word classes learned from W.
    n_wc: usize,
    /// Latent categories the key layout holds.
    pub c: usize,
    /// Categories in use (`init_by_covariance` chooses it, at most `c`). The key layout holds
    /// these only, so a layout with one category in use is the one-category learner's, slot for
    /// slot (its fits, random starts included, are the same).
    pub active: usize,
    /// Some node above the first level has a leaf child (a category per word class then).
    leaf_child: bool,
    /// Key of a first-level node per pair of word classes (`u32::MAX`: never seen).
    level0: Vec<u32>,
    n_level0: usize,
    max_height: usize,
    /// Per row and node: `(left head, right head)` for nodes above the first level (a head is
    /// a pair of word classes `< n_wc^2`, or `n_wc^2 + word class` for a leaf), the pair of
    /// word classes for first-level nodes (`u32::MAX` as right head).
    heads: Vec<(u32, u32)>,
    /// Pairs of word classes that head some child of a node above the first level.
    pub movable: Vec<usize>,
    /// Category of every pair of word classes.
    pub assign: Vec<usize>,
}

impl LatentKeys {
    pub fn new(
        br: &Bracketing,
        word_class: &[usize],
        n_wc: usize,
        c: usize,
        w: &TokenData,
    ) -> Self {
        let (m, k) = (br.len, br.nodes.len());
        let pairs = n_wc * n_wc;
        let mut level0 = vec![u32::MAX; pairs];
        let mut n_level0 = 0u32;
        let mut heads = Vec::with_capacity(w.n * k);
        let mut head = vec![0u32; m + k];
        let mut leaf_child = false;
        let mut movable = vec![false; pairs];
        for r in 0..w.n {
            let row = w.row(r);
            for (p, &t) in row.iter().enumerate() {
                head[p] = (pairs + word_class[t as usize]) as u32;
            }
            let slot = |c: Child| match c {
                Child::Leaf(p) => p,
                Child::Node(j) => m + j,
            };
            for (i, nd) in br.nodes.iter().enumerate() {
                if nd.height == 1 {
                    let (Child::Leaf(a), Child::Leaf(b)) = (nd.left, nd.right) else {
                        unreachable!("a node of height 1 has two leaves")
                    };
                    let pc = word_class[row[a] as usize] * n_wc + word_class[row[b] as usize];
                    if level0[pc] == u32::MAX {
                        level0[pc] = n_level0;
                        n_level0 += 1;
                    }
                    head[m + i] = pc as u32;
                    heads.push((pc as u32, u32::MAX));
                } else {
                    let (l, rr) = (head[slot(nd.left)], head[slot(nd.right)]);
                    for h in [l, rr] {
                        if (h as usize) < pairs {
                            movable[h as usize] = true;
                        } else {
                            leaf_child = true;
                        }
                    }
                    head[m + i] = rr;
                    heads.push((l, rr));
                }
            }
        }
        LatentKeys {
            n_wc,
            c,
            active: c,
            leaf_child,
            level0,
            n_level0: n_level0 as usize,
            max_height: br.nodes.last().map_or(1, |n| n.height),
            heads,
            movable: (0..pairs).filter(|&p| movable[p]).collect(),
            assign: vec![0; pairs],
        }
    }

    /// Categories a child can have: the `active` latent ones, then one per word class when some
    /// node above the first level has a leaf child.
    fn n_cat(&self) -> usize {
        self.active + if self.leaf_child { self.n_wc } else { 0 }
    }

    /// Rule slots (every first-level pair seen, every (height, category, category) above).
    pub fn n_rules(&self) -> usize {
        self.n_level0 + (self.max_height - 1) * self.n_cat() * self.n_cat()
    }

    /// The rule slot of a node of `height >= 2` whose children have categories `a`, `b`.
    pub fn rule_slot(&self, height: usize, a: usize, b: usize) -> usize {
        let n_cat = self.n_cat();
        self.n_level0 + ((height - 2) * n_cat + a) * n_cat + b
    }

    /// Rule maps (`block` numbers each, slot-major) of the layout `old` carried over to this
    /// layout: first-level maps in place; a rule above, keyed by (height, a, b), starts from the
    /// old rule of the categories that most of the pairs now in `a` and `b` had (a leaf's
    /// category is its word class in both).
    pub fn carry_maps(&self, old: &LatentKeys, maps: &[f64], block: usize) -> Vec<f64> {
        let mut out = vec![0.0; self.n_rules() * block];
        let first = self.n_level0 * block;
        out[..first].copy_from_slice(&maps[..first]);
        let mut votes = vec![vec![0usize; old.active]; self.active];
        for &q in &self.movable {
            votes[self.assign[q]][old.assign[q]] += 1;
        }
        let from = |a: usize| -> usize {
            if a >= self.active {
                return old.active + a - self.active;
            }
            (0..old.active)
                .max_by_key(|&k| (votes[a][k], std::cmp::Reverse(k)))
                .unwrap_or(0)
        };
        for h in 2..=self.max_height {
            for a in 0..self.n_cat() {
                for b in 0..self.n_cat() {
                    let (to, src) = (self.rule_slot(h, a, b), old.rule_slot(h, from(a), from(b)));
                    out[to * block..(to + 1) * block]
                        .copy_from_slice(&maps[src * block..(src + 1) * block]);
                }
            }
        }
        out
    }

    /// Highest node.
    pub fn max_height(&self) -> usize {
        self.max_height
    }

    /// Rules a fit can determine: those of the first level seen, and the latent ones above.
    pub fn n_rules_used(&self) -> usize {
        self.n_rules_with(self.active)
    }

    /// [`Self::n_rules_used`] with `categories` latent categories in use.
    fn n_rules_with(&self, categories: usize) -> usize {
        self.n_level0 + (self.max_height - 1) * categories * categories
    }

    /// Rows a linear fit needs to determine its parameters (word vectors and the maps of the
    /// rules used with `categories` categories), per dimension of Z of size `dim`.
    pub fn rows_needed(&self, vocab: usize, dim: usize, categories: usize) -> usize {
        (vocab * dim + self.n_rules_with(categories) * 2 * dim * dim).div_ceil(dim)
    }

    fn cat(&self, head: u32) -> usize {
        let pairs = self.n_wc * self.n_wc;
        if (head as usize) < pairs {
            self.assign[head as usize]
        } else {
            self.active + head as usize - pairs
        }
    }

    /// The rule keys of every row under the current assignment.
    pub fn keys(&self, br: &Bracketing, n_rows: usize) -> Keys {
        let k = br.nodes.len();
        let mut rule = Vec::with_capacity(n_rows * k);
        for r in 0..n_rows {
            for (i, nd) in br.nodes.iter().enumerate() {
                let (l, rr) = self.heads[r * k + i];
                rule.push(if nd.height == 1 {
                    self.level0[l as usize]
                } else {
                    let (a, b) = (self.cat(l), self.cat(rr));
                    self.rule_slot(nd.height, a, b) as u32
                });
            }
        }
        Keys {
            rule,
            n_rules: self.n_rules(),
            role: Vec::new(),
            n_roles: 0,
            depth: 0,
        }
    }

    /// A random assignment of the movable pairs to the `active` categories, every category used
    /// when there are pairs enough.
    pub fn randomize(&mut self, seed: u64) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let n = self.movable.len();
        let mut cats: Vec<usize> = (0..n).map(|i| i % self.active).collect();
        for i in (1..n).rev() {
            let j = rng.random_range(0..=i);
            cats.swap(i, j);
        }
        for (&p, &k) in self.movable.iter().zip(&cats) {
            self.assign[p] = k;
        }
    }

    /// One sweep of hard assignment moves: every movable pair to the category with the least
    /// `loss` (others held). Returns the keys of the final assignment, its loss, and whether
    /// anything moved.
    pub fn sweep(
        &mut self,
        br: &Bracketing,
        n_rows: usize,
        loss: &dyn Fn(&Keys) -> f64,
    ) -> (Keys, f64, bool) {
        let mut keys = self.keys(br, n_rows);
        let mut best = loss(&keys);
        let mut moved = false;
        if self.active < 2 {
            return (keys, best, false);
        }
        for pi in 0..self.movable.len() {
            let p = self.movable[pi];
            let was = self.assign[p];
            let mut best_k = was;
            for k in 0..self.active {
                if k == was {
                    continue;
                }
                self.assign[p] = k;
                let trial = self.keys(br, n_rows);
                let l = loss(&trial);
                if l < best * (1.0 - 1e-9) {
                    best = l;
                    best_k = k;
                    keys = trial;
                }
            }
            self.assign[p] = best_k;
            if best_k != was {
                moved = true;
            }
        }
        (keys, best, moved)
    }

    /// Initial assignment from the rows sent, without fitting any map: pairs of word classes
    /// that head the same child of the root in rows whose Z has the same (whitened) covariance
    /// share a category. Under a head-driven grammar the category of the root's child's head
    /// picks the root's rule and every rule on that child's head path, so it shapes most of
    /// Z's covariance; the pair's own first-level map moves only its two leaves' part. The
    /// pairs are grouped into `c` categories by the least within-group sum of squared
    /// covariance distances (single-pair moves from several seeded starts), renamed to agree
    /// most with the current assignment. Returns whether the assignment changed.
    pub fn init_by_covariance(
        &mut self,
        br: &Bracketing,
        rows: &[usize],
        y: &super::linear::Target<'_>,
        dim: usize,
        seed: u64,
    ) -> bool {
        let k = br.nodes.len();
        let d = dim;
        let pairs = self.n_wc * self.n_wc;
        if self.c < 2 || self.movable.len() < self.c || rows.len() < 4 * d {
            return false;
        }
        // Whitening: Cholesky of the overall covariance.
        let n = rows.len() as f64;
        let mut mean = vec![0.0; d];
        for &r in rows {
            for (j, m) in mean.iter_mut().enumerate() {
                *m += y(r, j) / n;
            }
        }
        let mut cov = nalgebra::DMatrix::<f64>::zeros(d, d);
        for &r in rows {
            let v = nalgebra::DVector::from_iterator(d, (0..d).map(|j| y(r, j) - mean[j]));
            cov += &v * v.transpose() / n;
        }
        for j in 0..d {
            cov[(j, j)] += 1e-9 * (cov.trace() / d as f64).max(1e-300);
        }
        let Some(chol) = cov.cholesky() else {
            return false;
        };
        let l = chol.l();
        // Per side of the root (left, right child) and pair: count, sum, sum of outer products.
        let stride = d + d * d;
        let mut acc = vec![0.0; 2 * pairs * stride];
        let mut count = vec![0usize; 2 * pairs];
        for &r in rows {
            let zc = nalgebra::DVector::from_iterator(d, (0..d).map(|j| y(r, j) - mean[j]));
            let Some(u) = l.solve_lower_triangular(&zc) else {
                return false;
            };
            let (hl, hr) = self.heads[r * k + k - 1];
            for (side, h) in [(0usize, hl), (1, hr)] {
                if (h as usize) >= pairs {
                    continue;
                }
                let slot = side * pairs + h as usize;
                count[slot] += 1;
                let a = &mut acc[slot * stride..(slot + 1) * stride];
                for i in 0..d {
                    a[i] += u[i];
                    for j in 0..d {
                        a[d + i * d + j] += u[i] * u[j];
                    }
                }
            }
        }
        // Covariance feature of every (side, movable pair) with rows enough.
        // (2D rows gave a spurious grouping of a width-1 grammar at N = 210.)
        let min_rows = 5 * d;
        let feature = |slot: usize| -> Option<Vec<f64>> {
            let c = count[slot];
            if c < min_rows {
                return None;
            }
            let a = &acc[slot * stride..(slot + 1) * stride];
            let cf = c as f64;
            let mut f = vec![0.0; d * d];
            for i in 0..d {
                for j in 0..d {
                    f[i * d + j] = a[d + i * d + j] / cf - a[i] / cf * a[j] / cf;
                }
            }
            Some(f)
        };
        let feats: Vec<[Option<Vec<f64>>; 2]> = self
            .movable
            .iter()
            .map(|&q| [feature(q), feature(pairs + q)])
            .collect();
        // Every pair needs its covariance on some side: too few rows to group them yet.
        if feats.iter().any(|f| f.iter().all(Option::is_none)) {
            if std::env::var_os("KCOMP_LATENT_TRACE").is_some() {
                let short: Vec<String> = self
                    .movable
                    .iter()
                    .filter(|&&q| count[q] < min_rows && count[pairs + q] < min_rows)
                    .map(|&q| format!("{}/{}", count[q], count[pairs + q]))
                    .collect();
                eprintln!(
                    "latent: rows {} refused, {} of {} pairs short: {}",
                    rows.len(),
                    short.len(),
                    self.movable.len(),
                    short.join(" ")
                );
            }
            return false;
        }
        let np = self.movable.len();
        let mut dist = vec![0.0; np * np];
        for a in 0..np {
            for b in 0..np {
                let mut s = 0.0;
                let mut used = 0;
                for (fa, fb) in feats[a].iter().zip(&feats[b]) {
                    if let (Some(fa), Some(fb)) = (fa, fb) {
                        s += fa.iter().zip(fb).map(|(x, y)| (x - y).powi(2)).sum::<f64>();
                        used += 1;
                    }
                }
                dist[a * np + b] = if used > 0 { s / used as f64 } else { 0.0 };
            }
        }
        // The count of categories: the one whose grouping removes the largest share of the
        // within-group cost left by one fewer, if that share is large. Splitting a true group
        // removes about 1/(np - c) of the cost (noise spread over the pairs); finding a true
        // group removes most of it (measured: 0.43-0.68 at the true count, 0.17-0.25 past it,
        // widths 1-4, N = 500-2,000).
        let costs: Vec<(f64, Vec<usize>)> = (1..=self.c)
            .map(|c| group_by_distance(&dist, np, c, seed))
            .collect();
        let mut active = 1;
        let mut best_drop = MIN_COST_DROP;
        for c in 2..=self.c {
            let drop = 1.0 - costs[c - 1].0 / costs[c - 2].0.max(1e-300);
            if drop > best_drop {
                best_drop = drop;
                active = c;
            }
        }
        if std::env::var_os("KCOMP_LATENT_TRACE").is_some() {
            let c: Vec<String> = costs.iter().map(|c| format!("{:.3}", c.0)).collect();
            eprintln!(
                "latent: rows {} costs [{}] active {active}",
                rows.len(),
                c.join(", ")
            );
        }
        let groups = &costs[active - 1].1;
        let was_active = self.active;
        self.active = active;
        // Renamed to agree most with the current assignment (its fitted maps stay in place).
        let rename = permutations(active)
            .into_iter()
            .max_by_key(|pm| {
                self.movable
                    .iter()
                    .zip(groups.iter())
                    .filter(|&(&q, &g)| pm[g] == self.assign[q])
                    .count()
            })
            .expect("c >= 1");
        let mut changed = was_active != active;
        for (&q, &g) in self.movable.iter().zip(groups) {
            changed |= self.assign[q] != rename[g];
            self.assign[q] = rename[g];
        }
        changed
    }
}

/// Groups `np` items into `c` groups (all used) minimising the sum over groups of the mean
/// pairwise distance within the group (the k-means objective written with distances): single
/// moves to convergence from several seeded random starts, the best kept.
fn group_by_distance(dist: &[f64], np: usize, c: usize, seed: u64) -> (f64, Vec<usize>) {
    let cost = |g: &[usize]| -> f64 {
        (0..c)
            .map(|k| {
                let members: Vec<usize> = (0..np).filter(|&i| g[i] == k).collect();
                if members.is_empty() {
                    return f64::INFINITY;
                }
                let s: f64 = members
                    .iter()
                    .flat_map(|&a| members.iter().map(move |&b| (a, b)))
                    .map(|(a, b)| dist[a * np + b])
                    .sum();
                s / (2.0 * members.len() as f64)
            })
            .sum()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut best: Option<(f64, Vec<usize>)> = None;
    for _ in 0..32 {
        let mut g: Vec<usize> = (0..np).map(|i| i % c).collect();
        for i in (1..np).rev() {
            let j = rng.random_range(0..=i);
            g.swap(i, j);
        }
        let mut cur = cost(&g);
        loop {
            let mut improved = false;
            for i in 0..np {
                let was = g[i];
                for k in 0..c {
                    if k == was {
                        continue;
                    }
                    g[i] = k;
                    let t = cost(&g);
                    if t < cur * (1.0 - 1e-12) {
                        cur = t;
                        improved = true;
                        break;
                    }
                    g[i] = was;
                }
            }
            if !improved {
                break;
            }
        }
        if best.as_ref().is_none_or(|b| cur < b.0) {
            best = Some((cur, g));
        }
    }
    best.unwrap_or_else(|| (0.0, vec![0; np]))
}

/// Every ordering of `0..c`.
pub fn permutations(c: usize) -> Vec<Vec<usize>> {
    if c == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for p in permutations(c - 1) {
        for i in 0..=p.len() {
            let mut q = p.clone();
            q.insert(i, c - 1);
            out.push(q);
        }
    }
    out
}
