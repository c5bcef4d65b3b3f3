//! Scores of a mapping table with the published evaluator's fields and meanings
//! (`program_eval_5.py`), plus kcomp's own fields (`errors`, `l_p_plus`, `l_p`, `profile`,
//! `status`) and the T1/T2/T3 profile.
//!
//! With N input positions, M = side^2 output cells, U letters per position and d samples:
//! `c_n = clip(c_dict_n + c_block_n, U N, d N)`, `c_m = clip(c_dict_m + c_block_m, U M, d M)`
//! (reference parser; the robust parser does not clip), `c_length = c_n + c_m` = L(P+),
//! `c_error = (N + M) E(P)` (the error penalty, not the error count), `c = c_length + c_error`
//! = L(P), `norm_c` = C(P) = 100 (L_z - clip(c)) / (L_z - L_s) with L_s = U (N + M) and
//! L_z = d (N + M), `log_norm_c` the same on a log scale, `in_acc` = 100 (d - E) / d.

use super::space::Alphabet;
use super::{Counts, ParserMode};
use crate::datasets::string_grid::{GridSpec, Record};
use serde::{Deserialize, Serialize};

/// Constants of a string-to-grid task; the default is the published one (N = 4 positions,
/// U = 2 letters, M = 16 cells, d = 16 samples).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskSize {
    /// Atomic input components per sample (N).
    pub n: usize,
    /// Atomic output components per sample (M = side^2).
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
    /// The constants of a generated shape.
    pub fn of_spec(spec: &GridSpec) -> TaskSize {
        TaskSize {
            n: spec.positions,
            m: spec.side * spec.side,
            u: spec.letters,
            d: spec.samples,
        }
    }

    /// The constants of a record: N = letters per input, M = cells per grid, d = samples, and
    /// U the smallest letter count (>= 2) under which every letter of position i lies in
    /// `chr(65 + U i) .. chr(65 + U (i + 1))`, as the generator assigns them.
    pub fn of_record(rec: &Record) -> TaskSize {
        let inputs: Vec<Vec<u32>> = rec
            .input
            .iter()
            .map(|s| {
                s.split_whitespace()
                    .filter_map(|t| t.chars().next())
                    .map(|c| (c as u32).saturating_sub(65))
                    .collect()
            })
            .collect();
        let n = inputs.first().map_or(4, Vec::len).max(1);
        let m = rec
            .output
            .first()
            .map_or(16, |g| g.chars().filter(|c| !c.is_whitespace()).count())
            .max(1);
        let fits = |u: u32| {
            inputs.iter().all(|x| {
                x.iter()
                    .enumerate()
                    .all(|(i, &o)| (u * i as u32..u * (i as u32 + 1)).contains(&o))
            })
        };
        let u = (2..=26u32).find(|&u| fits(u)).unwrap_or(2) as usize;
        TaskSize {
            n,
            m,
            u,
            d: rec.input.len().max(1),
        }
    }

    /// The letters and cells the parsers look for.
    pub fn alphabet(&self) -> Alphabet {
        Alphabet {
            positions: self.n,
            letters: self.u,
            cells: self.m,
        }
    }

    /// L_s = U (N + M): the fully compositional table (40 on the published task).
    pub fn l_s(&self) -> usize {
        self.u * (self.n + self.m)
    }
    /// L_z = d (N + M): the table listing every sample (320 on the published task).
    pub fn l_z(&self) -> usize {
        self.d * (self.n + self.m)
    }
    /// Weight of one wrong sample: N + M (20 on the published task).
    pub fn error_weight(&self) -> usize {
        self.n + self.m
    }
}

/// Profile thresholds: L(P+) is "low" up to `L_s * LOW_TABLE_FACTOR` (3x the fully
/// compositional table, 120 entries' worth here), E(P) is "low" up to `LOW_ERRORS` of the d
/// samples (2 of 16).
pub const LOW_TABLE_FACTOR: f64 = 3.0;
/// See [`LOW_TABLE_FACTOR`].
pub const LOW_ERRORS: usize = 2;

/// Profile of an answer without a program ("I don't know", no code block): no table at all,
/// so none of T1/T2/T3 applies.
pub const PROFILE_NO_PROGRAM: &str = "no_program";

/// T1 = low L(P+), low E (compositional and correct); T2 = high L(P+), low E (memorised);
/// T3 = low L(P+), high E (over-compressed, wrong); "none" = high L(P+) and high E.
pub fn profile(l_plus: f64, errors: usize, task: &TaskSize) -> &'static str {
    let low_l = l_plus <= task.l_s() as f64 * LOW_TABLE_FACTOR;
    let low_e = errors <= LOW_ERRORS;
    match (low_l, low_e) {
        (true, true) => "T1",
        (false, true) => "T2",
        (true, false) => "T3",
        (false, false) => "none",
    }
}

