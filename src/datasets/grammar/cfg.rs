//! The binary context-free grammar of Elmoznino et al.'s grammar representations.
//!
//! Symbols: the T parts of speech (POS) `0..T` (word `i` has POS `i % T`), then the non-terminals
//! of each level. Rules are keyed by their right-hand side: level 0 maps the 2T allowed POS
//! pairs `(t, t+1)`, `(t, t+2)` (mod T) onto `width` non-terminals (pair index % width); each
//! higher level maps all `width^2` pairs of the level below; the top level also maps its own
//! pairs onto itself (recursion), and its non-terminals are the roots.
//! Rule count: `2T + depth * width^2`.

/// A grammar symbol id: POS in `0..T`, non-terminals after.
pub type Symbol = usize;

/// One binary rule `lhs -> left right`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// Left child symbol.
    pub left: Symbol,
    /// Right child symbol.
    pub right: Symbol,
    /// Parent symbol.
    pub lhs: Symbol,
}

/// The grammar: symbols, rules in construction order, and the RHS-pair lookup.
#[derive(Debug, Clone)]
pub struct Grammar {
    /// Number of parts of speech T.
    pub pos_count: usize,
    /// Non-terminals per level.
    pub width: usize,
    /// Number of levels.
    pub depth: usize,
    /// Rules in construction order (the order their parameters are drawn).
    pub rules: Vec<Rule>,
    /// `rule_of[left * symbols + right]` = index into `rules`.
    rule_of: Vec<Option<usize>>,
}

impl Grammar {
    /// Builds the grammar for T parts of speech, `width` non-terminals per level and `depth`
    /// levels. Callers validate `T >= 3`, `width >= 1`, `depth >= 1`.
    pub fn new(pos_count: usize, width: usize, depth: usize) -> Self {
        let t = pos_count;
        let mut pairs_below: Vec<(Symbol, Symbol)> = (0..t)
            .flat_map(|a| [(a, (a + 1) % t), (a, (a + 2) % t)])
            .collect();
        let mut rules = Vec::new();
        for level in 0..depth {
            let nonterminal = |i: usize| t + level * width + i % width;
            rules.extend(pairs_below.iter().enumerate().map(|(i, &(l, r))| Rule {
                left: l,
                right: r,
                lhs: nonterminal(i),
            }));
            let base = t + level * width;
            pairs_below = (0..width)
                .flat_map(|a| (0..width).map(move |b| (base + a, base + b)))
                .collect();
        }
        let top = t + (depth - 1) * width;
        rules.extend(pairs_below.iter().enumerate().map(|(i, &(l, r))| Rule {
            left: l,
            right: r,
            lhs: top + i % width,
        }));
        let symbols = t + depth * width;
        let mut rule_of = vec![None; symbols * symbols];
        for (i, rule) in rules.iter().enumerate() {
            rule_of[rule.left * symbols + rule.right] = Some(i);
        }
        Grammar {
            pos_count,
            width,
            depth,
            rules,
            rule_of,
        }
    }

    /// Total number of symbols (POS + non-terminals).
    pub fn symbol_count(&self) -> usize {
        self.pos_count + self.depth * self.width
    }

    /// The rule whose right-hand side is `(left, right)`, if any.
    pub fn rule_for(&self, left: Symbol, right: Symbol) -> Option<usize> {
        self.rule_of[left * self.symbol_count() + right]
    }

    /// Whether `symbol` is a root (a top-level non-terminal).
    pub fn is_root(&self, symbol: Symbol) -> bool {
        symbol >= self.pos_count + (self.depth - 1) * self.width
    }

    /// Symbols that occur on some right-hand side (they get role vectors in tensor-product
    /// composition): every POS and the non-terminals of every level.
    pub fn rhs_symbols(&self) -> usize {
        self.symbol_count()
    }

    /// Display name: `T_1..T_T` for POS, `r{level}_{i}` for non-terminals (as the reference).
    pub fn symbol_name(&self, symbol: Symbol) -> String {
        if symbol < self.pos_count {
            format!("T_{}", symbol + 1)
        } else {
            let s = symbol - self.pos_count;
            format!("r{}_{}", s / self.width, s % self.width + 1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_count_is_2t_plus_depth_width_squared() {
        for (w, d) in [(1, 1), (3, 2), (4, 4), (2, 3)] {
            assert_eq!(Grammar::new(5, w, d).rules.len(), 10 + d * w * w);
        }
    }

    #[test]
    fn level_zero_follows_pos_transitions() {
        let g = Grammar::new(5, 3, 2);
        assert_eq!(
            g.rules[0],
            Rule {
                left: 0,
                right: 1,
                lhs: 5
            }
        );
        assert_eq!(
            g.rules[1],
            Rule {
                left: 0,
                right: 2,
                lhs: 6
            }
        );
        assert_eq!(
            g.rules[3],
            Rule {
                left: 1,
                right: 3,
                lhs: 5
            }
        );
        assert_eq!(g.rule_for(4, 0), Some(8));
        assert_eq!(g.rule_for(0, 3), None);
        assert_eq!(g.symbol_name(g.rules[27].lhs), "r1_3");
        assert!(g.is_root(g.rules[27].lhs));
    }
}
