//! The benchmark's inputs: the 192 four-concept sets of CommonGen-lite, their 24 orders,
//! the six FLAN `common_gen` templates with "in the specified order", the prompts, and the
//! lemma table the scoring matches concepts with. The sets and the lemma table are committed
//! data (`data/`, with their provenance in `data/README.md`) compiled into the binary.

use std::collections::HashMap;

use serde::Serialize;

use crate::error::{KcompError, Result};

/// `data/concept_sets.tsv`: index, CommonGen-lite id, four `word_POS` concepts.
const CONCEPT_SETS: &str = include_str!("data/concept_sets.tsv");
/// `data/lemmas.tsv`: concept word, the surface forms that count as it.
const LEMMAS: &str = include_str!("data/lemmas.tsv");

/// Concepts per set, orders per set, templates.
pub const CONCEPTS: usize = 4;
pub const ORDERS: usize = 24;
pub const SETS: usize = 192;

/// The six generation templates of FLAN's `common_gen` task (google-research/FLAN,
/// `flan/templates.py`, Apache-2.0), with "in the specified order" added where the
/// instruction ends (before the final `?`/`.` or the `:` that introduces the concepts), as
/// Sakai et al. (ACL 2025) do. `{concepts}` is the ordered concepts joined by ", ".
pub const TEMPLATES: [&str; 6] = [
    "Concepts: {concepts}\n\nWrite a sentence that includes all these words in the specified order.",
    "Keywords: {concepts}\n\nWhat is a sentence that includes all these keywords in the specified order?",
    "Here are some concepts: {concepts}\n\nWhat is a sentence about these concepts in the specified order?",
    "Produce a sentence which mentions all of these concepts in the specified order: {concepts}",
    "Write a sentence about the following things in the specified order:\n\n{concepts}",
    "Generate a sentence that includes all the following words in the specified order: {concepts}",
];

/// Part of speech of a concept in CommonGen-lite.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pos {
    Noun,
    Verb,
}

impl Pos {
    /// `N` or `V`, the letters of the paper's patterns (NNNN ... VVVV).
    pub fn letter(self) -> char {
        match self {
            Pos::Noun => 'N',
            Pos::Verb => 'V',
        }
    }
}

/// One concept set in CommonGen-lite's order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConceptSet {
    /// 0..192, the line of `concept_sets.tsv`.
    pub index: usize,
    /// CommonGen-lite's item id.
    pub id: String,
    pub words: [String; CONCEPTS],
    pub pos: [Pos; CONCEPTS],
}

fn parse_sets(text: &str) -> Result<Vec<ConceptSet>> {
    let bad = |line: usize, why: &str| {
        KcompError::file("concept_sets.tsv", format!("line {}: {why}", line + 1))
    };
    let mut sets = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() != 3 || f[0].parse::<usize>().ok() != Some(sets.len()) {
            return Err(bad(
                n,
                "expected `index<TAB>id<TAB>concepts` with consecutive indices",
            ));
        }
        let concepts: Vec<&str> = f[2].split(' ').collect();
        if concepts.len() != CONCEPTS {
            return Err(bad(n, "expected four concepts"));
        }
        let mut words: [String; CONCEPTS] = Default::default();
        let mut pos = [Pos::Noun; CONCEPTS];
        for (k, c) in concepts.iter().enumerate() {
            let (w, p) = c
                .rsplit_once('_')
                .ok_or_else(|| bad(n, "concept without _POS"))?;
            words[k] = w.to_string();
            pos[k] = match p {
                "N" => Pos::Noun,
                "V" => Pos::Verb,
                _ => return Err(bad(n, "POS must be N or V")),
            };
        }
        sets.push(ConceptSet {
            index: sets.len(),
            id: f[1].to_string(),
            words,
            pos,
        });
    }
    Ok(sets)
}

/// The 192 concept sets (committed data; a parse failure is a build defect, tested).
pub fn concept_sets() -> Vec<ConceptSet> {
    parse_sets(CONCEPT_SETS).expect("committed concept_sets.tsv parses")
}

/// The 24 orders of four concepts: permutations of the indices 0..4 in lexicographic order
/// (order 0 is CommonGen-lite's own; the order of Python's `itertools.permutations`).
pub fn orders() -> Vec<[usize; CONCEPTS]> {
    let mut out = Vec::with_capacity(ORDERS);
    for a in 0..4 {
        for b in 0..4 {
            for c in 0..4 {
                for d in 0..4 {
                    let p = [a, b, c, d];
                    let mut seen = [false; 4];
                    if p.iter().all(|&i| !std::mem::replace(&mut seen[i], true)) {
                        out.push(p);
                    }
                }
            }
        }
    }
    out
}

/// Which concept words a surface form counts as: built from `lemmas.tsv` (word, forms).
#[derive(Debug, Clone, Default)]
pub struct Lexicon {
    forms: HashMap<String, Vec<String>>,
}

impl Lexicon {
    /// The committed lemma table of the 192 x 4 concept words.
    pub fn builtin() -> Lexicon {
        Lexicon::parse(LEMMAS).expect("committed lemmas.tsv parses")
    }

