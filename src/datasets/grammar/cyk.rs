//! CYK parsing for the binary grammar of [`super::cfg`].
//!
//! Bracketing rule (documented because the grammar is ambiguous at its recursive top level):
//! for every span and every symbol, the kept derivation is the one whose split point is closest
//! to the middle of the span, ties going to the split with the longer left part. At the lower
//! levels the bracketing is forced (adjacent pairs); at the top this gives balanced trees.
//! C(Z) does not depend on the bracketing; topological similarity does.

use super::cfg::{Grammar, Symbol};

/// A parse tree node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tree {
    /// A word (its index) at a leaf, with its POS.
    Leaf {
        /// Word index.
        word: usize,
        /// Its part of speech.
        pos: Symbol,
    },
    /// A rule application.
    Node {
        /// Index into `Grammar::rules`.
        rule: usize,
        /// Parent symbol.
        lhs: Symbol,
        /// Left subtree.
        left: Box<Tree>,
        /// Right subtree.
        right: Box<Tree>,
    },
}

impl Tree {
    /// The symbol at this node.
    pub fn symbol(&self) -> Symbol {
        match self {
            Tree::Leaf { pos, .. } => *pos,
            Tree::Node { lhs, .. } => *lhs,
        }
    }

    /// The rule of every internal node, children before parents, left before right (the node
    /// order of the tree learner's bracketing).
    pub fn rules_post_order(&self) -> Vec<usize> {
        fn walk(t: &Tree, out: &mut Vec<usize>) {
            if let Tree::Node {
                rule, left, right, ..
            } = t
            {
                walk(left, out);
                walk(right, out);
                out.push(*rule);
            }
        }
        let mut out = Vec::new();
        walk(self, &mut out);
        out
    }

    /// Bracketed rendering, e.g. `((0 1) (2 3))`.
    pub fn brackets(&self) -> String {
        match self {
            Tree::Leaf { word, .. } => word.to_string(),
            Tree::Node { left, right, .. } => {
                format!("({} {})", left.brackets(), right.brackets())
            }
        }
    }
}

#[derive(Clone, Copy)]
struct Back {
    split: usize,
    rule: usize,
    left: Symbol,
    right: Symbol,
}

/// Parses a sentence (word indices; word `i` has POS `i % T`). Returns `None` if no root
/// derivation spans the whole sentence.
pub fn parse(grammar: &Grammar, sentence: &[usize]) -> Option<Tree> {
    let n = sentence.len();
    if n == 0 {
        return None;
    }
    let symbols = grammar.symbol_count();
    // chart[(start, len)] -> per-symbol back-pointer; len 1 holds POS leaves.
    let idx = |start: usize, len: usize| (start * (n + 1) + len) * symbols;
    let mut chart: Vec<Option<Back>> = vec![None; n * (n + 1) * symbols];
    let mut present: Vec<Vec<Symbol>> = vec![Vec::new(); n * (n + 1)];
    for (i, &word) in sentence.iter().enumerate() {
        let pos = word % grammar.pos_count;
        chart[idx(i, 1) + pos] = Some(Back {
            split: 0,
            rule: usize::MAX,
            left: pos,
            right: pos,
        });
        present[i * (n + 1) + 1].push(pos);
    }
    // One split order per span length and one buffer for the matches, not one per cell.
    let mut found = Vec::new();
    for len in 2..=n {
        let splits = split_order(len);
        for start in 0..=n - len {
            for &left_len in &splits {
                let right_len = len - left_len;
                let ls = &present[start * (n + 1) + left_len];
                let rs = &present[(start + left_len) * (n + 1) + right_len];
                found.clear();
                for &l in ls {
                    for &r in rs {
                        if let Some(rule) = grammar.rule_for(l, r) {
                            found.push((grammar.rules[rule].lhs, rule, l, r));
                        }
                    }
                }
                for &(lhs, rule, l, r) in &found {
                    let cell = &mut chart[idx(start, len) + lhs];
                    if cell.is_none() {
                        *cell = Some(Back {
                            split: left_len,
                            rule,
                            left: l,
                            right: r,
                        });
                        present[start * (n + 1) + len].push(lhs);
                    }
                }
            }
        }
    }
    let root = present[n]
        .iter()
        .copied()
        .filter(|&s| grammar.is_root(s))
        .min()?;
    Some(build(&chart, &idx, sentence, 0, n, root))
}

/// Left-part lengths of a span of `len`, closest to the middle first, longer left part first.
fn split_order(len: usize) -> Vec<usize> {
    let mut splits: Vec<usize> = (1..len).collect();
    splits.sort_by_key(|&k| ((2 * k).abs_diff(len), std::cmp::Reverse(k)));
    splits
}

fn build(
    chart: &[Option<Back>],
    idx: &dyn Fn(usize, usize) -> usize,
    sentence: &[usize],
    start: usize,
    len: usize,
    symbol: Symbol,
) -> Tree {
    if len == 1 {
        return Tree::Leaf {
            word: sentence[start],
            pos: symbol,
        };
    }
    let back = chart[idx(start, len) + symbol].expect("symbol present in its cell");
    Tree::Node {
        rule: back.rule,
        lhs: symbol,
        left: Box::new(build(chart, idx, sentence, start, back.split, back.left)),
        right: Box::new(build(
            chart,
            idx,
            sentence,
            start + back.split,
            len - back.split,
            back.right,
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_order_prefers_the_middle() {
        assert_eq!(split_order(4), vec![2, 3, 1]);
        assert_eq!(split_order(5), vec![3, 2, 4, 1]);
    }

    #[test]
    fn lower_levels_are_forced_and_top_is_balanced() {
        let g = Grammar::new(5, 3, 1);
        // POS sequence 0 1 2 3 4 0 1 2: allowed transitions (+1 each step).
        let sentence: Vec<usize> = vec![0, 1, 2, 3, 4, 5, 6, 7];
        let tree = parse(&g, &sentence).expect("parses");
        assert_eq!(tree.brackets(), "(((0 1) (2 3)) ((4 5) (6 7)))");
    }

    #[test]
    fn ungrammatical_sentences_do_not_parse() {
        let g = Grammar::new(5, 3, 1);
        // POS 0 followed by POS 3 is not an allowed pair.
        assert!(parse(&g, &[0, 3]).is_none());
        assert!(parse(&g, &[0, 1, 2]).is_none());
    }
}
