//! Symbol spaces: per input position, the set of letters (and the virtual `'*'` of an else
//! branch) a piece of a program involves. Size = sum of set sizes.
//!
//! The letters of a task are its [`Alphabet`] (the evaluator's `k` and `u`: position i uses
//! `chr(65 + u*i + v)`). It is set per measuring thread with [`with_alphabet`] (the parsers
//! run on a thread of their own, see `mapping_table::measure`), so the many small helpers of
//! the parsers need not carry it.

use std::cell::Cell;
use std::collections::BTreeSet;

/// Most input positions a task can have (positions x letters <= 26, letters >= 2).
pub const MAX_POSITIONS: usize = 13;

/// Positions (k), letters per position (u) and output cells (M) of a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Alphabet {
    pub positions: usize,
    pub letters: usize,
    /// Grid cells (side^2).
    pub cells: usize,
}

impl Default for Alphabet {
    /// The published task: k = 4, u = 2 (letters A-H), 4 x 4 grid.
    fn default() -> Self {
        Alphabet {
            positions: 4,
            letters: 2,
            cells: 16,
        }
    }
}

impl Alphabet {
    /// Last letter of the task ('H' on the published task).
    pub fn last_letter(&self) -> char {
        char::from(b'A' + (self.positions * self.letters).clamp(1, 26) as u8 - 1)
    }
    /// Whether `c` is one of the task's letters.
    pub fn is_letter(&self, c: char) -> bool {
        ('A'..=self.last_letter()).contains(&c)
    }
}

thread_local! {
    static ALPHABET: Cell<Alphabet> = Cell::new(Alphabet::default());
}

/// The alphabet in force on this thread.
pub fn alphabet() -> Alphabet {
    ALPHABET.with(Cell::get)
}

/// Runs `f` with `a` as this thread's alphabet (restored afterwards).
pub fn with_alphabet<T>(a: Alphabet, f: impl FnOnce() -> T) -> T {
    let a = Alphabet {
        positions: a.positions.clamp(1, MAX_POSITIONS),
        letters: a.letters.max(1),
        cells: a.cells.max(1),
    };
    let old = ALPHABET.with(|c| c.replace(a));
    let out = f();
    ALPHABET.with(|c| c.set(old));
    out
}

/// Per-position symbol sets (positions beyond the alphabet's stay empty).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Space(pub [BTreeSet<char>; MAX_POSITIONS]);

impl Space {
    /// Position of a letter: `(ord - 65) // u` for the alphabet's letters.
    pub fn position(c: char) -> Option<usize> {
        let a = alphabet();
        a.is_letter(c).then(|| (c as u32 - 65) as usize / a.letters)
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
