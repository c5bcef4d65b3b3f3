//! The PCFG SET interpreter: the ground-truth program of the task.
//!
//! Grammar (Hupkes et al. 2020, Figure 2): `X -> F_unary X | F_binary X , X | S`, where `S` is a
//! non-empty run of letter tokens (`A`..`Z` with an optional number, e.g. `A1`..`Z20`).
//! Semantics (their Figure 3), on token sequences:
//!
//! | function | meaning |
//! |---|---|
//! | `copy x` | x |
//! | `reverse x` | x reversed |
//! | `shift x` | x with its first token moved to the end |
//! | `echo x` | x followed by its last token |
//! | `swap_first_last x` | x with its first and last tokens exchanged |
//! | `repeat x` | x x |
//! | `append x , y` | x y |
//! | `prepend x , y` | y x |
//! | `remove_first x , y` | y |
//! | `remove_second x , y` | x |
//!
//! A function name with the suffix `_twin` is the substitutivity test's synonym of that
//! function. [`Semantics::Exceptions`] is the overgeneralisation test's remapping (their Table
//! 2); its precedence rule was recovered from the published exception files (see
//! [`remap_exceptions`]).

use crate::error::{KcompError, Result};

/// Nesting limit of the parser (the published files nest at most 35 functions); deeper input
/// is an error rather than a stack overflow.
pub const MAX_DEPTH: usize = 512;

/// Default limit on the number of output tokens: `repeat` doubles, so 35 nested repeats would
/// otherwise ask for 2^35 tokens. Checked before every allocation.
pub const DEFAULT_MAX_OUTPUT: usize = 1 << 20;

/// The ten interpretation functions, in the order of the published README.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Function {
    Copy,
    Reverse,
    Shift,
    Echo,
    SwapFirstLast,
    Repeat,
    Append,
    Prepend,
    RemoveFirst,
    RemoveSecond,
}

impl Function {
    /// All ten functions (six unary, then four binary).
    pub const ALL: [Function; 10] = [
        Function::Copy,
        Function::Reverse,
        Function::Shift,
        Function::Echo,
        Function::SwapFirstLast,
        Function::Repeat,
        Function::Append,
        Function::Prepend,
        Function::RemoveFirst,
        Function::RemoveSecond,
    ];

    /// The token naming the function in PCFG SET input sequences.
    pub fn name(self) -> &'static str {
        match self {
            Function::Copy => "copy",
            Function::Reverse => "reverse",
            Function::Shift => "shift",
            Function::Echo => "echo",
            Function::SwapFirstLast => "swap_first_last",
            Function::Repeat => "repeat",
            Function::Append => "append",
            Function::Prepend => "prepend",
            Function::RemoveFirst => "remove_first",
            Function::RemoveSecond => "remove_second",
        }
    }

    /// Number of string arguments (1 or 2).
    pub fn arity(self) -> usize {
        match self {
            Function::Append
            | Function::Prepend
            | Function::RemoveFirst
            | Function::RemoveSecond => 2,
            _ => 1,
        }
    }

    /// The function a token names, and whether it is the `_twin` synonym.
    pub fn from_token(token: &str) -> Option<(Function, bool)> {
        let (base, twin) = match token.strip_suffix("_twin") {
            Some(base) => (base, true),
            None => (token, false),
        };
        Function::ALL
            .into_iter()
            .find(|f| f.name() == base)
            .map(|f| (f, twin))
    }

    /// Output length for arguments of the given lengths (saturating; callers compare it with
    /// their limit before allocating).
    pub fn output_len(self, a: usize, b: usize) -> usize {
        match self {
            Function::Copy | Function::Reverse | Function::Shift | Function::SwapFirstLast => a,
            Function::Echo => a.saturating_add(1),
            Function::Repeat => a.saturating_mul(2),
            Function::Append | Function::Prepend => a.saturating_add(b),
            Function::RemoveFirst => b,
            Function::RemoveSecond => a,
        }
    }

    /// Applies a unary function to a string.
    pub fn apply_unary<T: Clone>(self, mut x: Vec<T>) -> Vec<T> {
        match self {
            Function::Copy => x,
            Function::Reverse => {
                x.reverse();
                x
            }
            Function::Shift => {
                if !x.is_empty() {
                    x.rotate_left(1);
                }
                x
            }
            Function::Echo => {
                if let Some(last) = x.last().cloned() {
                    x.push(last);
                }
                x
            }
            Function::SwapFirstLast => {
                if let Some(n) = x.len().checked_sub(1) {
                    x.swap(0, n);
                }
                x
            }
            Function::Repeat => {
                x.extend_from_within(..);
                x
            }
            _ => unreachable!("binary function applied to one argument"),
        }
    }

    /// Applies a binary function to two strings.
    pub fn apply_binary<T>(self, mut a: Vec<T>, mut b: Vec<T>) -> Vec<T> {
        match self {
            Function::Append => {
                a.append(&mut b);
                a
            }
            Function::Prepend => {
                b.append(&mut a);
                b
            }
            Function::RemoveFirst => b,
            Function::RemoveSecond => a,
            _ => unreachable!("unary function applied to two arguments"),
        }
    }
}

