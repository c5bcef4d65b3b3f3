//! Scoring model outputs the way Sakai, Kamigaito and Watanabe (ACL 2025) define it, on
//! lemma-table matches instead of spaCy lemmas (see docs/ordered-commongen.md):
//!
//! - an output is lower-cased and cut into words (maximal runs of letters and digits, so
//!   "dog's" gives "dog" and "s"); a word counts as a concept when it is one of the
//!   concept's forms in the lemma table ([`super::data::Lexicon`]);
//! - **coverage w/o order**: the output holds every concept (each anywhere);
//! - **coverage w/ order** (ordered coverage): positions p1 < p2 < p3 < p4 exist whose words
//!   are the concepts in the specified order (repeated words: any choice of occurrences; a
//!   word serves one concept only);
//! - **ordered rate**: outputs with ordered coverage / outputs with coverage w/o order;
//! - concept-level variants: the share of the four concepts present, and the longest
//!   subsequence of the specified order found in order (a longest common subsequence), / 4;
//! - **diversity** over the 24 orders of one set and template: distinct outputs / outputs
//!   (the diverse rate), distinct realised concept orders, and Pairwise-BLEU (the mean
//!   sentence BLEU-4 of every ordered pair of the outputs, [`sentence_bleu`]).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use serde::Serialize;

use super::data::{CONCEPTS, ConceptSet, Lexicon, ORDERS, TEMPLATES, orders, parse_prompt_id};
use crate::error::{KcompError, Result};

/// One model output for one prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    pub model: String,
    pub set: usize,
    pub order: usize,
    pub template: usize,
    pub text: String,
}

/// The words of a text: lower case, maximal runs of alphanumeric characters.
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The scores of one output against its specified order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutputScore {
    /// Concepts present anywhere (0..=4).
    pub found: usize,
    /// The longest part of the specified order found in order (a longest common
    /// subsequence of the words and the order; 0..=4).
    pub in_order: usize,
    /// The concepts (indices into the set) by first occurrence, when all four are present.
    pub realised: Option<[usize; CONCEPTS]>,
}

impl OutputScore {
    pub fn covered(&self) -> bool {
        self.found == CONCEPTS
    }
    pub fn ordered(&self) -> bool {
        self.in_order == CONCEPTS
    }
}

/// Scores `text` against `set` in the specified `order` (concept indices into the set).
pub fn score_output(
    text: &str,
    set: &ConceptSet,
    order: &[usize; CONCEPTS],
    lex: &Lexicon,
) -> OutputScore {
    // Per word: the bit mask of the set's concepts it is a form of.
    let masks: Vec<u8> = words(text)
        .iter()
        .map(|w| {
            let of = lex.words_of(w);
            (0..CONCEPTS)
                .filter(|&k| of.contains(&set.words[k]))
                .fold(0u8, |m, k| m | (1 << k))
        })
        .collect();
    let mut first = [usize::MAX; CONCEPTS];
    for (p, &m) in masks.iter().enumerate() {
        for (k, f) in first.iter_mut().enumerate() {
            if m & (1 << k) != 0 && *f == usize::MAX {
                *f = p;
            }
        }
    }
    let found = first.iter().filter(|&&p| p != usize::MAX).count();
    // Longest common subsequence of the words and the specified order, one row per word:
    // prev[j] = LCS of the words so far with order[..j].
    let mut prev = [0usize; CONCEPTS + 1];
    for &m in &masks {
        let mut cur = [0usize; CONCEPTS + 1];
        for j in 0..CONCEPTS {
            let hit = m & (1 << order[j]) != 0;
            cur[j + 1] = prev[j + 1].max(cur[j]).max(prev[j] + usize::from(hit));
        }
        prev = cur;
    }
    let realised = (found == CONCEPTS).then(|| {
        let mut r = [0, 1, 2, 3];
        r.sort_by_key(|&k| (first[k], k));
        r
    });
    OutputScore {
        found,
        in_order: prev[CONCEPTS],
        realised,
    }
}

