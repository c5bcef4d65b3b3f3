//! Detecting the padding token of variable-length messages: W stores messages of different
//! lengths padded at the end to the longest, with one token the messages never use otherwise.

use crate::dataset::TokenData;

/// The padding token, if W shows one: a token that only ever occurs as a trailing run (every
/// occurrence is followed by the same token up to the message end), either forming a run of
/// at least two in some row (the most frequent such token; the smallest id on ties) or, with
/// runs of one only, being the only token that never occurs before the end, ending most rows
/// but not all (messages of two lengths padded by one token). `None` for one-column W and for W
/// where no token, or several tokens that never run longer than one (e.g. the second word of
/// fixed-length two-word messages), only ever end a message.
pub fn detect_padding(w: &TokenData) -> Option<u32> {
    if w.n_words < 2 || w.n == 0 {
        return None;
    }
    // Per token: occurrences, occurrences inside the row's trailing run, longest such run,
    // rows it ends.
    let mut count = vec![0u64; w.vocab];
    let mut trailing = vec![0u64; w.vocab];
    let mut longest = vec![0usize; w.vocab];
    let mut ends = vec![0usize; w.vocab];
    for r in 0..w.n {
        let row = w.row(r);
        let last = *row.last()?;
        let run = row.iter().rev().take_while(|&&t| t == last).count();
        for &t in row {
            count[t as usize] += 1;
        }
        trailing[last as usize] += run as u64;
        longest[last as usize] = longest[last as usize].max(run);
        ends[last as usize] += 1;
    }
    let only_trailing: Vec<usize> = (0..w.vocab)
        .filter(|&t| count[t] > 0 && count[t] == trailing[t])
        .collect();
    let long = only_trailing
        .iter()
        .copied()
        .filter(|&t| longest[t] >= 2)
        .max_by(|&a, &b| count[a].cmp(&count[b]).then(b.cmp(&a)));
    match (long, only_trailing.as_slice()) {
        (Some(t), _) => Some(t as u32),
        // Runs of one: it must also end most messages but not all (a fixed-length language
        // whose last word has a value of its own must not read as padded).
        (None, &[t]) if ends[t] < w.n && 2 * ends[t] > w.n => Some(t as u32),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_trailing_token_and_nothing_else() {
        // Token 3 pads; 2 ends a message once but also occurs inside one.
        let w = TokenData::new(4, 3, 4, vec![0, 3, 3, 1, 2, 3, 2, 0, 2, 1, 3, 3]).unwrap();
        assert_eq!(detect_padding(&w), Some(3));
        // Fixed length, no repeated trailing token: no padding.
        let w = TokenData::new(3, 2, 3, vec![0, 1, 1, 2, 2, 0]).unwrap();
        assert_eq!(detect_padding(&w), None);
        // A token that also occurs before a different token is not padding.
        let w = TokenData::new(2, 3, 3, vec![0, 2, 2, 2, 1, 0]).unwrap();
        assert_eq!(detect_padding(&w), None);
        // Runs of one: the only token that never occurs before the end pads (Korbak et al.'s
        // context-sensitive messages `c _`, `s _`, `c s`) ...
        let w = TokenData::new(3, 2, 5, vec![0, 4, 2, 4, 0, 2]).unwrap();
        assert_eq!(detect_padding(&w), Some(4));
        // ... but not when two tokens only ever end a message (fixed-length `c s`), nor when the
        // only one ends a minority of the messages (a value of the last word).
        let w = TokenData::new(3, 2, 4, vec![0, 2, 1, 3, 0, 3]).unwrap();
        assert_eq!(detect_padding(&w), None);
        let w = TokenData::new(4, 2, 4, vec![0, 1, 1, 3, 2, 0, 1, 2]).unwrap();
        assert_eq!(detect_padding(&w), None);
        // One column: nothing to detect.
        assert_eq!(
            detect_padding(&TokenData::new(2, 1, 2, vec![0, 1]).unwrap()),
            None
        );
    }
}