/// The score record of one answer: the evaluator's twelve `_info.json` fields with their
/// meanings, then kcomp's own.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Scores {
    /// Input-side size from dict keys (n_dict).
    pub c_dict_n: usize,
    /// Output-side size from dict values (m_dict).
    pub c_dict_m: usize,
    /// Input-side size from if/else paths (n_block).
    pub c_block_n: usize,
    /// Output-side size from '*'/'.' literals outside dicts (m_block).
    pub c_block_m: usize,
    /// Input side n, clipped to [U N, d N] by the reference parser.
    pub c_n: usize,
    /// Output side m, clipped to [U M, d M] by the reference parser.
    pub c_m: usize,
    /// L(P+) = c_n + c_m.
    pub c_length: usize,
    /// Error penalty (N + M) E(P), in table entries (20 per wrong sample here).
    pub c_error: usize,
    /// L(P) = c_length + c_error.
    pub c: usize,
    /// C(P) in [0, 100].
    pub norm_c: f64,
    /// C(P) on a log scale: 100 (ln L_z - ln clip(L(P))) / (ln L_z - ln L_s).
    pub log_norm_c: f64,
    /// Accuracy on the d samples in percent: 100 (d - E) / d.
    pub in_acc: f64,
    /// E(P): samples the program gets wrong (of d).
    pub errors: usize,
    /// L(P+) (= c_length).
    pub l_p_plus: usize,
    /// L(P) (= c).
    pub l_p: usize,
    /// T1 / T2 / T3 / none, or `no_program` for an answer without a program.
    pub profile: String,
    /// How the answer ran: ok, timeout, no_program, hidden_data, ... (see `AnswerStatus`).
    pub status: String,
    /// The parser that produced the table fields: `reference` or `robust`.
    #[serde(default)]
    pub parser: String,
    /// The program's description length in bits under kcomp's fixed token code
    /// (`mapping_table::lbits`), whichever parser scored it.
    #[serde(default)]
    pub l_bits: f64,
    /// Bits of live literals outside the robust parser's table.
    #[serde(default)]
    pub unaccounted_bits: f64,
    /// The robust parser's `hidden_data` verdict on this program (also under the reference
    /// parser, which ignores it): why data can reach the output uncounted.
    #[serde(default)]
    pub hidden_data: Option<String>,
    /// Reference parser only: C(P) >= 50 although the robust parser found hidden data.
    #[serde(default)]
    pub reference_fooled: bool,
}

/// The evaluator's fields in its order (the `_info.json` keys).
pub const EVALUATOR_FIELDS: [&str; 12] = [
    "c_dict_n",
    "c_dict_m",
    "c_block_n",
    "c_block_m",
    "c_n",
    "c_m",
    "c_length",
    "c_error",
    "c",
    "norm_c",
    "log_norm_c",
    "in_acc",
];

impl Scores {
    /// The value of an evaluator field by name (see [`EVALUATOR_FIELDS`]).
    pub fn field(&self, name: &str) -> Option<f64> {
        Some(match name {
            "c_dict_n" => self.c_dict_n as f64,
            "c_dict_m" => self.c_dict_m as f64,
            "c_block_n" => self.c_block_n as f64,
            "c_block_m" => self.c_block_m as f64,
            "c_n" => self.c_n as f64,
            "c_m" => self.c_m as f64,
            "c_length" => self.c_length as f64,
            "c_error" => self.c_error as f64,
            "c" => self.c as f64,
            "norm_c" => self.norm_c,
            "log_norm_c" => self.log_norm_c,
            "in_acc" => self.in_acc,
            _ => return None,
        })
    }

    /// The evaluator's twelve fields in its order, integers as integers (the `_info.json`
    /// entries).
    pub fn evaluator_pairs(&self) -> Vec<(&'static str, serde_json::Value)> {
        let v = serde_json::to_value(self).unwrap_or_default();
        EVALUATOR_FIELDS
            .iter()
            .map(|k| (*k, v[*k].clone()))
            .collect()
    }

    /// Says when the reference's clipping changed n or m, e.g. "n = 0 raised to the floor
    /// U N = 8" (an empty table then shows L(P+) = 40, the clip floor, not its own size).
    pub fn clip_note(&self) -> Option<String> {
        let raw_n = self.c_dict_n + self.c_block_n;
        let raw_m = self.c_dict_m + self.c_block_m;
        let mut parts = Vec::new();
        for (name, raw, clipped) in [("n", raw_n, self.c_n), ("m", raw_m, self.c_m)] {
            if clipped > raw {
                parts.push(format!("{name} = {raw} raised to the clip floor {clipped}"));
            } else if clipped < raw {
                parts.push(format!(
                    "{name} = {raw} lowered to the clip ceiling {clipped}"
                ));
            }
        }
        (!parts.is_empty()).then(|| parts.join(", "))
    }
}

