//! The localism test's unrolled evaluation (Hupkes et al. 2020, section 6.2.4 and Figure 6):
//! a sequence's computation is split into one step per function application, each step's
//! function arguments replaced by placeholders `*k` naming earlier steps, in the layout of the
//! published `localism/unrolled_test.tsv`.
//!
//! Layout (recovered from the published file; this rule rebuilds all 9,567 of its samples byte
//! for byte): steps in post-order, arguments left to right, numbered from `*1`; a string
//! argument stays inline; a step whose arguments are all strings ends with one space; each
//! step's line is `unrolled<TAB>step<TAB>*k`, except the last step, whose target is the
//! sequence's output; then `original<TAB>sequence<TAB>output`. Sequences with a single
//! function have nothing to unroll and are left out (as in the published file).

use super::interpreter::{DEFAULT_MAX_OUTPUT, Expr, parse};
use crate::error::Result;

fn steps(expr: &Expr<'_>, out: &mut Vec<String>) -> Option<String> {
    let (f, args): (_, Vec<&Expr<'_>>) = match expr {
        Expr::Str(s) => return Some(s.join(" ")),
        Expr::Unary(f, x) => (f, vec![x]),
        Expr::Binary(f, a, b) => (f, vec![a, b]),
    };
    let mut parts = Vec::with_capacity(args.len());
    let mut placeholder = false;
    for a in args {
        match a {
            Expr::Str(s) => parts.push(s.join(" ")),
            _ => {
                steps(a, out);
                parts.push(format!("*{}", out.len()));
                placeholder = true;
            }
        }
    }
    let space = if placeholder { "" } else { " " };
    out.push(format!("{} {}{space}", f.name(), parts.join(" , ")));
    None
}

/// The unrolled lines of one sequence (each ending in a newline), or `None` when it holds a
/// single function.
pub fn unroll(source: &str) -> Result<Option<String>> {
    let tokens: Vec<&str> = source.split_whitespace().collect();
    let expr = parse(&tokens)?;
    if expr.functions() < 2 {
        return Ok(None);
    }
    let output = expr.eval(DEFAULT_MAX_OUTPUT)?.join(" ");
    let mut lines = Vec::new();
    steps(&expr, &mut lines);
    let last = lines.len();
    let mut text = String::new();
    for (k, step) in lines.iter().enumerate() {
        let target = if k + 1 == last {
            output.clone()
        } else {
            format!("*{}", k + 1)
        };
        text.push_str(&format!("unrolled\t{step}\t{target}\n"));
    }
    text.push_str(&format!("original\t{}\t{output}\n", tokens.join(" ")));
    Ok(Some(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_published_first_sample() {
        // The first sample of the published localism/unrolled_test.tsv.
        let got = unroll("reverse shift append V12 P3 R9 J8 , repeat K19 C16 P13")
            .unwrap()
            .unwrap();
        let want = "unrolled\trepeat K19 C16 P13 \t*1\n\
                    unrolled\tappend V12 P3 R9 J8 , *1\t*2\n\
                    unrolled\tshift *2\t*3\n\
                    unrolled\treverse *3\tV12 P13 C16 K19 P13 C16 K19 J8 R9 P3\n\
                    original\treverse shift append V12 P3 R9 J8 , repeat K19 C16 P13\tV12 P13 C16 K19 P13 C16 K19 J8 R9 P3\n";
        assert_eq!(got, want);
        assert_eq!(unroll("copy A B").unwrap(), None);
    }
}