/// Sentence BLEU-4 (0..=100) of `hyp` against one reference, with sacreBLEU's sentence-level
/// conventions: 0 when no n-gram matches at all, effective order (only n-gram orders the
/// hypothesis has), exponential smoothing of zero matches (the k-th zero counts as
/// 1 / (2^k * total)), brevity penalty.
/// Tokens are [`words`], not sacreBLEU's 13a tokens. Hand-written: a dozen lines, and the
/// BLEU crates either pull in a tokenizer kcomp does not want or compute corpus BLEU only.
pub fn sentence_bleu(hyp: &[String], reference: &[String]) -> f64 {
    if hyp.is_empty() {
        return 0.0;
    }
    let mut log_sum = 0.0;
    let mut orders = 0;
    let mut zeros = 0;
    let mut any_match = false;
    for n in 1..=4usize {
        if hyp.len() < n {
            break;
        }
        let mut counts: HashMap<&[String], usize> = HashMap::new();
        for g in reference.windows(n) {
            *counts.entry(g).or_default() += 1;
        }
        let total = hyp.len() + 1 - n;
        let mut matches = 0;
        for g in hyp.windows(n) {
            if let Some(c) = counts.get_mut(g)
                && *c > 0
            {
                *c -= 1;
                matches += 1;
            }
        }
        any_match |= matches > 0;
        let p = if matches == 0 {
            zeros += 1;
            1.0 / (2f64.powi(zeros) * total as f64)
        } else {
            matches as f64 / total as f64
        };
        log_sum += p.ln();
        orders += 1;
    }
    if !any_match {
        return 0.0;
    }
    let (c, r) = (hyp.len() as f64, reference.len() as f64);
    let bp = if c > r { 1.0 } else { (1.0 - r / c).exp() };
    100.0 * bp * (log_sum / orders as f64).exp()
}

/// Diversity of the outputs of one set and template over its orders.
#[derive(Debug, Clone, PartialEq)]
pub struct Diversity {
    pub outputs: usize,
    /// Distinct texts (whitespace-trimmed, otherwise exact).
    pub distinct: usize,
    /// Distinct realised concept orders among outputs holding all four concepts.
    pub distinct_orders: usize,
    /// Outputs holding all four concepts.
    pub covered: usize,
    /// Mean sentence BLEU over ordered pairs (i != j); `None` under two outputs.
    pub pairwise_bleu: Option<f64>,
}

/// The diversity of `texts` (their scores beside them).
pub fn diversity(texts: &[&str], scores: &[OutputScore]) -> Diversity {
    let distinct = texts.iter().map(|t| t.trim()).collect::<HashSet<_>>().len();
    let realised: HashSet<[usize; CONCEPTS]> = scores.iter().filter_map(|s| s.realised).collect();
    let toks: Vec<Vec<String>> = texts.iter().map(|t| words(t)).collect();
    let mut sum = 0.0;
    let mut pairs = 0usize;
    for i in 0..toks.len() {
        for j in 0..toks.len() {
            if i != j {
                sum += sentence_bleu(&toks[i], &toks[j]);
                pairs += 1;
            }
        }
    }
    Diversity {
        outputs: texts.len(),
        distinct,
        distinct_orders: realised.len(),
        covered: scores.iter().filter(|s| s.covered()).count(),
        pairwise_bleu: (pairs > 0).then(|| sum / pairs as f64),
    }
}

/// Outputs that cover, in order, and concept sums, of a group of outputs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub outputs: usize,
    pub covered: usize,
    pub ordered: usize,
    pub found: usize,
    pub in_order: usize,
}

impl Tally {
    fn add(&mut self, s: &OutputScore) {
        self.outputs += 1;
        self.covered += usize::from(s.covered());
        self.ordered += usize::from(s.ordered());
        self.found += s.found;
        self.in_order += s.in_order;
    }
}

fn pct(num: usize, den: usize) -> Option<f64> {
    (den > 0).then(|| 100.0 * num as f64 / den as f64)
}

/// One row of the coverage tables (overall, per template, per POS pattern).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CoverageRow {
    pub model: String,
    /// `all`, `template N` or a POS pattern of the specified order (`NVNV`).
    pub group: String,
    pub outputs: usize,
    /// % of outputs holding all four concepts, any order.
    pub coverage_pct: Option<f64>,
    /// % of outputs holding all four concepts in the specified order.
    pub ordered_coverage_pct: Option<f64>,
    /// ordered / covered outputs, %; empty when no output covers.
    pub ordered_rate_pct: Option<f64>,
    /// % of the concepts present (concept level, any order).
    pub concept_coverage_pct: Option<f64>,
    /// Longest in-order subsequence / 4, % (concept level).
    pub concept_ordered_coverage_pct: Option<f64>,
}

