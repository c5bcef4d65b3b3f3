//! `l_bits`: the description length of a program in bits under one fixed code, an upper bound
//! on K of the mapping the program computes (up to the constant of the decoder).
//!
//! The program is read as Python tokens; comments and non-logical newlines (blank lines,
//! breaks inside brackets) are dropped, so layout costs nothing, and indentation is coded as
//! INDENT/DEDENT tokens whatever its width. Each remaining token is coded with an adaptive
//! Krichevsky-Trofimov (KT) estimator, p(x) = (n_x + 1/2) / (n + K/2), the ideal length of an
//! adaptive arithmetic code (a real arithmetic coder is within 2 bits of it):
//!
//! - the token kind over a fixed alphabet of [`TOKEN_KINDS`] kinds (keywords, operators,
//!   NEWLINE, INDENT, ..., end of file);
//! - a name the program binds (variables, functions, classes, parameters, `as` names,
//!   attributes it stores, keyword arguments of its own parameters) is renamed canonically: it
//!   is coded as "the k-th distinct bound name" or "a new one" (KT over the names so far + 1),
//!   so two programs that differ only in such names get the same length; any other name
//!   (builtins, modules, library attributes) is spelled out;
//! - literal values, not their spelling: a string's value (quotes, prefixes and escapes do
//!   not matter; one KT bit says str or bytes), an int in decimal, a float or complex by its
//!   Python repr; f-string text as written. Characters go through an adaptive model over the
//!   128 ASCII characters + end-of-literal + escape; an escaped (non-ASCII) character costs
//!   log2(0x110000 - 0x880) bits more. Names have a character model of their own.
//!
//! Docstrings are string tokens, so they are counted: they are data the program carries.
//! Every literal character is coded, whatever the literal's type, so hiding a table in
//! floats, names that are read back, or a decoded blob does not shorten l_bits below the
//! information it holds. A program that does not parse costs 8 bits per byte.
//!
//! The models are hand-written: they are a few lines and the crates of arithmetic coders
//! encode bytes, not the ideal length of a token stream, which is all that is needed here.

use std::collections::{HashMap, HashSet};

use ruff_python_ast::token::TokenKind;
use ruff_python_ast::visitor::{
    Visitor, walk_expr, walk_keyword, walk_parameter, walk_pattern, walk_stmt,
};
use ruff_python_ast::{Expr, ExprContext, Keyword, Number, Parameter, Pattern, Stmt, StmtClassDef};
use ruff_text_size::Ranged;

/// Size of the fixed token-kind alphabet (ruff's `TokenKind` has fewer variants).
pub const TOKEN_KINDS: u32 = 128;
/// ASCII + end of literal + escape.
const CHAR_SYMBOLS: u32 = 130;
const END: u32 = 128;
const ESC: u32 = 129;

/// log2 of the number of non-ASCII Unicode scalar values (surrogates excluded).
fn escaped_char_bits() -> f64 {
    f64::from(0x11_0000u32 - 0x800 - 0x80).log2()
}

/// An adaptive KT model over a fixed alphabet.
struct Kt {
    counts: HashMap<u32, u32>,
    total: u32,
    alphabet: u32,
}

impl Kt {
    fn new(alphabet: u32) -> Self {
        Kt {
            counts: HashMap::new(),
            total: 0,
            alphabet,
        }
    }

    /// Code length of `sym` in bits, then counts it.
    fn code(&mut self, sym: u32) -> f64 {
        let c = self.counts.entry(sym).or_insert(0);
        let p = (f64::from(*c) + 0.5) / (f64::from(self.total) + f64::from(self.alphabet) / 2.0);
        *c += 1;
        self.total += 1;
        -p.log2()
    }
}

/// Characters of a literal or a name, then end-of-literal.
fn code_chars(model: &mut Kt, text: &str) -> f64 {
    let mut bits = 0.0;
    for ch in text.chars() {
        if ch.is_ascii() {
            bits += model.code(ch as u32);
        } else {
            bits += model.code(ESC) + escaped_char_bits();
        }
    }
    bits + model.code(END)
}

/// The renamed-name model: the k-th distinct bound name, or a new one (symbol 0).
struct NameModel {
    ids: HashMap<String, u32>,
    kt: Kt,
}

impl NameModel {
    fn code(&mut self, name: &str) -> f64 {
        let next = self.ids.len() as u32 + 1;
        // The alphabet is the names so far plus "new"; counts sum to the total, so the KT
        // probabilities stay normalised as the alphabet grows.
        self.kt.alphabet = next;
        match self.ids.get(name) {
            Some(&id) => self.kt.code(id),
            None => {
                self.ids.insert(name.to_string(), next);
                self.kt.code(0)
            }
        }
    }
}

fn is_dunder(s: &str) -> bool {
    s.len() > 4 && s.starts_with("__") && s.ends_with("__")
}

