//! A seeded generator of PCFG SET-style data and of the five tests' splits, written in the
//! published `data/pcfgset/` layout so that `kcomp pcfgset check` verifies its output.
//!
//! The grammar's hyper-parameters are those of the public generator (MathijsMul/pcfg-set,
//! `generate.py` defaults): a function is unary with probability 0.75; a unary function's
//! argument is a function application with probability 0.25 and each binary argument too;
//! string arguments have 2 to 5 tokens drawn uniformly from 26 letters x 20 numbers (520
//! tokens), and no string argument occurs twice in a data set; samples written longer than 500
//! characters are dropped. Not reproduced: the naturalisation to the WMT 2017 length/depth
//! distribution (per-sample random probabilities, then resampling by EM; their Appendix A),
//! since it needs the parsed English corpus; see docs/pcfgset.md.

use std::collections::HashSet;
use std::path::Path;

use super::interpreter::{DEFAULT_MAX_OUTPUT, Function, Semantics, evaluate_sequence};
use crate::error::{KcompError, Result};
use crate::rng::stream::{RngKind, Stream};

/// Generator parameters (defaults: the published generator's).
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct GeneratorParams {
    /// Samples drawn before the splits (samples over --max-chars or --max-depth are dropped);
    /// with --naturalise, the samples kept.
    #[arg(long, default_value_t = 10_000)]
    pub samples: usize,
    /// Seed of the random stream (ChaCha8).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// P(unary | function).
    #[arg(long, default_value_t = 0.75)]
    pub prob_unary: f64,
    /// P(function | argument).
    #[arg(long, default_value_t = 0.25)]
    pub prob_func: f64,
    /// Shortest string argument.
    #[arg(long, default_value_t = 2)]
    pub min_string: usize,
    /// Longest string argument.
    #[arg(long, default_value_t = 5)]
    pub max_string: usize,
    /// Numbers per letter (the alphabet is A1..Z<n>; 20 gives the published 520 tokens).
    #[arg(long, default_value_t = 20)]
    pub numbers: usize,
    /// Samples whose written input has this many characters or more are dropped.
    #[arg(long, default_value_t = 500)]
    pub max_chars: usize,
    /// Samples nesting more functions than this are dropped (the published generator's
    /// Python recursion limit played this role).
    #[arg(long, default_value_t = 40)]
    pub max_depth: usize,
    /// Primitive examples (`f_twin x` or `f_twin x , y`) per synonym in the primitive
    /// substitutivity condition.
    #[arg(long, default_value_t = 50)]
    pub primitive_examples: usize,
    /// Naturalise: draw samples with per-sample random rule probabilities and keep exactly
    /// --samples of them whose (depth, length) histogram matches the target (the paper's
    /// Appendix A, steps 2-3); see docs/pcfgset.md.
    #[arg(long)]
    pub naturalise: bool,
    /// Target of --naturalise: a source file (one sequence a line) whose (depth, length)
    /// histogram is matched (default: the published test and dev sets, built in).
    #[arg(long, requires = "naturalise")]
    pub target_from: Option<std::path::PathBuf>,
    /// Draws per kept sample before --naturalise gives up on the cells it could not fill.
    #[arg(long, default_value_t = 2000, requires = "naturalise")]
    pub max_draws: usize,
}

impl Default for GeneratorParams {
    fn default() -> Self {
        GeneratorParams {
            samples: 10_000,
            seed: 0,
            prob_unary: 0.75,
            prob_func: 0.25,
            min_string: 2,
            max_string: 5,
            numbers: 20,
            max_chars: 500,
            max_depth: 40,
            primitive_examples: 50,
            naturalise: false,
            target_from: None,
            max_draws: 2000,
        }
    }
}

/// Most primitive examples per synonym (the default is 50).
pub const MAX_PRIMITIVE_EXAMPLES: usize = 1_000_000;
/// Deepest nesting a sample may reach (the published generator's Python recursion limit was
/// 1,000 frames).
pub const MAX_DEPTH: usize = 1000;
/// Longest written input kept, in characters.
pub const MAX_CHARS: usize = 1_000_000;

