//! Scores of a mapping table: L(P+), E(P), L(P), C(P), the log-normalised C, in_acc and the
//! T1/T2/T3 profile.

use super::{Counts, ParserMode};
use serde::Serialize;

/// Constants of the published string-to-grid task (k = 4 positions, 2 letters, 16 cells,
/// d = 16 samples).
#[derive(Debug, Clone, Copy)]
pub struct TaskSize {
    /// Atomic input components per sample (N).
    pub n: usize,
    /// Atomic output components per sample (M).
    pub m: usize,
    /// Letters per position (U).
    pub u: usize,
    /// Samples (d).
    pub d: usize,
}

impl Default for TaskSize {
    fn default() -> Self {
        TaskSize {
            n: 4,
            m: 16,
            u: 2,
            d: 16,
        }
    }
}

impl TaskSize {
    /// L_s = U (N + M): the fully compositional table (40 bits-free units here).
    pub fn l_s(&self) -> f64 {
        (self.u * (self.n + self.m)) as f64
    }
    /// L_z = d (N + M): the table listing every sample (320).
    pub fn l_z(&self) -> f64 {
        (self.d * (self.n + self.m)) as f64
    }
}

/// Profile thresholds: L(P+) is "low" up to `L_s * LOW_TABLE_FACTOR` (3x the fully
/// compositional table, 120 entries' worth here), E(P) is "low" up to `LOW_ERRORS` of the d
/// samples (2 of 16).
pub const LOW_TABLE_FACTOR: f64 = 3.0;
/// See [`LOW_TABLE_FACTOR`].
pub const LOW_ERRORS: usize = 2;

/// T1 = low L(P+), low E (compositional and correct); T2 = high L(P+), low E (memorised);
/// T3 = low L(P+), high E (over-compressed, wrong); "none" = high L(P+) and high E.
pub fn profile(l_plus: f64, errors: usize, task: &TaskSize) -> &'static str {
    let low_l = l_plus <= task.l_s() * LOW_TABLE_FACTOR;
    let low_e = errors <= LOW_ERRORS;
    match (low_l, low_e) {
        (true, true) => "T1",
        (false, true) => "T2",
        (true, false) => "T3",
        (false, false) => "none",
    }
}

/// The score record `kcomp grid score --json` prints.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Scores {
    /// sum n from dicts.
    pub c_dict_n: usize,
    /// sum m from dicts.
    pub c_dict_m: usize,
    /// sum n from blocks.
    pub c_block_n: usize,
    /// sum m from blocks.
    pub c_block_m: usize,
    /// E(P): samples the program gets wrong (of d).
    pub c_error: usize,
    /// L(P) = L(P+) + (N + M) E(P), with the reference's clipping in reference mode.
    pub c_length: f64,
    /// C(P) in [0, 100].
    pub norm_c: f64,
    /// 100 (ln L_z - ln clip(L)) / (ln L_z - ln L_s).
    pub log_norm_c: f64,
    /// 100 (d - E) / d.
    pub in_acc: f64,
    /// T1 / T2 / T3 / none.
    pub profile: String,
    /// L(P+) as used for the profile (clipped in reference mode); not in the JSON record.
    #[serde(skip_serializing)]
    pub l_plus: f64,
}

/// Scores counts and an error count. Reference mode clips n to [2N, 16N]... exactly as the
/// published evaluator: n to [8, 64] and m to [32, 256] separately; robust mode does not clip
/// the table (a near-empty table is not made to look perfect).
pub fn score(c: &Counts, errors: usize, mode: ParserMode, task: &TaskSize) -> Scores {
    let n = (c.n_dict + c.n_block) as f64;
    let m = (c.m_dict + c.m_block) as f64;
    let l_plus = match mode {
        ParserMode::Reference => {
            let (un, um) = ((task.u * task.n) as f64, (task.u * task.m) as f64);
            n.clamp(un, un * 8.0) + m.clamp(um, um * 8.0)
        }
        ParserMode::Robust => n + m,
    };
    let errors = errors.min(task.d);
    let l = l_plus + ((task.n + task.m) * errors) as f64;
    let (ls, lz) = (task.l_s(), task.l_z());
    let lc = l.clamp(ls, lz);
    Scores {
        c_dict_n: c.n_dict,
        c_dict_m: c.m_dict,
        c_block_n: c.n_block,
        c_block_m: c.m_block,
        c_error: errors,
        c_length: l,
        norm_c: 100.0 * (lz - lc) / (lz - ls),
        log_norm_c: 100.0 * (lz.ln() - lc.ln()) / (lz.ln() - ls.ln()),
        in_acc: 100.0 * (task.d - errors) as f64 / task.d as f64,
        profile: profile(l_plus, errors, task).to_string(),
        l_plus,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_clips_separately() {
        let t = TaskSize::default();
        // A near-empty table: n, m lifted to 8 and 32 -> L = 40, C = 100.
        let s = score(&Counts::default(), 0, ParserMode::Reference, &t);
        assert_eq!(s.c_length, 40.0);
        assert_eq!(s.norm_c, 100.0);
        assert_eq!(s.log_norm_c, 100.0);
        // n = 8, m = 32, E = 2 -> L = 80, C = 100 * 240 / 280.
        let c = Counts {
            n_dict: 8,
            m_dict: 32,
            n_block: 0,
            m_block: 0,
        };
        let s = score(&c, 2, ParserMode::Reference, &t);
        assert_eq!(s.c_length, 80.0);
        assert!((s.norm_c - 100.0 * 240.0 / 280.0).abs() < 1e-12);
        assert!((s.log_norm_c - 100.0 * (320f64.ln() - 80f64.ln()) / (8f64.ln())).abs() < 1e-9);
        assert_eq!(s.in_acc, 87.5);
        assert_eq!(s.profile, "T1");
        // Robust does not lift an empty table: L = 0 + 20*16 -> C = 0.
        let s = score(&Counts::default(), 16, ParserMode::Robust, &t);
        assert_eq!(s.norm_c, 0.0);
        assert_eq!(s.profile, "T3");
        let big = Counts {
            n_dict: 64,
            m_dict: 256,
            n_block: 0,
            m_block: 0,
        };
        assert_eq!(score(&big, 0, ParserMode::Robust, &t).profile, "T2");
    }
}
