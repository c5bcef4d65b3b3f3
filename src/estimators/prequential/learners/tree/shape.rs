//! The parse of a sentence under a learned grammar: its bracketing and the categories and rule
//! keys of its nodes.
//!
//! The learned grammar is head-driven: a node over two words has a *pair category* (a class of
//! the pair of word classes, from a learned partition), every higher node inherits the
//! category of its head child (the right one, or the left one), and the rule applied at a node
//! is keyed by its height and its two children's categories. Every pair of categories has a
//! rule, so the CYK chart of a sentence of M words holds every span, and the bracketing is the
//! CYK choice of the grammar generator (`crate::datasets::grammar::cyk`): the split nearest the
//! middle of each span, ties to the longer left part. For M a power of two the tree is
//! balanced. The grammars of Elmoznino et al. (ICML 2025, Section 4.1) are of this kind: a level
//! 0 non-terminal is a function of the two parts of speech it covers, and every higher
//! non-terminal is that of its right child (renamed per level).

use std::collections::HashMap;

use crate::dataset::TokenData;

/// A child of an internal node: a leaf (word position) or an internal node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Child {
    Leaf(usize),
    Node(usize),
}

/// One internal node: its children and its height (1 above two leaves).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Node {
    pub left: Child,
    pub right: Child,
    pub height: usize,
}

/// The bracketing of every sentence of `len` words; internal nodes bottom-up (children
/// first), the root last.
#[derive(Debug, Clone, PartialEq)]
pub struct Bracketing {
    pub len: usize,
    pub nodes: Vec<Node>,
}

impl Bracketing {
    /// The middle-split bracketing of `len >= 2` words.
    pub fn new(len: usize) -> Self {
        fn build(start: usize, len: usize, nodes: &mut Vec<Node>) -> (Child, usize) {
            if len == 1 {
                return (Child::Leaf(start), 0);
            }
            let left_len = len.div_ceil(2);
            let (l, hl) = build(start, left_len, nodes);
            let (r, hr) = build(start + left_len, len - left_len, nodes);
            let height = hl.max(hr) + 1;
            nodes.push(Node {
                left: l,
                right: r,
                height,
            });
            (Child::Node(nodes.len() - 1), height)
        }
        let mut nodes = Vec::new();
        build(0, len, &mut nodes);
        Bracketing { len, nodes }
    }

    /// For every leaf, the internal nodes on its path to the root, each with the side the
    /// path enters it from (false = left), bottom-up.
    pub fn paths(&self) -> Vec<Vec<(usize, bool)>> {
        let mut parent = vec![None; self.nodes.len()];
        let mut leaf_parent = vec![(0, false); self.len];
        for (i, n) in self.nodes.iter().enumerate() {
            for (c, side) in [(n.left, false), (n.right, true)] {
                match c {
                    Child::Leaf(p) => leaf_parent[p] = (i, side),
                    Child::Node(j) => parent[j] = Some((i, side)),
                }
            }
        }
        (0..self.len)
            .map(|p| {
                let mut path = vec![leaf_parent[p]];
                while let Some(up) = parent[path.last().expect("non-empty").0] {
                    path.push(up);
                }
                path
            })
            .collect()
    }
}

/// Which child a node's category comes from above the pair level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Head {
    Left,
    Right,
}

/// The categories of a learned grammar: word classes, a partition of the pairs of word
/// classes into pair categories, and the head side.
#[derive(Debug, Clone, PartialEq)]
pub struct Categories {
    /// Class of every word.
    pub word_class: Vec<usize>,
    pub n_word_classes: usize,
    /// Pair category of `(left class) * n_word_classes + (right class)`.
    pub pair_class: Vec<usize>,
    pub n_pair_classes: usize,
    pub head: Head,
}

impl Categories {
    /// One pair category per pair of word classes.
    pub fn fine(word_class: Vec<usize>, n_word_classes: usize, head: Head) -> Self {
        let c = n_word_classes;
        Categories {
            word_class,
            n_word_classes: c,
            pair_class: (0..c * c).collect(),
            n_pair_classes: c * c,
            head,
        }
    }

    /// Pair categories given by `pair_class` (one entry per pair of word classes).
    pub fn with_pairs(&self, pair_class: Vec<usize>) -> Self {
        let n = pair_class.iter().max().map_or(1, |m| m + 1);
        Categories {
            pair_class,
            n_pair_classes: n,
            ..self.clone()
        }
    }