fn coverage_row(model: &str, group: String, t: &Tally) -> CoverageRow {
    CoverageRow {
        model: model.to_string(),
        group,
        outputs: t.outputs,
        coverage_pct: pct(t.covered, t.outputs),
        ordered_coverage_pct: pct(t.ordered, t.outputs),
        ordered_rate_pct: pct(t.ordered, t.covered),
        concept_coverage_pct: pct(t.found, CONCEPTS * t.outputs),
        concept_ordered_coverage_pct: pct(t.in_order, CONCEPTS * t.outputs),
    }
}

/// One row of the per-model diversity table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiversityRow {
    pub model: String,
    /// Set x template groups with at least two outputs.
    pub groups: usize,
    /// Groups with all 24 orders answered.
    pub complete_groups: usize,
    /// Mean over groups of distinct outputs / outputs, %.
    pub diverse_rate_pct: Option<f64>,
    /// Groups whose outputs are all the same text.
    pub identical_groups: usize,
    /// Mean over groups of the distinct realised concept orders.
    pub distinct_orders_mean: Option<f64>,
    /// Mean over groups of Pairwise-BLEU (0-100, higher = less diverse).
    pub pairwise_bleu: Option<f64>,
}

/// One scored output (per_output.csv).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OutputRow {
    pub model: String,
    pub id: String,
    pub set: usize,
    pub order: usize,
    pub template: usize,
    pub pattern: String,
    pub concepts: String,
    pub found: usize,
    pub in_order: usize,
    pub covered: bool,
    pub ordered: bool,
    /// The concepts by first occurrence when all are present.
    pub realised: String,
}

/// Everything `kcomp commongen score` computes.
#[derive(Debug, Clone, PartialEq)]
pub struct Scores {
    pub models: Vec<String>,
    pub overall: Vec<CoverageRow>,
    pub templates: Vec<CoverageRow>,
    pub patterns: Vec<CoverageRow>,
    pub diversity: Vec<DiversityRow>,
    pub outputs: Vec<OutputRow>,
    /// Prompts of the full benchmark each model has no output for.
    pub missing: Vec<(String, usize)>,
}

