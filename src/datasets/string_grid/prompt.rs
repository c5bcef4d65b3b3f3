//! Prompts for the string-to-grid task. The `published` style is the published repository's
//! rule-generation prompt (`prompt_en.txt` filled by `generate_prompt`), `stdin` also states
//! the I/O contract the evaluator relies on, and [`result_prompt`] is the result-generation
//! prompt of the paper's Table 3 (`generate_prompt_cg`: 8 samples, then the query input).

use super::Record;
use crate::error::{KcompError, Result};

/// Prompt styles for the rule-generation prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptStyle {
    /// The paper's rule-generation prompt, verbatim.
    Published,
    /// kcomp's prompt: also states the stdin/stdout contract of the evaluator.
    Stdin,
}

impl PromptStyle {
    /// Parses `published|stdin`.
    pub fn parse(s: &str) -> Result<PromptStyle> {
        match s {
            "published" => Ok(PromptStyle::Published),
            "stdin" => Ok(PromptStyle::Stdin),
            o => Err(KcompError::param(
                "style",
                format!("unknown style `{o}` (expected published or stdin)"),
            )),
        }
    }
}

/// The published rule-generation instruction (`prompt_en.txt`); `[samples]` is replaced by
/// the samples.
const PUBLISHED_PROMPT: &str = "Write a Python program that conforms to the following samples. \
You should try to find patterns in the samples, but it is permissible to use the samples \
directly in your program.\n[samples]";

/// Samples as the published `generate_prompt` writes them.
fn published_samples(inputs: &[String], outputs: &[String]) -> String {
    inputs
        .iter()
        .zip(outputs)
        .map(|(i, o)| format!("Input:\n{i}\nOutput:\n{o}\n"))
        .collect()
}

fn samples_block(inputs: &[String], outputs: &[String]) -> String {
    let mut s = String::new();
    for (i, (x, y)) in inputs.iter().zip(outputs).enumerate() {
        s.push_str(&format!("Sample {}\nInput: {x}\nOutput:\n{y}\n\n", i + 1));
    }
    s
}

/// (letters per input, grid side) of a record, for the wording of kcomp's prompt.
fn shape(record: &Record) -> (usize, usize) {
    let k = record
        .input
        .first()
        .map_or(4, |x| x.split_whitespace().count());
    let side = record.output.first().map_or(4, |g| g.lines().count());
    (k, side)
}

/// The rule-generation prompt for a record.
pub fn rule_prompt(record: &Record, style: PromptStyle) -> String {
    match style {
        PromptStyle::Published => PUBLISHED_PROMPT.replace(
            "[samples]",
            &published_samples(&record.input, &record.output),
        ),
        PromptStyle::Stdin => {
            let (k, side) = shape(record);
            let mut p = format!(
                "Each input below is a string of {k} letters separated by spaces; each output \
                 is a {side}x{side} grid of '.' and '*'. Observe all the samples and write a \
                 Python program that describes the rule generating the output from the \
                 input.\n\n"
            );
            p.push_str(&samples_block(&record.input, &record.output));
            p.push_str(&format!(
                "Write the program in a single ```python code block. It must read one input \
                 string (e.g. \"{}\") from standard input and print the {side} rows of the \
                 grid to standard output, one row per line, with nothing else printed. Do not \
                 hard-code the samples if a more general rule describes them.\n",
                record.input.first().map_or("A C E G", String::as_str)
            ));
            p
        }
    }
}

/// Shots of the result-generation prompt.
pub const RESULT_SHOTS: usize = 8;

/// The result-generation prompt (`generate_prompt_cg`): the first 8 samples, then the input
/// of sample `query` (the published code asks the last one, `d - 1`).
pub fn result_prompt(record: &Record, query: usize) -> Result<String> {
    let n = record.input.len();
    if n <= RESULT_SHOTS || query >= n || query < RESULT_SHOTS {
        return Err(KcompError::param(
            "query",
            format!("must be in {RESULT_SHOTS}..{n} (the first 8 samples are the shots)"),
        ));
    }
    let mut p = published_samples(
        &record.input[..RESULT_SHOTS],
        &record.output[..RESULT_SHOTS],
    );
    p.push_str(&format!(
        "Input:\n{}\nOutput (Only output the answer, not the process) :",
        record.input[query]
    ));
    Ok(p)
}

/// Python's `str.strip()` with no argument, the reference evaluator's whitespace rule: Rust's
/// `trim` (Unicode White_Space) plus the information separators U+001C..U+001F, which
/// CPython counts as whitespace (`Py_UNICODE_ISSPACE`) and Rust does not. A grid printed
/// after `\x1c` is right for the evaluator, so it is right for kcomp.
pub fn python_strip(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

/// Whether a result-generation answer is right, exactly as `program_eval_cg.py` decides:
/// every line that, stripped, is `side` characters of '.' and '*' is kept, the kept lines are
/// joined, and the join must equal the gold grid without its newlines.
pub fn result_answer_correct(answer: &str, gold: &str) -> bool {
    let side = gold.lines().next().map_or(0, |l| python_strip(l).len());
    let got: String = answer
        .lines()
        .map(python_strip)
        .filter(|l| l.chars().count() == side && l.chars().all(|c| c == '.' || c == '*'))
        .collect();
    got == gold.replace('\n', "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stripping_follows_python() {
        // Every character CPython's str.strip() removes (str.isspace() over the BMP, as
        // computed by CPython 3.11), and nothing else.
        let python: Vec<u32> = vec![
            0x9, 0xa, 0xb, 0xc, 0xd, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000,
            0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028,
            0x2029, 0x202f, 0x205f, 0x3000,
        ];
        for c in (0..0x1_0000u32).filter_map(char::from_u32) {
            let s = format!("{c}x{c}");
            let want = if python.contains(&(c as u32)) {
                "x"
            } else {
                s.as_str()
            };
            assert_eq!(python_strip(&s), want, "U+{:04X}", c as u32);
        }
        assert_eq!(python_strip("\x1c\x1d**..\n....\x1f \n"), "**..\n....");
    }

    #[test]
    fn result_answers_are_judged_like_the_published_code() {
        let gold = "**..\n....\n....\n...*";
        assert!(result_answer_correct("**..\n....\n....\n...*", gold));
        // Lines may be indented or split by prose: every grid line counts.
        assert!(result_answer_correct(
            "Answer:\n  **..\nthen\n....\n....\n...*\n",
            gold
        ));
        // An echoed shot adds lines and makes the answer wrong, as in the published code.
        assert!(!result_answer_correct("....\n**..\n....\n....\n...*", gold));
        assert!(!result_answer_correct("", gold));
    }

    #[test]
    fn published_prompts_are_verbatim() {
        let rec = Record {
            input: (0..9).map(|i| format!("A C E {i}")).collect(),
            output: (0..9).map(|i| format!("g{i}")).collect(),
        };
        let p = rule_prompt(&rec, PromptStyle::Published);
        assert!(p.starts_with("Write a Python program that conforms to the following samples."));
        assert!(p.ends_with("Input:\nA C E 8\nOutput:\ng8\n"));
        let r = result_prompt(&rec, 8).unwrap();
        assert!(r.starts_with("Input:\nA C E 0\nOutput:\ng0\nInput:\n"));
        assert!(r.ends_with(
            "Output:\ng7\nInput:\nA C E 8\nOutput (Only output the answer, not the process) :"
        ));
    }
}