/// Scores counts and an error count exactly as `program_eval_5.py` (same operations in the
/// same order, so the floats agree to the last bit). The reference parser clips n to
/// [U N, d N] and m to [U M, d M] separately; the robust parser does not clip the table (a
/// near-empty table is not made to look perfect). `status` starts as "ok".
pub fn score(c: &Counts, errors: usize, mode: ParserMode, task: &TaskSize) -> Scores {
    let n = c.n_dict + c.n_block;
    let m = c.m_dict + c.m_block;
    let (c_n, c_m) = match mode {
        ParserMode::Reference => (
            n.max(task.u * task.n).min(task.d * task.n),
            m.max(task.u * task.m).min(task.d * task.m),
        ),
        ParserMode::Robust => (n, m),
    };
    let errors = errors.min(task.d);
    let c_length = c_n + c_m;
    let c_error = errors * task.error_weight();
    let cost = c_length + c_error;
    let (min_c, max_c) = (task.l_s() as f64, task.l_z() as f64);
    let clipped = (cost as f64).max(min_c).min(max_c);
    let correct = (task.d - errors) as f64;
    Scores {
        c_dict_n: c.n_dict,
        c_dict_m: c.m_dict,
        c_block_n: c.n_block,
        c_block_m: c.m_block,
        c_n,
        c_m,
        c_length,
        c_error,
        c: cost,
        norm_c: (max_c - clipped) / (max_c - min_c) * 100.0,
        log_norm_c: (max_c.ln() - clipped.ln()) / (max_c.ln() - min_c.ln()) * 100.0,
        in_acc: correct / task.d as f64 * 100.0,
        errors,
        l_p_plus: c_length,
        l_p: cost,
        profile: profile(c_length as f64, errors, task).to_string(),
        status: "ok".to_string(),
        parser: mode.name().to_string(),
        l_bits: 0.0,
        unaccounted_bits: 0.0,
        hidden_data: None,
        reference_fooled: false,
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
        assert_eq!((s.c_n, s.c_m, s.c_length, s.c), (8, 32, 40, 40));
        assert_eq!(s.norm_c, 100.0);
        assert_eq!(s.log_norm_c, 100.0);
        assert_eq!(
            s.clip_note().unwrap(),
            "n = 0 raised to the clip floor 8, m = 0 raised to the clip floor 32"
        );
        // n = 8, m = 32, E = 2 -> penalty 40, L = 80, C = 100 * 240 / 280.
        let c = Counts {
            n_dict: 8,
            m_dict: 32,
            n_block: 0,
            m_block: 0,
        };
        let s = score(&c, 2, ParserMode::Reference, &t);
        assert_eq!((s.c_error, s.errors, s.c, s.l_p), (40, 2, 80, 80));
        assert_eq!(s.norm_c, 240.0 / 280.0 * 100.0);
        assert_eq!(
            s.log_norm_c,
            (320f64.ln() - 80f64.ln()) / (320f64.ln() - 40f64.ln()) * 100.0
        );
        assert_eq!(s.in_acc, 87.5);
        assert_eq!(s.profile, "T1");
        assert_eq!(s.clip_note(), None);
        // Robust does not lift an empty table: L = 0 + 20*16 -> C = 0.
        let s = score(&Counts::default(), 16, ParserMode::Robust, &t);
        assert_eq!((s.c_length, s.c_error, s.norm_c), (0, 320, 0.0));
        assert_eq!(s.profile, "T3");
        let big = Counts {
            n_dict: 72,
            m_dict: 256,
            n_block: 0,
            m_block: 0,
        };
        assert_eq!(score(&big, 0, ParserMode::Robust, &t).profile, "T2");
        let s = score(&big, 0, ParserMode::Reference, &t);
        assert_eq!(s.c_n, 64);
        assert_eq!(
            s.clip_note().unwrap(),
            "n = 72 lowered to the clip ceiling 64"
        );
    }

    #[test]
    fn other_shapes_use_their_own_constants() {
        // 3 positions x 2 letters, 3 x 3 grid, all 8 samples: L_s = 24, L_z = 96, weight 12.
        let t = TaskSize {
            n: 3,
            m: 9,
            u: 2,
            d: 8,
        };
        assert_eq!((t.l_s(), t.l_z(), t.error_weight()), (24, 96, 12));
        let s = score(&Counts::default(), 1, ParserMode::Reference, &t);
        assert_eq!((s.c_n, s.c_m, s.c_error, s.c), (6, 18, 12, 36));
        assert_eq!(s.norm_c, (96.0 - 36.0) / (96.0 - 24.0) * 100.0);
        assert_eq!(s.in_acc, 7.0 / 8.0 * 100.0);
        let rec = Record {
            input: vec!["A D F".into(), "B C E".into()],
            output: vec!["*..\n...\n..*".into(), "...\n...\n...".into()],
        };
        assert_eq!(
            TaskSize::of_record(&rec),
            TaskSize {
                n: 3,
                m: 9,
                u: 2,
                d: 2
            }
        );
    }
}
