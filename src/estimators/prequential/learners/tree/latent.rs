//! Latent node categories for linear rule maps.
//!
//! Under a head-driven grammar the rule at a node above the first level depends on its
//! children's categories, and a node's category is that of its head (right) child, down to a
//! node over two words, whose category is a function of its pair of word classes. The learner
//! does not know that function: it assigns every pair of word classes one of `c` latent
//! categories and learns the assignment from the rows sent (hard expectation-maximisation: a
//! fit of the maps given the assignment, then every pair of classes moved to the category that
//! lowers the training error most given the maps, repeated). Rule keys: a node over two words
//! by its pair of word classes (its own map, as every rule of the first level), a node above by
//! (height, category of the left child, category of the right child); a leaf child (sentences
//! whose length is not a power of two) has its word class as a category of its own.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::shape::{Bracketing, Child, Keys};
use crate::dataset::TokenData;

/// The head of every node of every row, and the key layout.
#[derive(Debug, Clone)]
pub struct LatentKeys {
    /// Word classes learned from W.
    n_wc: usize,
    /// Latent categories.
    pub c: usize,
    /// Categories a child can have: the `c` latent ones, then one per word class when some
    /// node above the first level has a leaf child.
    n_cat: usize,
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
            n_cat: c + if leaf_child { n_wc } else { 0 },
            level0,
            n_level0: n_level0 as usize,
            max_height: br.nodes.last().map_or(1, |n| n.height),
            heads,
            movable: (0..pairs).filter(|&p| movable[p]).collect(),
            assign: vec![0; pairs],
        }
    }

    /// Rule slots (every first-level pair seen, every (height, category, category) above).
    pub fn n_rules(&self) -> usize {
        self.n_level0 + (self.max_height - 1) * self.n_cat * self.n_cat
    }

    /// Rules a fit can determine: those of the first level seen, and the latent ones above.
    pub fn n_rules_used(&self) -> usize {
        self.n_level0 + (self.max_height - 1) * self.c * self.c
    }

    fn cat(&self, head: u32) -> usize {
        let pairs = self.n_wc * self.n_wc;
        if (head as usize) < pairs {
            self.assign[head as usize]
        } else {
            self.c + head as usize - pairs
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
                    (self.n_level0 + ((nd.height - 2) * self.n_cat + a) * self.n_cat + b) as u32
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

    /// A random assignment of the movable pairs to the `c` categories, every category used
    /// when there are pairs enough.
    pub fn randomize(&mut self, seed: u64) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let n = self.movable.len();
        let mut cats: Vec<usize> = (0..n).map(|i| i % self.c).collect();
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
        if self.c < 2 {
            return (keys, best, false);
        }
        for pi in 0..self.movable.len() {
            let p = self.movable[pi];
            let was = self.assign[p];
            let mut best_k = was;
            for k in 0..self.c {
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
}