/// Scores outputs (any subset of the benchmark; each (model, prompt) at most once).
pub fn score_outputs(outputs: &[Output], sets: &[ConceptSet], lex: &Lexicon) -> Result<Scores> {
    let orders = orders();
    let mut seen = HashSet::new();
    let mut models: Vec<String> = Vec::new();
    let mut per_model: BTreeMap<usize, Vec<(usize, OutputScore)>> = BTreeMap::new();
    for (i, o) in outputs.iter().enumerate() {
        if o.set >= sets.len() || o.order >= ORDERS || o.template >= TEMPLATES.len() {
            return Err(KcompError::param(
                "outputs",
                format!("output {i}: set, order or template out of range"),
            ));
        }
        if !seen.insert((o.model.clone(), o.set, o.order, o.template)) {
            return Err(KcompError::param(
                "outputs",
                format!(
                    "model `{}` has two outputs for {}",
                    crate::io::names::terminal(&o.model),
                    super::data::prompt_id(o.set, o.order, o.template)
                ),
            ));
        }
        let m = match models.iter().position(|x| *x == o.model) {
            Some(m) => m,
            None => {
                models.push(o.model.clone());
                models.len() - 1
            }
        };
        let s = score_output(&o.text, &sets[o.set], &orders[o.order], lex);
        per_model.entry(m).or_default().push((i, s));
    }
    let mut scores = Scores {
        models: models.clone(),
        overall: Vec::new(),
        templates: Vec::new(),
        patterns: Vec::new(),
        diversity: Vec::new(),
        outputs: Vec::new(),
        missing: Vec::new(),
    };
    let full = sets.len() * ORDERS * TEMPLATES.len();
    for (m, list) in &per_model {
        let model = &models[*m];
        let mut all = Tally::default();
        let mut by_template: BTreeMap<usize, Tally> = BTreeMap::new();
        let mut by_pattern: BTreeMap<String, Tally> = BTreeMap::new();
        let mut groups: BTreeMap<(usize, usize), Vec<(usize, OutputScore)>> = BTreeMap::new();
        for &(i, s) in list {
            let o = &outputs[i];
            let set = &sets[o.set];
            let (concepts, pattern) = super::data::ordered(set, &orders[o.order]);
            all.add(&s);
            by_template.entry(o.template).or_default().add(&s);
            by_pattern.entry(pattern.clone()).or_default().add(&s);
            groups.entry((o.set, o.template)).or_default().push((i, s));
            scores.outputs.push(OutputRow {
                model: model.clone(),
                id: super::data::prompt_id(o.set, o.order, o.template),
                set: o.set,
                order: o.order,
                template: o.template,
                pattern,
                concepts: concepts.join(" "),
                found: s.found,
                in_order: s.in_order,
                covered: s.covered(),
                ordered: s.ordered(),
                realised: s.realised.map_or_else(String::new, |r| {
                    r.iter()
                        .map(|&k| set.words[k].as_str())
                        .collect::<Vec<_>>()
                        .join(" ")
                }),
            });
        }
        scores.overall.push(coverage_row(model, "all".into(), &all));
        for (t, tally) in &by_template {
            scores
                .templates
                .push(coverage_row(model, format!("template {t}"), tally));
        }
        // NNNN first, VVVV last (by the number of verbs), as the paper's tables.
        let mut patterns: Vec<(&String, &Tally)> = by_pattern.iter().collect();
        patterns.sort_by_key(|(p, _)| (p.matches('V').count(), p.to_string()));
        for (p, tally) in patterns {
            scores.patterns.push(coverage_row(model, p.clone(), tally));
        }
        let divs: Vec<Diversity> = groups
            .values()
            .filter(|g| g.len() >= 2)
            .map(|g| {
                let texts: Vec<&str> = g.iter().map(|(i, _)| outputs[*i].text.as_str()).collect();
                let s: Vec<OutputScore> = g.iter().map(|(_, s)| *s).collect();
                diversity(&texts, &s)
            })
            .collect();
        let n = divs.len();
        let mean = |f: &dyn Fn(&Diversity) -> f64| {
            (n > 0).then(|| divs.iter().map(f).sum::<f64>() / n as f64)
        };
        scores.diversity.push(DiversityRow {
            model: model.clone(),
            groups: n,
            complete_groups: divs.iter().filter(|d| d.outputs == ORDERS).count(),
            diverse_rate_pct: mean(&|d| 100.0 * d.distinct as f64 / d.outputs as f64),
            identical_groups: divs.iter().filter(|d| d.distinct == 1).count(),
            distinct_orders_mean: mean(&|d| d.distinct_orders as f64),
            pairwise_bleu: mean(&|d| d.pairwise_bleu.unwrap_or(0.0)),
        });
        scores.missing.push((model.clone(), full - list.len()));
    }
    Ok(scores)
}

/// The most bytes an outputs file or one answer file may have.
pub const MAX_OUTPUTS_BYTES: u64 = 1 << 30;
pub const MAX_ANSWER_BYTES: u64 = 1 << 20;

/// Reads outputs: a JSONL file (one object per line: `model`, `output`, and either `id`
/// (as `kcomp commongen prompts` writes it) or `set`, `template` and `order` or `concepts`,
/// the concepts in the specified order), or a folder written by `kcomp commongen ask`
/// (`MODEL/tT/<id>.txt`; the folder name is the model).
pub fn read_outputs(path: &Path, sets: &[ConceptSet]) -> Result<Vec<Output>> {
    if path.is_dir() {
        read_tree(path)
    } else {
        read_jsonl(path, sets)
    }
}