/// Where identifiers stand in the source, and which names the program binds.
#[derive(Default)]
struct Binder {
    /// (start offset, text): identifiers in a binding or variable position.
    vars: Vec<(usize, String)>,
    /// Attribute names (after a dot).
    attrs: Vec<(usize, String)>,
    /// Keyword-argument names at call sites.
    keywords: Vec<(usize, String)>,
    bound: HashSet<String>,
    stored_attrs: HashSet<String>,
    params: HashSet<String>,
}

impl Binder {
    fn bind(&mut self, id: &ruff_python_ast::Identifier) {
        self.bound.insert(id.as_str().to_string());
        self.vars
            .push((id.range.start().to_usize(), id.as_str().to_string()));
    }

    fn class_members(&mut self, c: &StmtClassDef) {
        for s in c.body.iter() {
            match s {
                Stmt::FunctionDef(f) => {
                    self.stored_attrs.insert(f.name.to_string());
                }
                Stmt::Assign(a) => {
                    for t in &a.targets {
                        if let Expr::Name(n) = t {
                            self.stored_attrs.insert(n.id.to_string());
                        }
                    }
                }
                Stmt::AnnAssign(a) => {
                    if let Expr::Name(n) = &*a.target {
                        self.stored_attrs.insert(n.id.to_string());
                    }
                }
                _ => {}
            }
        }
    }
}

impl<'a> Visitor<'a> for Binder {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::FunctionDef(f) => self.bind(&f.name),
            Stmt::ClassDef(c) => {
                self.bind(&c.name);
                self.class_members(c);
            }
            Stmt::Global(g) => g.names.iter().for_each(|n| self.bind(n)),
            Stmt::Nonlocal(g) => g.names.iter().for_each(|n| self.bind(n)),
            Stmt::Import(i) => i
                .names
                .iter()
                .filter_map(|a| a.asname.as_ref())
                .for_each(|n| self.bind(n)),
            Stmt::ImportFrom(i) => i
                .names
                .iter()
                .filter_map(|a| a.asname.as_ref())
                .for_each(|n| self.bind(n)),
            Stmt::Try(t) => {
                for h in &t.handlers {
                    let ruff_python_ast::ExceptHandler::ExceptHandler(h) = h;
                    if let Some(n) = &h.name {
                        self.bind(n);
                    }
                }
            }
            _ => {}
        }
        walk_stmt(self, stmt);
    }

    fn visit_parameter(&mut self, p: &'a Parameter) {
        self.params.insert(p.name.to_string());
        self.bind(&p.name);
        walk_parameter(self, p);
    }

    fn visit_keyword(&mut self, k: &'a Keyword) {
        if let Some(arg) = &k.arg {
            self.keywords
                .push((arg.range.start().to_usize(), arg.to_string()));
        }
        walk_keyword(self, k);
    }

    fn visit_pattern(&mut self, p: &'a Pattern) {
        match p {
            Pattern::MatchAs(m) => {
                if let Some(n) = &m.name {
                    self.bind(n);
                }
            }
            Pattern::MatchStar(m) => {
                if let Some(n) = &m.name {
                    self.bind(n);
                }
            }
            Pattern::MatchMapping(m) => {
                if let Some(n) = &m.rest {
                    self.bind(n);
                }
            }
            _ => {}
        }
        walk_pattern(self, p);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Name(n) => {
                if !matches!(n.ctx, ExprContext::Load) {
                    self.bound.insert(n.id.to_string());
                }
                self.vars
                    .push((n.range.start().to_usize(), n.id.to_string()));
            }
            Expr::Attribute(a) => {
                if !matches!(a.ctx, ExprContext::Load) {
                    self.stored_attrs.insert(a.attr.to_string());
                }
                self.attrs
                    .push((a.attr.range.start().to_usize(), a.attr.to_string()));
            }
            _ => {}
        }
        walk_expr(self, expr);
    }
}

/// Canonical text of the literal tokens (by start offset) and which name tokens are renamed.
#[derive(Default)]
struct Canon {
    literals: HashMap<usize, (bool, String)>,
    numbers: HashMap<usize, String>,
}

impl<'a> Visitor<'a> for Canon {
    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::StringLiteral(s) => {
                for part in s.value.iter() {
                    self.literals.insert(
                        part.range.start().to_usize(),
                        (false, part.value.to_string()),
                    );
                }
            }
            Expr::BytesLiteral(b) => {
                for part in b.value.iter() {
                    // Bytes as Latin-1 characters: one symbol per byte.
                    let text: String = part.value.iter().map(|&c| char::from(c)).collect();
                    self.literals
                        .insert(part.range.start().to_usize(), (true, text));
                }
            }
            Expr::NumberLiteral(n) => {
                let text = match &n.value {
                    Number::Int(i) => i.to_string(),
                    Number::Float(f) => super::pyval::repr_float(*f),
                    Number::Complex { real, imag } => {
                        super::pyval::PyVal::Complex(*real, *imag).py_repr()
                    }
                };
                self.numbers.insert(n.range.start().to_usize(), text);
            }
            _ => {}
        }
        walk_expr(self, expr);
    }
}