    /// Parses `word<TAB>form form ...` lines (`#` comments); every word counts as itself.
    pub fn parse(text: &str) -> Result<Lexicon> {
        let mut forms: HashMap<String, Vec<String>> = HashMap::new();
        for (n, line) in text.lines().enumerate() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let (word, list) = line.split_once('\t').ok_or_else(|| {
                KcompError::file(
                    "lemmas.tsv",
                    format!("line {}: expected word<TAB>forms", n + 1),
                )
            })?;
            let word = word.to_lowercase();
            for f in list.split(' ').chain([word.as_str()]) {
                let f = f.to_lowercase();
                if f.is_empty() {
                    continue;
                }
                let e = forms.entry(f).or_default();
                if !e.contains(&word) {
                    e.push(word.clone());
                }
            }
        }
        Ok(Lexicon { forms })
    }

    /// The concept words `token` (lower case) is a form of.
    pub fn words_of(&self, token: &str) -> &[String] {
        self.forms.get(token).map_or(&[], Vec::as_slice)
    }
}

/// One prompt of the benchmark (a line of `kcomp commongen prompts`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Prompt {
    /// `s{set:03}-o{order:02}-t{template}`.
    pub id: String,
    pub set: usize,
    /// CommonGen-lite's item id of the set.
    pub commongen_id: String,
    /// Index into [`orders`].
    pub order: usize,
    pub template: usize,
    /// The concepts in the specified order.
    pub concepts: Vec<String>,
    /// Their POS pattern, e.g. `NVNV`.
    pub pattern: String,
    pub prompt: String,
}

/// The id of a prompt.
pub fn prompt_id(set: usize, order: usize, template: usize) -> String {
    format!("s{set:03}-o{order:02}-t{template}")
}

/// Parses a [`prompt_id`] back into (set, order, template), checking the ranges.
pub fn parse_prompt_id(id: &str) -> Option<(usize, usize, usize)> {
    let rest = id.strip_prefix('s')?;
    let (s, rest) = rest.split_once("-o")?;
    let (o, t) = rest.split_once("-t")?;
    let all_digits = |x: &str| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit());
    if !(all_digits(s) && all_digits(o) && all_digits(t)) {
        return None;
    }
    let (s, o, t) = (s.parse().ok()?, o.parse().ok()?, t.parse().ok()?);
    (s < SETS && o < ORDERS && t < TEMPLATES.len() && prompt_id(s, o, t) == id).then_some((s, o, t))
}

/// The specified order of `set` under order `order`: concept indices into the set.
pub fn ordered(set: &ConceptSet, order: &[usize; CONCEPTS]) -> (Vec<String>, String) {
    let words = order.iter().map(|&i| set.words[i].clone()).collect();
    let pattern = order.iter().map(|&i| set.pos[i].letter()).collect();
    (words, pattern)
}

/// Every prompt of the chosen sets and templates (all: 192 x 24 x 6 = 27,648), in set,
/// order, template order.
pub fn prompts(sets: Option<&[usize]>, templates: Option<&[usize]>) -> Result<Vec<Prompt>> {
    let all = concept_sets();
    let chosen_sets: Vec<usize> = sets.map_or_else(|| (0..all.len()).collect(), <[usize]>::to_vec);
    let chosen_templates: Vec<usize> =
        templates.map_or_else(|| (0..TEMPLATES.len()).collect(), <[usize]>::to_vec);
    if let Some(bad) = chosen_sets.iter().find(|&&s| s >= all.len()) {
        return Err(KcompError::param(
            "sets",
            format!("set {bad} does not exist (0..{})", all.len()),
        ));
    }
    if let Some(bad) = chosen_templates.iter().find(|&&t| t >= TEMPLATES.len()) {
        return Err(KcompError::param(
            "templates",
            format!("template {bad} does not exist (0..{})", TEMPLATES.len()),
        ));
    }
    let orders = orders();
    let mut out = Vec::new();
    for &s in &chosen_sets {
        let set = &all[s];
        for (o, order) in orders.iter().enumerate() {
            let (concepts, pattern) = ordered(set, order);
            for &t in &chosen_templates {
                out.push(Prompt {
                    id: prompt_id(s, o, t),
                    set: s,
                    commongen_id: set.id.clone(),
                    order: o,
                    template: t,
                    prompt: TEMPLATES[t].replace("{concepts}", &concepts.join(", ")),
                    concepts: concepts.clone(),
                    pattern: pattern.clone(),
                });
            }
        }
    }
    Ok(out)
}

/// The prompts as JSON lines.
pub fn prompts_jsonl(prompts: &[Prompt]) -> String {
    let mut s = String::new();
    for p in prompts {
        s.push_str(&serde_json::to_string(p).expect("a prompt serialises"));
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn committed_data_and_counts() {
        let sets = concept_sets();
        assert_eq!(sets.len(), SETS);
        assert_eq!(
            sets[0].words,
            ["catch", "dog", "frisbee", "throw"].map(String::from)
        );
        let lex = Lexicon::builtin();
        for s in &sets {
            for w in &s.words {
                assert!(lex.words_of(w).contains(w), "{w}");
            }
        }
        let o = orders();
        assert_eq!(o.len(), ORDERS);
        assert_eq!(o[0], [0, 1, 2, 3]);
        assert_eq!(o[23], [3, 2, 1, 0]);
        let all = prompts(None, None).unwrap();
        assert_eq!(all.len(), 27_648);
        assert_eq!(all[0].id, "s000-o00-t0");
        assert_eq!(
            all[0].prompt,
            "Concepts: catch, dog, frisbee, throw\n\nWrite a sentence that includes all these words in the specified order."
        );
        assert_eq!(all[0].pattern, "VNNV");
        assert_eq!(parse_prompt_id("s191-o23-t5"), Some((191, 23, 5)));
        for bad in [
            "s192-o00-t0",
            "s1-o00-t0",
            "s000-o24-t0",
            "s000-o00-t6",
            "x",
            "s000-o00-t+1",
        ] {
            assert_eq!(parse_prompt_id(bad), None, "{bad}");
        }
    }
}