impl GeneratorParams {
    /// Checks the parameters once.
    pub fn validate(&self) -> Result<()> {
        let prob = |name: &str, p: f64| {
            if !(0.0..=1.0).contains(&p) {
                return Err(KcompError::param(name, "must be in [0, 1]"));
            }
            Ok(())
        };
        prob("prob-unary", self.prob_unary)?;
        prob("prob-func", self.prob_func)?;
        // Expected functions per argument must stay finite: each function has on average
        // 2 - prob_unary argument slots, each a function with probability prob_func.
        if self.prob_func * (2.0 - self.prob_unary) >= 1.0 {
            return Err(KcompError::param(
                "prob-func",
                "prob_func x (2 - prob_unary) must be below 1, or trees grow without bound",
            ));
        }
        if self.min_string < 1 || self.min_string > self.max_string || self.max_string > 64 {
            return Err(KcompError::param(
                "min-string",
                "need 1 <= min-string <= max-string <= 64",
            ));
        }
        if self.numbers < 1 || self.numbers > 1000 {
            return Err(KcompError::param("numbers", "must be in 1..=1000"));
        }
        if self.samples < 1 || self.samples > 10_000_000 {
            return Err(KcompError::param("samples", "must be in 1..=10000000"));
        }
        if self.max_draws < 1 || self.max_draws > 1_000_000 {
            return Err(KcompError::param("max-draws", "must be in 1..=1000000"));
        }
        // Bounded before anything is drawn: the primitive condition holds one row per example
        // and synonym in memory; trees are recursed into once per nesting level; the written
        // input is at most max_chars characters.
        if self.primitive_examples > MAX_PRIMITIVE_EXAMPLES {
            return Err(KcompError::param(
                "primitive-examples",
                format!("must be at most {MAX_PRIMITIVE_EXAMPLES}"),
            ));
        }
        if self.max_depth < 1 || self.max_depth > MAX_DEPTH {
            return Err(KcompError::param(
                "max-depth",
                format!("must be in 1..={MAX_DEPTH}"),
            ));
        }
        if self.max_chars < 1 || self.max_chars > MAX_CHARS {
            return Err(KcompError::param(
                "max-chars",
                format!("must be in 1..={MAX_CHARS}"),
            ));
        }
        Ok(())
    }
}

/// One generated sample: the input tokens and the target tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    pub source: Vec<String>,
    pub target: Vec<String>,
}

impl Sample {
    fn functions(&self) -> usize {
        self.source
            .iter()
            .filter(|t| Function::from_token(t).is_some())
            .count()
    }
}

pub(super) struct Gen<'p> {
    p: &'p GeneratorParams,
    rng: Stream,
    alphabet: Vec<String>,
    used: HashSet<Vec<u32>>,
    /// Set when no new string argument was found in [`MAX_REDRAWS`] draws.
    exhausted: bool,
    /// P(unary | function) and P(function | argument) of the current draw.
    prob_unary: f64,
    prob_func: f64,
    /// When set, the string arguments of a draw wait here until [`Gen::commit`] (a rejected
    /// draw's strings stay free) and a draw longer than this many tokens is abandoned.
    deferred: Option<(Vec<Vec<u32>>, usize)>,
}

/// Draws of a string argument before the alphabet counts as exhausted (instead of looping
/// forever on a tiny alphabet).
const MAX_REDRAWS: usize = 10_000;

/// Raised inside a draw that nests too deeply; the sample is dropped.
struct TooDeep;

impl<'p> Gen<'p> {
    fn new(p: &'p GeneratorParams, rng: Stream) -> Self {
        Gen {
            p,
            rng,
            alphabet: ('A'..='Z')
                .flat_map(|c| (1..=p.numbers).map(move |i| format!("{c}{i}")))
                .collect(),
            used: HashSet::new(),
            exhausted: false,
            prob_unary: p.prob_unary,
            prob_func: p.prob_func,
            deferred: None,
        }
    }