/// Which interpretation functions apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Semantics {
    /// The compositional interpretation of every PCFG SET file except the exceptions.
    #[default]
    Standard,
    /// The overgeneralisation test's exceptions (Table 2 of the paper) applied first.
    Exceptions,
}

/// A parsed input sequence. String leaves borrow the input's tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr<'a> {
    /// A run of letter tokens.
    Str(Vec<&'a str>),
    /// A unary function applied to one argument.
    Unary(Function, Box<Expr<'a>>),
    /// A binary function applied to two arguments.
    Binary(Function, Box<Expr<'a>>, Box<Expr<'a>>),
}

impl<'a> Expr<'a> {
    /// Number of function tokens (the productivity split's criterion).
    pub fn functions(&self) -> usize {
        match self {
            Expr::Str(_) => 0,
            Expr::Unary(_, x) => 1 + x.functions(),
            Expr::Binary(_, a, b) => 1 + a.functions() + b.functions(),
        }
    }

    /// Depth of the parse tree in function applications (a string has depth 0).
    pub fn depth(&self) -> usize {
        match self {
            Expr::Str(_) => 0,
            Expr::Unary(_, x) => 1 + x.depth(),
            Expr::Binary(_, a, b) => 1 + a.depth().max(b.depth()),
        }
    }

    /// Evaluates the expression; errors if an intermediate result would exceed `max_output`
    /// tokens (checked before allocating).
    pub fn eval(&self, max_output: usize) -> Result<Vec<&'a str>> {
        let out = match self {
            Expr::Str(s) => s.clone(),
            Expr::Unary(f, x) => {
                let x = x.eval(max_output)?;
                check_len(f.output_len(x.len(), 0), max_output)?;
                f.apply_unary(x)
            }
            Expr::Binary(f, a, b) => {
                let a = a.eval(max_output)?;
                let b = b.eval(max_output)?;
                check_len(f.output_len(a.len(), b.len()), max_output)?;
                f.apply_binary(a, b)
            }
        };
        Ok(out)
    }
}

fn check_len(n: usize, max_output: usize) -> Result<()> {
    if n > max_output {
        return Err(KcompError::param(
            "max-output",
            format!("the output would have {n} tokens, more than the limit of {max_output}"),
        ));
    }
    Ok(())
}

/// A token quoted for an error message: escaped and cut, since it was read from a file.
pub fn quote(token: &str) -> String {
    let cut: String = token.chars().take(32).collect();
    let more = if cut.len() < token.len() { "..." } else { "" };
    format!("\"{}{more}\"", cut.escape_debug())
}

/// Whether a token is a letter of the string alphabet: one ASCII capital and optional digits.
pub fn is_symbol(token: &str) -> bool {
    let mut chars = token.chars();
    matches!(chars.next(), Some('A'..='Z')) && chars.all(|c| c.is_ascii_digit())
}

/// Parses a whitespace-separated input sequence.
pub fn parse<'a>(tokens: &[&'a str]) -> Result<Expr<'a>> {
    let mut pos = 0;
    let expr = parse_at(tokens, &mut pos, 0)?;
    if pos != tokens.len() {
        return Err(KcompError::Other(format!(
            "unexpected token {} at position {} after a complete expression",
            quote(tokens[pos]),
            pos + 1
        )));
    }
    Ok(expr)
}