/// `l_bits` of a program (see the module docs).
pub fn l_bits(code: &str) -> f64 {
    let Some(parsed) = super::parse_guarded(code) else {
        return 8.0 * code.len() as f64;
    };
    let body = &parsed.syntax().body;
    let mut binder = Binder::default();
    let mut canon = Canon::default();
    for s in body {
        binder.visit_stmt(s);
        canon.visit_stmt(s);
    }
    let mut renamed: HashSet<usize> = HashSet::new();
    for (at, name) in &binder.vars {
        if binder.bound.contains(name) && !is_dunder(name) {
            renamed.insert(*at);
        }
    }
    for (at, name) in &binder.attrs {
        if binder.stored_attrs.contains(name) && !is_dunder(name) {
            renamed.insert(*at);
        }
    }
    for (at, name) in &binder.keywords {
        if binder.params.contains(name) && !is_dunder(name) {
            renamed.insert(*at);
        }
    }

    let mut kinds = Kt::new(TOKEN_KINDS);
    let mut names = NameModel {
        ids: HashMap::new(),
        kt: Kt::new(1),
    };
    let mut spelled = Kt::new(CHAR_SYMBOLS);
    let mut renamed_flag = Kt::new(2);
    let mut literal_chars = Kt::new(CHAR_SYMBOLS);
    let mut string_type = Kt::new(2);
    let mut bits = 0.0;
    let toks: Vec<_> = parsed
        .tokens()
        .iter()
        .filter(|t| !matches!(t.kind(), TokenKind::Comment | TokenKind::NonLogicalNewline))
        .collect();
    for (i, tok) in toks.iter().enumerate() {
        let kind = tok.kind();
        // A trailing comma before `]` or `}` is layout (before `)` it can make a tuple).
        if kind == TokenKind::Comma
            && toks
                .get(i + 1)
                .is_some_and(|n| matches!(n.kind(), TokenKind::Rsqb | TokenKind::Rbrace))
        {
            continue;
        }
        bits += kinds.code(kind as u32);
        let start = tok.range().start().to_usize();
        let text = code.get(tok.range().start().to_usize()..tok.range().end().to_usize());
        let text = text.unwrap_or("");
        match kind {
            TokenKind::Name => {
                if renamed.contains(&start) {
                    bits += renamed_flag.code(1) + names.code(text);
                } else {
                    bits += renamed_flag.code(0) + code_chars(&mut spelled, text);
                }
            }
            TokenKind::String => {
                let (is_bytes, value) = canon
                    .literals
                    .get(&start)
                    .cloned()
                    .unwrap_or((false, text.to_string()));
                bits += string_type.code(u32::from(is_bytes));
                bits += code_chars(&mut literal_chars, &value);
            }
            TokenKind::Int | TokenKind::Float | TokenKind::Complex => {
                let value = canon.numbers.get(&start).map_or(text, String::as_str);
                bits += code_chars(&mut literal_chars, value);
            }
            TokenKind::FStringMiddle | TokenKind::TStringMiddle => {
                bits += code_chars(&mut literal_chars, text);
            }
            _ => {}
        }
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_comments_and_layout_do_not_change_l_bits() {
        let a = "ROWS = {'A': '**..', 'B': '..**'}\ndef show(s):\n    return ROWS[s]\nprint(show(input()))\n";
        let b = "# table\nt = {\n    \"A\": \"**..\",  # first\n    \"B\": '..**',\n}\n\n\ndef f(x):\n  return t[x]\nprint( f( input() ) )\n";
        assert_eq!(l_bits(a), l_bits(b));
        // A different literal changes it.
        let c = a.replace("'**..'", "'***.'");
        assert_ne!(l_bits(a), l_bits(&c));
    }

    #[test]
    fn every_literal_type_costs_bits() {
        let base = l_bits("x = 0\nprint(x)\n");
        for more in [
            "x = 0.123456789\nprint(x)\n",
            "x = 3+4.5j\nprint(x)\n",
            "x = 123456789\nprint(x)\n",
            "x = '\u{4e02}\u{4e04}\u{4e08}'\nprint(x)\n",
        ] {
            assert!(l_bits(more) > base + 10.0, "{more}");
        }
        // A docstring is data.
        assert!(l_bits("'''A table: A -> **..'''\nx = 0\nprint(x)\n") > base + 50.0);
        assert_eq!(l_bits("x = ("), 40.0);
    }
}