    pub(super) fn params(&self) -> &'p GeneratorParams {
        self.p
    }

    pub(super) fn rng(&mut self) -> &mut Stream {
        &mut self.rng
    }

    /// Switches to naturalisation draws: deferred strings, draws abandoned past `budget`
    /// tokens.
    pub(super) fn defer(&mut self, budget: usize) {
        self.deferred = Some((Vec::new(), budget));
    }

    /// One draw with the given rule probabilities: its tokens, or `None` when it nests
    /// deeper than --max-depth or is written with --max-chars characters or more. The
    /// caller decides with [`Gen::commit`] whether its strings count as used.
    pub(super) fn draw(&mut self, prob_unary: f64, prob_func: f64) -> Result<Option<Vec<String>>> {
        self.prob_unary = prob_unary;
        self.prob_func = prob_func;
        let mut source = Vec::new();
        let drawn = self.function(&mut source, 1).is_ok();
        self.check_exhausted()?;
        let chars = source.iter().map(String::len).sum::<usize>() + source.len().saturating_sub(1);
        Ok((drawn && chars < self.p.max_chars).then_some(source))
    }

    fn function(
        &mut self,
        out: &mut Vec<String>,
        depth: usize,
    ) -> std::result::Result<(), TooDeep> {
        if depth > self.p.max_depth {
            return Err(TooDeep);
        }
        if let Some((_, budget)) = &self.deferred
            && out.len() > *budget
        {
            return Err(TooDeep);
        }
        if self.rng.uniform() < self.prob_unary {
            let f = Function::ALL[self.rng.below(6) as usize];
            out.push(f.name().to_owned());
            self.argument(out, depth)
        } else {
            let f = Function::ALL[6 + self.rng.below(4) as usize];
            out.push(f.name().to_owned());
            self.argument(out, depth)?;
            out.push(",".to_owned());
            self.argument(out, depth)
        }
    }

    fn argument(
        &mut self,
        out: &mut Vec<String>,
        depth: usize,
    ) -> std::result::Result<(), TooDeep> {
        if self.rng.uniform() < self.prob_func {
            self.function(out, depth + 1)
        } else {
            self.string(out);
            Ok(())
        }
    }

    /// A string argument never drawn before in this data set (redrawn until new; the space
    /// of 520^2 strings of length 2 alone exceeds any data set the limits allow).
    fn string(&mut self, out: &mut Vec<String>) {
        for _ in 0..MAX_REDRAWS {
            let span = (self.p.max_string - self.p.min_string + 1) as u64;
            let len = self.p.min_string + self.rng.below(span) as usize;
            let ids: Vec<u32> = (0..len)
                .map(|_| self.rng.below(self.alphabet.len() as u64) as u32)
                .collect();
            let fresh = match &mut self.deferred {
                None => self.used.insert(ids.clone()),
                Some((pending, _)) => {
                    let new = !self.used.contains(&ids) && !pending.contains(&ids);
                    if new {
                        pending.push(ids.clone());
                    }
                    new
                }
            };
            if fresh {
                out.extend(ids.iter().map(|&i| self.alphabet[i as usize].clone()));
                return;
            }
        }
        self.exhausted = true;
        out.push(self.alphabet[0].clone());
    }

    /// Marks the deferred strings of the current draw as used (`keep`) or frees them.
    pub(super) fn commit(&mut self, keep: bool) {
        if let Some((pending, _)) = &mut self.deferred {
            let strings = std::mem::take(pending);
            if keep {
                self.used.extend(strings);
            }
        }
    }

    fn check_exhausted(&self) -> Result<()> {
        if self.exhausted {
            return Err(KcompError::param(
                "numbers",
                "the alphabet ran out of new string arguments; raise --numbers or --max-string",
            ));
        }
        Ok(())
    }
}

pub(super) fn interpret(source: &[String], semantics: Semantics) -> Result<Vec<String>> {
    let text = source.join(" ");
    Ok(evaluate_sequence(&text, semantics, DEFAULT_MAX_OUTPUT)?
        .into_iter()
        .map(str::to_owned)
        .collect())
}

/// Draws `params.samples` attempts and keeps those within the size limits, in draw order.
pub fn generate(params: &GeneratorParams) -> Result<Vec<Sample>> {
    params.validate()?;
    let mut g = Gen::new(params, Stream::new(RngKind::Kcomp, params.seed));
    if params.naturalise {
        return super::naturalise::naturalised(&mut g);
    }
    let mut out = Vec::new();
    for _ in 0..params.samples {
        let mut source = Vec::new();
        if g.function(&mut source, 1).is_err() {
            continue;
        }
        let chars = source.iter().map(String::len).sum::<usize>() + source.len().saturating_sub(1);
        if chars >= params.max_chars {
            continue;
        }
        g.check_exhausted()?;
        let target = interpret(&source, Semantics::Standard)?;
        out.push(Sample { source, target });
    }
    if out.is_empty() {
        return Err(KcompError::param(
            "samples",
            "every drawn sample exceeded --max-chars or --max-depth",
        ));
    }
    Ok(out)
}