fn parse_at<'a>(tokens: &[&'a str], pos: &mut usize, depth: usize) -> Result<Expr<'a>> {
    if depth > MAX_DEPTH {
        return Err(KcompError::Other(format!(
            "functions nested deeper than {MAX_DEPTH}"
        )));
    }
    let Some(&token) = tokens.get(*pos) else {
        return Err(KcompError::Other(
            "the sequence ends where an argument is expected".into(),
        ));
    };
    if let Some((f, _twin)) = Function::from_token(token) {
        *pos += 1;
        let a = parse_at(tokens, pos, depth + 1)?;
        if f.arity() == 1 {
            return Ok(Expr::Unary(f, Box::new(a)));
        }
        match tokens.get(*pos) {
            Some(&",") => *pos += 1,
            Some(other) => {
                return Err(KcompError::Other(format!(
                    "expected \",\" between the arguments of {} at position {}, found {}",
                    f.name(),
                    *pos + 1,
                    quote(other)
                )));
            }
            None => {
                return Err(KcompError::Other(format!(
                    "{} lacks its second argument",
                    f.name()
                )));
            }
        }
        let b = parse_at(tokens, pos, depth + 1)?;
        return Ok(Expr::Binary(f, Box::new(a), Box::new(b)));
    }
    let start = *pos;
    while let Some(&t) = tokens.get(*pos) {
        if !is_symbol(t) {
            break;
        }
        *pos += 1;
    }
    if *pos == start {
        return Err(KcompError::Other(format!(
            "expected a function or a letter at position {}, found {}",
            start + 1,
            quote(token)
        )));
    }
    Ok(Expr::Str(tokens[start..*pos].to_vec()))
}

/// An adjacent pair of function names.
pub type Pair = (&'static str, &'static str);

/// The overgeneralisation test's exceptions (Hupkes et al. 2020, Table 2): an adjacent pair of
/// function tokens and the pair it is remapped to.
pub const EXCEPTIONS: [(Pair, Pair); 4] = [
    (("reverse", "echo"), ("echo", "copy")),
    (("prepend", "remove_first"), ("remove_second", "append")),
    (("echo", "remove_first"), ("copy", "append")),
    (("prepend", "reverse"), ("remove_second", "echo")),
];

/// Applies the exceptions to a token sequence: the first pair in [`EXCEPTIONS`] order that
/// occurs in the sequence is remapped at every occurrence; the other pairs are left alone.
///
/// The paper states the pairs but not what happens when a sequence holds two of them. This
/// rule reproduces all 747 targets of the four published `test_pcfg_ratio=*_exception` files;
/// remapping every pair left to right misses 10 of the 554 at ratio 0.005 (e.g. `prepend
/// reverse echo ...`, where the data remap `reverse echo` and keep `prepend reverse`).
pub fn remap_exceptions<'a>(tokens: &[&'a str]) -> Vec<&'a str> {
    let mut out = tokens.to_vec();
    for ((first, second), (to_first, to_second)) in EXCEPTIONS {
        let hits: Vec<usize> = (0..out.len().saturating_sub(1))
            .filter(|&i| out[i] == first && out[i + 1] == second)
            .collect();
        if !hits.is_empty() {
            for i in hits {
                out[i] = to_first;
                out[i + 1] = to_second;
            }
            return out;
        }
    }
    out
}

/// Parses and evaluates one input sequence (tokens separated by whitespace).
pub fn evaluate_sequence(
    source: &str,
    semantics: Semantics,
    max_output: usize,
) -> Result<Vec<&str>> {
    let tokens: Vec<&str> = source.split_whitespace().collect();
    let tokens = match semantics {
        Semantics::Standard => tokens,
        Semantics::Exceptions => remap_exceptions(&tokens),
    };
    parse(&tokens)?.eval(max_output)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(s: &str) -> String {
        evaluate_sequence(s, Semantics::Standard, DEFAULT_MAX_OUTPUT)
            .unwrap()
            .join(" ")
    }

    #[test]
    fn paper_examples() {
        // Hupkes et al. 2020, section 4.2.
        assert_eq!(run("repeat A B C"), "A B C A B C");
        assert_eq!(run("echo remove_first D , E F"), "E F F");
        assert_eq!(
            run("append swap_first_last F G H , repeat I J"),
            "H G F I J I J"
        );
    }

    #[test]
    fn exceptions_table_2() {
        let ex = |s| {
            evaluate_sequence(s, Semantics::Exceptions, DEFAULT_MAX_OUTPUT)
                .unwrap()
                .join(" ")
        };
        assert_eq!(ex("reverse echo A B C"), "A B C C");
        assert_eq!(ex("prepend remove_first A , B , C"), "A B");
        assert_eq!(ex("echo remove_first A , B C"), "A B C");
        assert_eq!(ex("prepend reverse A B , C"), "A B B");
    }

    #[test]
    fn repeat_bomb_is_an_error_not_an_allocation() {
        let src = format!("{}A B", "repeat ".repeat(40));
        let err = evaluate_sequence(&src, Semantics::Standard, DEFAULT_MAX_OUTPUT).unwrap_err();
        assert!(err.to_string().contains("max-output"), "{err}");
    }
}