fn read_jsonl(path: &Path, sets: &[ConceptSet]) -> Result<Vec<Output>> {
    let bytes = crate::io::files::read_capped(path, MAX_OUTPUTS_BYTES)?;
    let text = String::from_utf8(bytes).map_err(|_| KcompError::file(path, "is not UTF-8"))?;
    let orders = orders();
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |why: String| KcompError::file(path, format!("line {}: {why}", n + 1));
        let v: serde_json::Value =
            serde_json::from_str(line).map_err(|e| bad(format!("not JSON ({e})")))?;
        let field = |k: &str| v.get(k).filter(|x| !x.is_null());
        let text_of = |k: &str| -> Result<String> {
            field(k)
                .and_then(|x| x.as_str())
                .map(str::to_string)
                .ok_or_else(|| bad(format!("`{k}` must be a string")))
        };
        let model = text_of("model")?;
        if model.trim().is_empty() {
            return Err(bad("`model` is empty".into()));
        }
        let output = text_of("output")?;
        let (set, order, template) = if let Some(id) = field("id") {
            let id = id.as_str().unwrap_or("");
            parse_prompt_id(id).ok_or_else(|| {
                bad(format!(
                    "`id` {:?} is not a prompt id (s000-o00-t0)",
                    crate::io::names::terminal(id)
                ))
            })?
        } else {
            let index = |k: &str, max: usize| -> Result<usize> {
                field(k)
                    .and_then(|x| x.as_u64())
                    .map(|x| x as usize)
                    .filter(|&x| x < max)
                    .ok_or_else(|| bad(format!("`{k}` must be an integer below {max}")))
            };
            let set = index("set", sets.len())?;
            let template = index("template", TEMPLATES.len())?;
            let order = match field("concepts") {
                Some(c) => {
                    let c: Vec<&str> = c
                        .as_array()
                        .map(|a| a.iter().filter_map(|x| x.as_str()).collect())
                        .unwrap_or_default();
                    orders
                        .iter()
                        .position(|o| {
                            o.iter().zip(&c).all(|(&k, w)| sets[set].words[k] == *w)
                                && c.len() == CONCEPTS
                        })
                        .ok_or_else(|| {
                            bad(format!(
                                "`concepts` is not an order of set {set}'s four concepts"
                            ))
                        })?
                }
                None => index("order", ORDERS)?,
            };
            (set, order, template)
        };
        out.push(Output {
            model,
            set,
            order,
            template,
            text: output,
        });
    }
    if out.is_empty() {
        return Err(KcompError::file(path, "holds no outputs"));
    }
    Ok(out)
}

fn read_tree(root: &Path) -> Result<Vec<Output>> {
    let list = |dir: &Path| -> Result<Vec<std::fs::DirEntry>> {
        let mut v: Vec<_> = std::fs::read_dir(dir)
            .map_err(|e| KcompError::io(dir, e))?
            .collect::<std::io::Result<_>>()
            .map_err(|e| KcompError::io(dir, e))?;
        v.sort_by_key(|e| e.file_name());
        Ok(v)
    };
    let mut out = Vec::new();
    for model_dir in list(root)? {
        let name = model_dir.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || !model_dir.path().is_dir() {
            continue;
        }
        for t_dir in list(&model_dir.path())? {
            if !t_dir.path().is_dir() {
                continue;
            }
            for f in list(&t_dir.path())? {
                let fname = f.file_name().to_string_lossy().into_owned();
                let Some(stem) = fname.strip_suffix(".txt") else {
                    continue; // the raw responses (.response.json) and temporary files
                };
                let p = f.path();
                let (set, order, template) = parse_prompt_id(stem)
                    .ok_or_else(|| KcompError::file(&p, "is not named <prompt id>.txt"))?;
                crate::io::files::check_within(&p, root)?;
                let bytes = crate::io::files::read_capped(&p, MAX_ANSWER_BYTES)?;
                out.push(Output {
                    model: name.clone(),
                    set,
                    order,
                    template,
                    text: String::from_utf8_lossy(&bytes).into_owned(),
                });
            }
        }
    }
    if out.is_empty() {
        return Err(KcompError::file(
            root,
            "holds no answers (expected MODEL/tT/<prompt id>.txt, as `kcomp commongen ask` writes)",
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<String> {
        words(s)
    }

    #[test]
    fn bleu_conventions() {
        let a = w("the dog catches the frisbee");
        assert!((sentence_bleu(&a, &a) - 100.0).abs() < 1e-9);
        assert_eq!(sentence_bleu(&[], &a), 0.0);
        // One word against a longer reference: effective order 1, p1 = 1, BP = e^(1-5).
        let one = w("dog");
        assert!((sentence_bleu(&one, &a) - 100.0 * (-4f64).exp()).abs() < 1e-9);
        // No bigram match: p2 = 1/(2*1) for a 2-word hypothesis, p1 = 1/2; BP = e^(1-5/2).
        let two = w("dog runs");
        let want = 100.0 * (1.0f64 - 2.5).exp() * (0.5f64 * 0.5).sqrt();
        assert!((sentence_bleu(&two, &a) - want).abs() < 1e-9);
    }
}
