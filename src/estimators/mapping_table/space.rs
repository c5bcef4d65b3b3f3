//! Symbol spaces: per input position, the set of letters (and the virtual `'*'` of an else
//! branch) a piece of a program involves. Size = sum of set sizes.

use std::collections::BTreeSet;

/// Number of input positions the reference tracks (letters A-H, two per position).
pub const POSITIONS: usize = 4;

/// Per-position symbol sets.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Space(pub [BTreeSet<char>; POSITIONS]);

impl Space {
    /// Position of a letter: `(ord - 65) // 2` for 'A'..='H'.
    pub fn position(c: char) -> Option<usize> {
        let o = c as u32;
        if (65..65 + 2 * POSITIONS as u32).contains(&o) {
            Some(((o - 65) / 2) as usize)
        } else {
            None
        }
    }

    /// Space of a text: every 'A'..'H' character, wherever it stands.
    pub fn of_text(text: &str) -> Space {
        let mut s = Space::default();
        s.add_letters(text);
        s
    }

    /// Adds every 'A'..'H' character of `text`.
    pub fn add_letters(&mut self, text: &str) {
        for c in text.chars() {
            if let Some(p) = Space::position(c) {
                self.0[p].insert(c);
            }
        }
    }

    /// Adds '*' to every non-empty position (the virtual value of an else branch).
    pub fn star_non_empty(&mut self) {
        for set in self.0.iter_mut() {
            if !set.is_empty() {
                set.insert('*');
            }
        }
    }

    /// A space with '*' exactly where `self` is non-empty.
    pub fn stars_of(&self) -> Space {
        let mut s = Space::default();
        for (i, set) in self.0.iter().enumerate() {
            if !set.is_empty() {
                s.0[i].insert('*');
            }
        }
        s
    }

    /// Union in place.
    pub fn union_with(&mut self, other: &Space) {
        for (a, b) in self.0.iter_mut().zip(other.0.iter()) {
            a.extend(b.iter().copied());
        }
    }

    /// Sum of set sizes.
    pub fn size(&self) -> usize {
        self.0.iter().map(BTreeSet::len).sum()
    }

    /// True if no position has a symbol.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(BTreeSet::is_empty)
    }
}