    /// The category of every leaf then every internal node of row `r` (word classes below
    /// `n_word_classes`, pair categories after).
    pub fn of_row(&self, br: &Bracketing, w: &TokenData, r: usize, out: &mut Vec<usize>) {
        let row = w.row(r);
        out.clear();
        out.extend(row.iter().map(|&t| self.word_class[t as usize]));
        let cat = |c: Child, out: &Vec<usize>| match c {
            Child::Leaf(p) => out[p],
            Child::Node(j) => out[br.len + j],
        };
        for n in &br.nodes {
            let v = match (n.left, n.right) {
                (Child::Leaf(a), Child::Leaf(b)) => {
                    self.n_word_classes + self.pair_class[out[a] * self.n_word_classes + out[b]]
                }
                _ => match self.head {
                    Head::Right => cat(n.right, out),
                    Head::Left => cat(n.left, out),
                },
            };
            out.push(v);
        }
    }
}

/// Compact ids of keys seen over all rows.
#[derive(Debug, Clone, Default)]
pub struct KeyIndex<K: std::hash::Hash + Eq> {
    ids: HashMap<K, u32>,
}

impl<K: std::hash::Hash + Eq> KeyIndex<K> {
    pub fn id(&mut self, k: K) -> u32 {
        let n = self.ids.len() as u32;
        *self.ids.entry(k).or_insert(n)
    }
    pub fn len(&self) -> usize {
        self.ids.len()
    }
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}

/// Per row and internal node: the rule key `(height, left category, right category)`, and per
/// row and leaf-path step: the role key `(height of the parent, category of the child)`.
#[derive(Debug, Clone)]
pub struct Keys {
    /// `rule[r * nodes + i]`: rule id of internal node i of row r.
    pub rule: Vec<u32>,
    pub n_rules: usize,
    /// `role[(r * len + p) * depth + s]`: role id of step s of leaf p's path (padded with
    /// `u32::MAX` past the path's end).
    pub role: Vec<u32>,
    pub n_roles: usize,
    /// Longest leaf path.
    pub depth: usize,
}

impl Keys {
    pub fn new(br: &Bracketing, cats: &Categories, w: &TokenData) -> Self {
        let paths = br.paths();
        let depth = paths.iter().map(Vec::len).max().unwrap_or(0);
        let (n, m, k) = (w.n, br.len, br.nodes.len());
        let mut rules = KeyIndex::default();
        let mut roles = KeyIndex::default();
        let mut rule = Vec::with_capacity(n * k);
        let mut role = vec![u32::MAX; n * m * depth];
        let mut cat = Vec::new();
        let child_cat = |c: Child, cat: &Vec<usize>| match c {
            Child::Leaf(p) => cat[p],
            Child::Node(j) => cat[m + j],
        };
        for r in 0..n {
            cats.of_row(br, w, r, &mut cat);
            for nd in &br.nodes {
                rule.push(rules.id((
                    nd.height,
                    child_cat(nd.left, &cat),
                    child_cat(nd.right, &cat),
                )));
            }
            for (p, path) in paths.iter().enumerate() {
                // The child entering path[s] is the leaf (s = 0) or the node path[s - 1].
                for (s, &(node, _)) in path.iter().enumerate() {
                    let child = if s == 0 {
                        cat[p]
                    } else {
                        cat[m + path[s - 1].0]
                    };
                    role[(r * m + p) * depth + s] = roles.id((br.nodes[node].height, child));
                }
            }
        }
        Keys {
            rule,
            n_rules: rules.len(),
            role,
            n_roles: roles.len(),
            depth,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bracketing_is_balanced_for_powers_of_two_and_left_heavy_otherwise() {
        let b = Bracketing::new(8);
        assert_eq!(b.nodes.len(), 7);
        assert_eq!(b.nodes.last().unwrap().height, 3);
        assert_eq!(b.nodes.iter().filter(|n| n.height == 1).count(), 4);
        let b = Bracketing::new(3);
        // (0 1) 2: the longer part on the left, as the generator's CYK tie rule.
        assert_eq!(
            b.nodes[0],
            Node {
                left: Child::Leaf(0),
                right: Child::Leaf(1),
                height: 1
            }
        );
        assert_eq!(b.nodes[1].right, Child::Leaf(2));
        let paths = Bracketing::new(4).paths();
        assert_eq!(paths[3], vec![(1, true), (2, true)]);
        assert_eq!(paths[0], vec![(0, false), (2, false)]);
    }
}