fn write_split(dir: &Path, stem: &str, samples: &[Sample]) -> Result<()> {
    let src = dir.join(format!("{stem}.src"));
    if let Some(parent) = src.parent() {
        crate::io::files::create_dir_all(parent)?;
    }
    let join = |f: &dyn Fn(&Sample) -> &Vec<String>| -> String {
        samples.iter().map(|s| f(s).join(" ") + "\n").collect()
    };
    std::fs::write(&src, join(&|s| &s.source)).map_err(|e| KcompError::io(&src, e))?;
    let tgt = dir.join(format!("{stem}.tgt"));
    std::fs::write(&tgt, join(&|s| &s.target)).map_err(|e| KcompError::io(&tgt, e))
}

fn has_pair(s: &[String], pair: (Function, Function)) -> bool {
    s.windows(2)
        .any(|w| w[0] == pair.0.name() && w[1] == pair.1.name())
}

/// The substitutivity test's functions with synonyms (the paper's choice).
pub const SYNONYM_FUNCTIONS: [Function; 4] = [
    Function::SwapFirstLast,
    Function::Repeat,
    Function::Append,
    Function::RemoveSecond,
];

/// Split sizes and counts, for the report.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SplitSummary {
    pub lines: Vec<(String, usize)>,
}

/// Generates the data and writes the basic corpus and every test's splits under `out` in
/// the published layout:
/// - `pcfgset/{train,dev,test}`: a random 85/5/10 split in draw order;
/// - `systematicity/`: test = samples holding one of the four held-out pairs adjacently;
/// - `productivity/`: train = up to 8 functions, test = 9 or more;
/// - `substitutivity/equally_distributed/`: every occurrence of the four synonym functions in
///   train becomes its `_twin` with probability 1/2; `test` = test samples holding one of the
///   four, `test_twin` = the same with the first such function replaced by its `_twin`;
/// - `substitutivity/primitive/`: train = the basic train plus `--primitive-examples`
///   primitive samples per synonym; the same test files;
/// - `overgeneralisation/`: per ratio, training samples holding an exception pair removed and
///   `max(1, round(ratio x count))` of them (count = occurrences of the pair's less frequent
///   function in train) put back with exception targets; those are the test files.
pub fn write_splits(params: &GeneratorParams, out: &Path) -> Result<SplitSummary> {
    let samples = generate(params)?;
    let mut rng = Stream::new(RngKind::Kcomp, params.seed ^ 0x5bd1_e995);
    let mut summary = SplitSummary::default();
    let mut write = |stem: &str, s: &[Sample]| -> Result<()> {
        write_split(out, stem, s)?;
        summary.lines.push((stem.to_owned(), s.len()));
        Ok(())
    };
    let n = samples.len();
    let (n_train, n_dev) = (n * 85 / 100, n * 5 / 100);
    let train = &samples[..n_train];
    let dev = &samples[n_train..n_train + n_dev];
    let test = &samples[n_train + n_dev..];
    write("pcfgset/train", train)?;
    write("pcfgset/dev", dev)?;
    write("pcfgset/test", test)?;

    let held_out = super::evaluate::HELD_OUT_PAIRS;
    let (sys_test, sys_train): (Vec<Sample>, Vec<Sample>) = samples
        .iter()
        .cloned()
        .partition(|s| held_out.iter().any(|&p| has_pair(&s.source, p)));
    write("systematicity/train", &sys_train)?;
    write("systematicity/test", &sys_test)?;

    let (prod_train, prod_test): (Vec<Sample>, Vec<Sample>) =
        samples.iter().cloned().partition(|s| s.functions() <= 8);
    write("productivity/train", &prod_train)?;
    write("productivity/test", &prod_test)?;

    let is_syn = |t: &str| SYNONYM_FUNCTIONS.iter().any(|f| f.name() == t);
    let sub_test: Vec<Sample> = test
        .iter()
        .filter(|s| s.source.iter().any(|t| is_syn(t)))
        .cloned()
        .collect();
    let sub_twin: Vec<Sample> = sub_test
        .iter()
        .map(|s| {
            let mut s = s.clone();
            if let Some(t) = s.source.iter_mut().find(|t| is_syn(t)) {
                *t = format!("{t}_twin");
            }
            s
        })
        .collect();
    let ed_train: Vec<Sample> = train
        .iter()
        .map(|s| {
            let mut s = s.clone();
            for t in s.source.iter_mut() {
                if is_syn(t) && rng.below(2) == 1 {
                    *t = format!("{t}_twin");
                }
            }
            s
        })
        .collect();
    let mut prim_train = train.to_vec();
    let mut prim_gen = Gen::new(
        params,
        Stream::new(RngKind::Kcomp, params.seed ^ 0x2545_f491),
    );
    for f in SYNONYM_FUNCTIONS {
        for _ in 0..params.primitive_examples {
            let mut source = vec![format!("{}_twin", f.name())];
            prim_gen.string(&mut source);
            if f.arity() == 2 {
                source.push(",".into());
                prim_gen.string(&mut source);
            }
            prim_gen.check_exhausted()?;
            let target = interpret(&source, Semantics::Standard)?;
            prim_train.push(Sample { source, target });
        }
    }
    for (cond, tr) in [
        ("equally_distributed", &ed_train),
        ("primitive", &prim_train),
    ] {
        write(&format!("substitutivity/{cond}/train"), tr)?;
        write(&format!("substitutivity/{cond}/test"), &sub_test)?;
        write(&format!("substitutivity/{cond}/test_twin"), &sub_twin)?;
    }

    let pairs: Vec<(Function, Function)> = super::interpreter::EXCEPTIONS
        .iter()
        .map(|((a, b), _)| {
            (
                Function::from_token(a).expect("static").0,
                Function::from_token(b).expect("static").0,
            )
        })
        .collect();
    for ratio in [0.0001, 0.0005, 0.001, 0.005] {
        let mut kept = Vec::new();
        let mut exceptions: Vec<Sample> = Vec::new();
        let mut by_pair: Vec<Vec<&Sample>> = vec![Vec::new(); pairs.len()];
        for s in train {
            match pairs.iter().position(|&p| has_pair(&s.source, p)) {
                Some(k) => by_pair[k].push(s),
                None => kept.push(s.clone()),
            }
        }
        for (k, &(a, b)) in pairs.iter().enumerate() {
            let count = |f: Function| {
                train
                    .iter()
                    .map(|s| s.source.iter().filter(|t| **t == f.name()).count())
                    .sum::<usize>()
            };
            let want = ((ratio * count(a).min(count(b)) as f64).round() as usize).max(1);
            exceptions.extend(by_pair[k].iter().take(want).map(|s| (*s).clone()));
        }
        let exc: Vec<Sample> = exceptions
            .iter()
            .map(|s| {
                Ok(Sample {
                    source: s.source.clone(),
                    target: interpret(&s.source, Semantics::Exceptions)?,
                })
            })
            .collect::<Result<_>>()?;
        let mut train_r = kept;
        train_r.extend(exc.iter().cloned());
        write(
            &format!("overgeneralisation/train_pcfg_ratio={ratio}"),
            &train_r,
        )?;
        write(
            &format!("overgeneralisation/test_pcfg_ratio={ratio}_original"),
            &exceptions,
        )?;
        write(
            &format!("overgeneralisation/test_pcfg_ratio={ratio}_exception"),
            &exc,
        )?;
    }
    // The localism test: the test samples with two or more functions, unrolled.
    let mut unrolled = String::new();
    let mut n_unrolled = 0;
    for s in test {
        if let Some(text) = super::localism::unroll(&s.source.join(" "))? {
            unrolled.push_str(&text);
            n_unrolled += 1;
        }
    }
    let tsv = out.join("localism/unrolled_test.tsv");
    if let Some(parent) = tsv.parent() {
        crate::io::files::create_dir_all(parent)?;
    }
    std::fs::write(&tsv, unrolled).map_err(|e| KcompError::io(&tsv, e))?;
    summary
        .lines
        .push(("localism/unrolled_test (samples)".to_owned(), n_unrolled));
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_data_and_strings_never_repeat() {
        let p = GeneratorParams {
            samples: 300,
            ..Default::default()
        };
        let a = generate(&p).unwrap();
        assert_eq!(a, generate(&p).unwrap());
        let b = generate(&GeneratorParams { seed: 1, ..p }).unwrap();
        assert_ne!(a, b);
    }
}
