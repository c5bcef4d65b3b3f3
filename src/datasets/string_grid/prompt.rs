//! Prompts for the string-to-grid task. The paper does not print its prompt verbatim; the
//! `published` style follows its description (all d samples, a Python program describing the
//! generation rule), `stdin` also states the I/O contract the evaluator relies on, and
//! [`result_prompt`] is Section 5.2's result-generation prompt (8 samples + one query).

use super::Record;
use crate::error::{KcompError, Result};

/// Prompt styles for the rule-generation prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptStyle {
    /// The paper's rule-generation prompt.
    Published,
    /// The same plus the stdin/stdout contract of the evaluator.
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

fn samples_block(inputs: &[String], outputs: &[String]) -> String {
    let mut s = String::new();
    for (i, (x, y)) in inputs.iter().zip(outputs).enumerate() {
        s.push_str(&format!("Sample {}\nInput: {x}\nOutput:\n{y}\n\n", i + 1));
    }
    s
}

/// The rule-generation prompt for a record.
pub fn rule_prompt(record: &Record, style: PromptStyle) -> String {
    let mut p = String::from(
        "Each input below is a string of 4 letters separated by spaces; each output is a 4x4 \
         grid of '.' and '*'. Observe all the samples and write a Python program that \
         describes the rule generating the output from the input.\n\n",
    );
    p.push_str(&samples_block(&record.input, &record.output));
    match style {
        PromptStyle::Published => {
            p.push_str("Write the program in a ```python code block.\n");
        }
        PromptStyle::Stdin => p.push_str(
            "Write the program in a single ```python code block. It must read one input string \
             (e.g. \"A C E G\") from standard input and print the 4 rows of the grid to \
             standard output, one row per line, with nothing else printed. Do not hard-code \
             the samples if a more general rule describes them.\n",
        ),
    }
    p
}

/// Section 5.2's result-generation prompt: 8 samples of the record and the query sample
/// `query` (an index into the record, normally >= 8) whose output the model must give.
pub fn result_prompt(record: &Record, query: usize) -> Result<String> {
    let n = record.input.len();
    if n < 9 || query >= n || query < 8 {
        return Err(KcompError::param(
            "query",
            format!("must be in 8..{n} (the first 8 samples are the shots)"),
        ));
    }
    let mut p = String::from(
        "Each input below is a string of 4 letters separated by spaces; each output is a 4x4 \
         grid of '.' and '*'. Based on the samples, give the output for the last input. Answer \
         with the 4 rows of the grid only.\n\n",
    );
    p.push_str(&samples_block(&record.input[..8], &record.output[..8]));
    p.push_str(&format!("Input: {}\nOutput:\n", record.input[query]));
    Ok(p)
}

/// The predicted grid of a result-generation answer: the last run of 4 consecutive lines made
/// only of '.' and '*' (4 characters each).
pub fn parse_result_answer(answer: &str) -> Option<String> {
    let lines: Vec<&str> = answer.lines().map(str::trim).collect();
    let ok = |l: &str| l.len() == 4 && l.chars().all(|c| c == '.' || c == '*');
    (0..lines.len().saturating_sub(3))
        .rev()
        .find(|&i| lines[i..i + 4].iter().all(|l| ok(l)))
        .map(|i| lines[i..i + 4].join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_answer_takes_last_grid() {
        let a = "Sure:\n```\n*..*\n....\n****\n.*.*\n```\nso\n**..\n....\n....\n....";
        assert_eq!(parse_result_answer(a).unwrap(), "**..\n....\n....\n....");
        assert_eq!(parse_result_answer("no grid"), None);
    }
}
