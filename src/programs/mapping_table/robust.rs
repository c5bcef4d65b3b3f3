//! Robust mapping-table measurement. Instead of the reference's line heuristics, it reads the
//! literal data the program can actually run:
//!
//! - **Liveness**: module-level definitions (assignments, functions, classes, imports) count
//!   only if a live statement uses a name they define (fixed point from the executable
//!   statements); `assert`-only statements (self-tests) and bare string statements
//!   (docstrings, notes) are not live; comments never reach the AST.
//! - **Input side n**: letters 'A'-'H' in *data strings* (strings made only of letters A-H,
//!   grid symbols, digits 0/1, whitespace and punctuation), wherever they hide: dict keys,
//!   comprehensions, triple-quoted tables, conditions.
//! - **Output side m**: '*'/'.' in data strings (or 0/1 when there are no '*'/'.'), 4 bits
//!   per digit of a hex string, 8 bits per byte of a bytes literal, the bit length of ints
//!   stored in collections (and of any int >= 256), 1 per (row, col) coordinate pair.
//! - **Whole-sample entries**: a dict entry whose key names all N = 4 positions, or an entry
//!   of a list/tuple of >= 8 entries, most holding >= 8 output cells and no letters (a table
//!   indexed by the whole input, which also adds N), determines all M = 16 cells however
//!   sparsely its value is written (on-cells only, an int with leading zeros).
//!
//! - **Everything else is accounted in bits** (`measure_bits`): every live literal the table
//!   does not count (other strings at 7 bits per ASCII character and ~20.1 per other one,
//!   ints outside collections at their bit length, floats and complex numbers at log2 10
//!   per digit, booleans, None and `...` at 1 bit), assert messages and asserts with
//!   effects, keyword names read back as keys (`dict(ACEG=...)`, `**kwargs`), and data kept
//!   in the choice of items of long displays or argument lists (`put(T, F, ...)`) or of
//!   repeated statements (`one()`, `zero()`, ...). Class bodies, decorated functions and
//!   assignments with effects are live. `mapping_table::hidden_verdict` flags the answer
//!   when these bits could hold the sample outputs.
//!
//! Prompt and message strings ("Enter the letters: ") count no table entries (only bits). Every literal node is visited once, so nothing is counted twice. Syntax errors
//! give empty counts (such a program fails every sample anyway).

use super::Counts;
use super::space::alphabet;
use ruff_python_ast::visitor::{Visitor, walk_expr, walk_stmt};
use ruff_python_ast::{Expr, ExprContext, InterpolatedStringElement, Number, Stmt};
use std::collections::HashSet;

/// Input positions of the task (N, 4 on the published task).
fn n_positions() -> usize {
    alphabet().positions
}

/// Output cells of the task (M, 16 on the published task).
fn m_cells() -> usize {
    alphabet().cells
}

/// The task's letters ('A'-'H' on the published task) in the string literals of an expression (a dict key).
fn letters_in(e: &Expr) -> usize {
    let mut c = Count::default();
    c.visit_expr(e);
    c.n
}

/// (letters, output cells) of a string literal; (0, 0) unless it is a data string.
///
/// A *rule string* (letters with numbers, and cell symbols, between them: "A0**.. B0..**
/// C1**.*" or "A:0,1 B:2,3", parsed at run time) is a data string too: its letters count as
/// inputs, its symbols as cells, each number below M (a row, column or cell index, as a
/// coordinate pair counts) as one output entry and a larger number as its bit length, and a
/// part naming all N positions (a whole sample) as M cells at least, as a dict key does. Its
/// table is then the one of the same rules written as a dict, so it costs its bits in L(P+)
/// instead of being taken for hidden data.
pub fn classify_string(s: &str) -> (usize, usize) {
    let a = alphabet();
    let allowed = |c: char| {
        c.is_whitespace()
            || a.is_letter(c)
            || matches!(c, '*' | '.' | '0' | '1')
            || ",:;-=>|()[]{}'\"/_".contains(c)
    };
    let rule_string = s.chars().any(|c| a.is_letter(c))
        && s.chars().any(|c| matches!(c, '2'..='9'))
        && s.chars().all(|c| allowed(c) || c.is_ascii_digit());
    if rule_string {
        let (mut letters, mut m) = (0, 0);
        for part in s.split(|c: char| c.is_whitespace() || c == ';' || c == '|') {
            let n = part.chars().filter(|&c| a.is_letter(c)).count();
            let cells =
                part.chars().filter(|&c| c == '*' || c == '.').count() + number_entries(part);
            letters += n;
            m += if n >= n_positions() {
                cells.max(m_cells())
            } else {
                cells
            };
        }
        return (letters, m);
    }
    if !s.chars().all(allowed) {
        let hex = s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
        if hex.len() >= 8 && hex.chars().all(|c| c.is_ascii_hexdigit()) {
            return (0, 4 * hex.len());
        }
        return (0, 0);
    }
    let letters = s.chars().filter(|&c| a.is_letter(c)).count();
    let symbols = s.chars().filter(|&c| c == '*' || c == '.').count();
    let bits = s.chars().filter(|&c| c == '0' || c == '1').count();
    let m = if symbols > 0 {
        symbols
    } else if bits >= 2 {
        bits
    } else {
        0
    };
    (letters, m)
}

/// Output entries of the numbers written in `s`: a number below M addresses a row, column or
/// cell (one entry, as a coordinate pair); a larger one is an int of its bit length, as in a
/// collection.
fn number_entries(s: &str) -> usize {
    s.split(|c: char| !c.is_ascii_digit())
        .filter(|run| !run.is_empty())
        .map(|run| match run.parse::<u64>() {
            Ok(v) if v < m_cells().max(16) as u64 => 1,
            Ok(v) => (64 - v.leading_zeros() as usize).max(1),
            Err(_) => (run.len() as f64 * std::f64::consts::LOG2_10).ceil() as usize,
        })
        .sum()
}

/// (letters, output cells, bits) of a regular expression pattern (the first argument of a
/// `re` function): its syntax (groups, classes, quantifiers, escapes such as `\d`) is code
/// and free, like Python's own syntax; the task's letters and cell symbols in it count as
/// table entries, numbers (quantifier counts, ranges) as entries of their bit length, and any
/// other character as data, 7 bits an ASCII character.
pub fn classify_regex(pattern: &str) -> (usize, usize, f64) {
    let a = alphabet();
    let (mut n, mut m, mut bits) = (0usize, 0usize, 0.0f64);
    let mut digits = String::new();
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        if !digits.is_empty() {
            m += number_entries(&digits);
            digits.clear();
        }
        match c {
            '\\' => {
                // An escape: a class (\d, \w, \s, ...) or an escaped metacharacter is syntax;
                // an escaped other character is a literal.
                match chars.next() {
                    Some(e) if "dDwWsSbBAZnt".contains(e) || !e.is_alphanumeric() => {}
                    Some(e) => bits += string_bits(&e.to_string()),
                    None => {}
                }
            }
            c if a.is_letter(c) => n += 1,
            '*' | '.' => m += 1,
            c if "()[]{}|?+^$-:,=<>!# \t\n".contains(c) => {}
            c => bits += string_bits(&c.to_string()),
        }
    }
    if !digits.is_empty() {
        m += number_entries(&digits);
    }
    (n, m, bits)
}

/// Functions of `re` whose first argument is a pattern.
const REGEX_FUNCTIONS: [&str; 9] = [
    "compile",
    "search",
    "match",
    "fullmatch",
    "findall",
    "finditer",
    "sub",
    "subn",
    "split",
];

/// The pattern literal of a call `re.FUNCTION("...", ...)`, if the call is one.
fn regex_pattern(c: &ruff_python_ast::ExprCall) -> Option<&ruff_python_ast::ExprStringLiteral> {
    let Expr::Attribute(attr) = &*c.func else {
        return None;
    };
    let Expr::Name(module) = &*attr.value else {
        return None;
    };
    if module.id.as_str() != "re" || !REGEX_FUNCTIONS.contains(&attr.attr.as_str()) {
        return None;
    }
    match c.arguments.args.first() {
        Some(Expr::StringLiteral(s)) => Some(s),
        _ => None,
    }
}

fn small_int(e: &Expr) -> Option<u64> {
    match e {
        Expr::NumberLiteral(n) => match &n.value {
            Number::Int(i) => i.as_u64(),
            _ => None,
        },
        _ => None,
    }
}

fn int_bits(e: &Expr) -> Option<usize> {
    match e {
        Expr::NumberLiteral(n) => match &n.value {
            Number::Int(i) => Some(match i.as_u64() {
                Some(v) => (64 - v.leading_zeros() as usize).max(1),
                // Too large for u64: about 3.32 bits per decimal digit.
                None => (i.to_string().len() as f64 * std::f64::consts::LOG2_10).ceil() as usize,
            }),
            _ => None,
        },
        _ => None,
    }
}

/// Bits of a literal string the table does not account for: 7 per ASCII character, log2 of
/// the Unicode code space (about 20.1) per other character.
pub fn string_bits(s: &str) -> f64 {
    s.chars()
        .map(|c| {
            if c.is_ascii() {
                7.0
            } else {
                f64::from(0x11_0000u32).log2()
            }
        })
        .sum()
}

/// Bits of a number literal the table does not account for: an int's bit length (>= 1), a
/// float's or complex's decimal digits at log2 10 bits each.
fn number_bits(n: &Number) -> f64 {
    match n {
        Number::Int(i) => match i.as_u64() {
            Some(v) => f64::from((64 - v.leading_zeros()).max(1)),
            None => i.to_string().len() as f64 * std::f64::consts::LOG2_10,
        },
        Number::Float(f) => digits_bits(&super::pyval::repr_float(*f)),
        Number::Complex { real, imag } => {
            digits_bits(&super::pyval::PyVal::Complex(*real, *imag).py_repr())
        }
    }
}

fn digits_bits(text: &str) -> f64 {
    text.chars().filter(char::is_ascii_digit).count().max(1) as f64 * std::f64::consts::LOG2_10
}

/// Calls that only build values (no side effect on program state).
const PURE_CALLS: &[&str] = &[
    "dict",
    "list",
    "set",
    "tuple",
    "frozenset",
    "range",
    "str",
    "int",
    "float",
    "bool",
    "len",
    "sorted",
    "zip",
    "enumerate",
    "reversed",
    "min",
    "max",
    "sum",
    "abs",
    "ord",
    "chr",
    "repr",
    "bytes",
    "isinstance",
    "any",
    "all",
];

/// Whether evaluating an expression can change program state (a call other than a pure
/// builtin, an assignment expression, a yield).
fn has_effect(e: &Expr) -> bool {
    #[derive(Default)]
    struct Effect(bool);
    impl<'a> Visitor<'a> for Effect {
        fn visit_expr(&mut self, expr: &'a Expr) {
            match expr {
                Expr::Call(c) if !matches!(&*c.func, Expr::Name(n) if PURE_CALLS.contains(&n.id.as_str())) =>
                {
                    self.0 = true;
                }
                Expr::Named(_) | Expr::Yield(_) | Expr::YieldFrom(_) | Expr::Await(_) => {
                    self.0 = true
                }
                _ => {}
            }
            walk_expr(self, expr);
        }
    }
    let mut v = Effect::default();
    v.visit_expr(e);
    v.0
}

/// Counts literal data, knowing whether the parent expression is a collection display.
#[derive(Default)]
struct Count {
    n: usize,
    m: usize,
    parent_is_collection: Vec<bool>,
    in_key: bool,
    /// Bits of literals not counted in the table (see [`string_bits`], [`number_bits`]).
    free_bits: f64,
    /// Functions taking `**kwargs`: keyword names at their call sites are data.
    kwargs_funcs: HashSet<String>,
    /// Parameter names of the program's functions and lambdas.
    own_params: HashSet<String>,
    /// The program catches no exception: a raised message can only reach stderr.
    no_try: bool,
}

/// Whether a call writes only to stderr or exits (`print(..., file=sys.stderr)`,
/// `sys.stderr.write`, `sys.exit`, `exit`, `quit`): its string arguments never reach stdout.
fn stderr_call(c: &ruff_python_ast::ExprCall) -> bool {
    let is_sys = |e: &Expr, attr: &str| {
        matches!(e, Expr::Attribute(a) if a.attr.as_str() == attr
            && matches!(&*a.value, Expr::Name(n) if n.id.as_str() == "sys"))
    };
    match &*c.func {
        Expr::Name(n) if n.id.as_str() == "print" => c.arguments.keywords.iter().any(|k| {
            k.arg.as_ref().is_some_and(|a| a.as_str() == "file") && is_sys(&k.value, "stderr")
        }),
        Expr::Name(n) => matches!(n.id.as_str(), "exit" | "quit"),
        Expr::Attribute(a) => {
            (a.attr.as_str() == "write" && is_sys(&a.value, "stderr")) || is_sys(&c.func, "exit")
        }
        _ => false,
    }
}

/// Whether a module has a `try` statement anywhere.
fn has_try(body: &[Stmt]) -> bool {
    #[derive(Default)]
    struct Try(bool);
    impl<'a> Visitor<'a> for Try {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            if matches!(stmt, Stmt::Try(_)) {
                self.0 = true;
            }
            walk_stmt(self, stmt);
        }
    }
    let mut t = Try::default();
    for s in body {
        t.visit_stmt(s);
    }
    t.0
}

/// A string literal or f-string (a message).
fn is_text(e: &Expr) -> bool {
    matches!(e, Expr::StringLiteral(_) | Expr::FString(_))
}

/// Keyword arguments of the builtins and standard functions programs here call.
const COMMON_KEYWORDS: &[&str] = &[
    "sep",
    "end",
    "file",
    "flush",
    "key",
    "reverse",
    "default",
    "start",
    "maxsplit",
    "base",
    "strict",
    "fillvalue",
    "initial",
    "repeat",
    "r",
    "step",
    "count",
    "flags",
    "width",
    "fill",
];

impl Count {
    fn string(&mut self, s: &str) {
        let (n, m) = classify_string(s);
        if (n, m) == (0, 0) {
            self.free_bits += string_bits(s);
        }
        self.n += n;
        self.packed(n, m);
    }

    /// Adds `m` cells of one literal; a letter-free literal of >= 4 grids' worth of cells is
    /// a packed table indexed by the whole input, so it also carries N per grid.
    fn packed(&mut self, n: usize, m: usize) {
        self.m += m;
        if n == 0 && m >= 4 * m_cells() {
            self.n += n_positions() * m.div_ceil(m_cells());
        }
    }

    /// A long display or argument list whose items are names or calls rather than literals
    /// (`put(T, F, F, T, ...)`, `[one(), zero(), ...]`) stores data in the choice of item:
    /// log2 of the distinct forms per item.
    fn choice_bits(&mut self, elts: &[Expr]) {
        if elts.len() < 8 {
            return;
        }
        let forms: Vec<String> = elts
            .iter()
            .filter(|e| super::pyval::literal_eval(e).is_none())
            .map(|e| super::unparse::unparse(e, ""))
            .collect();
        let distinct = forms.iter().collect::<HashSet<_>>().len();
        if distinct >= 2 {
            self.free_bits += forms.len() as f64 * (distinct as f64).log2();
        }
    }

    fn visit_collection_items(&mut self, elts: &[Expr]) {
        self.choice_bits(elts);
        let mut implicit = Vec::new();
        let mut big = 0;
        for e in elts {
            let (n0, m0) = (self.n, self.m);
            self.parent_is_collection.push(true);
            self.visit_expr(e);
            self.parent_is_collection.pop();
            let dm = self.m - m0;
            if dm >= 8 {
                big += 1;
                if self.n == n0 {
                    implicit.push(dm);
                }
            }
        }
        if elts.len() >= 8 && 2 * big >= elts.len() {
            for dm in implicit {
                self.n += n_positions();
                self.m += m_cells().saturating_sub(dm);
            }
        }
    }
}

impl<'a> Visitor<'a> for Count {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if let Stmt::Assert(a) = stmt {
            // A self-test's literals are not the mapping, but an assert message can be caught
            // and read, and a test with effects can store data.
            self.parent_is_collection.push(false);
            if let Some(msg) = &a.msg {
                self.visit_expr(msg);
            }
            if has_effect(&a.test) {
                self.visit_expr(&a.test);
            }
            self.parent_is_collection.pop();
            return;
        }
        if !counts_stmt(stmt) {
            return;
        }
        if let Stmt::Raise(r) = stmt
            && self.no_try
        {
            // Uncaught, the message goes to stderr: only non-message parts can matter.
            if let Some(Expr::Call(c)) = r.exc.as_deref() {
                for a in c.arguments.args.iter().filter(|a| !is_text(a)) {
                    self.visit_expr(a);
                }
            }
            return;
        }
        self.parent_is_collection.push(false);
        walk_stmt(self, stmt);
        self.parent_is_collection.pop();
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        let parent = self.parent_is_collection.last().copied().unwrap_or(false);
        if let Expr::Call(c) = expr
            && stderr_call(c)
        {
            self.parent_is_collection.push(false);
            for a in c.arguments.args.iter().filter(|a| !is_text(a)) {
                self.visit_expr(a);
            }
            self.parent_is_collection.pop();
            return;
        }
        if let Expr::Call(c) = expr {
            self.choice_bits(&c.arguments.args);
            let to_kwargs = matches!(&*c.func, Expr::Name(f)
                if f.id.as_str() == "dict" || self.kwargs_funcs.contains(f.id.as_str()));
            for k in c.arguments.keywords.iter() {
                if let Some(arg) = &k.arg
                    && !to_kwargs
                    && !self.own_params.contains(arg.as_str())
                    && !COMMON_KEYWORDS.contains(&arg.as_str())
                {
                    // An unknown keyword name can be read back (a TypeError's message).
                    self.free_bits += string_bits(arg.as_str());
                }
            }
        }
        if let Expr::Call(c) = expr
            && let Some(pattern) = regex_pattern(c)
        {
            // The pattern is regex code: its syntax is free (see `classify_regex`).
            let (n, m, bits) = classify_regex(pattern.value.to_str());
            self.n += n;
            self.packed(n, m);
            self.free_bits += bits;
            self.parent_is_collection.push(false);
            self.visit_expr(&c.func);
            for arg in c.arguments.args.iter().skip(1) {
                self.visit_expr(arg);
            }
            for k in c.arguments.keywords.iter() {
                self.visit_expr(&k.value);
            }
            self.parent_is_collection.pop();
            return;
        }
        match expr {
            Expr::StringLiteral(s) => self.string(s.value.to_str()),
            Expr::BytesLiteral(b) => self.packed(0, 8 * b.value.bytes().count()),
            Expr::NumberLiteral(num) => {
                if let Some(bits) = int_bits(expr)
                    && !self.in_key
                    && (parent || bits > 8)
                {
                    self.packed(0, bits);
                } else {
                    self.free_bits += number_bits(&num.value);
                }
            }
            Expr::Subscript(sub) if matches!(sub.ctx, ExprContext::Store) => {
                // The cell a program writes to (`grid[1][2] = '*'`) is an output address, the
                // part of the table the value's literal stands for: small int indices are free.
                let mut e: &Expr = expr;
                while let Expr::Subscript(s) = e {
                    let small =
                        |x: &Expr| small_int(x).is_some_and(|v| v < 16.max(m_cells() as u64));
                    let free = match &*s.slice {
                        Expr::Tuple(t) => t.elts.iter().all(small),
                        other => small(other),
                    };
                    if !free {
                        self.parent_is_collection.push(false);
                        self.visit_expr(&s.slice);
                        self.parent_is_collection.pop();
                    }
                    e = &s.value;
                }
                self.parent_is_collection.push(false);
                self.visit_expr(e);
                self.parent_is_collection.pop();
            }
            Expr::BooleanLiteral(_) | Expr::NoneLiteral(_) | Expr::EllipsisLiteral(_) => {
                self.free_bits += 1.0;
            }
            Expr::Call(c)
                if matches!(&*c.func, Expr::Name(f)
                    if f.id.as_str() == "dict" || self.kwargs_funcs.contains(f.id.as_str())) =>
            {
                // Keyword names become string keys (`dict(ACEG='****')`, `f(**kw)`).
                for k in c.arguments.keywords.iter() {
                    if let Some(arg) = &k.arg {
                        self.string(arg.as_str());
                    }
                }
                self.parent_is_collection.push(false);
                walk_expr(self, expr);
                self.parent_is_collection.pop();
            }
            Expr::Tuple(_) | Expr::List(_)
                if parent && {
                    let elts = match expr {
                        Expr::Tuple(t) => &t.elts,
                        Expr::List(l) => &l.elts,
                        _ => unreachable!(),
                    };
                    (2..=3).contains(&elts.len())
                        && elts[..2]
                            .iter()
                            .all(|e| small_int(e).is_some_and(|v| v < 16.max(m_cells() as u64)))
                } =>
            {
                // A (row, col[, value]) coordinate: one output cell.
                self.m += 1;
            }
            Expr::Tuple(t) => self.visit_collection_items(&t.elts),
            Expr::List(l) => self.visit_collection_items(&l.elts),
            Expr::Set(s) => self.visit_collection_items(&s.elts),
            Expr::Dict(d) => {
                for item in &d.items {
                    if let Some(k) = &item.key {
                        let was = std::mem::replace(&mut self.in_key, true);
                        self.parent_is_collection.push(true);
                        self.visit_expr(k);
                        self.parent_is_collection.pop();
                        self.in_key = was;
                    }
                    let m0 = self.m;
                    self.parent_is_collection.push(true);
                    self.visit_expr(&item.value);
                    self.parent_is_collection.pop();
                    // A key naming every position is a whole sample: its entry determines
                    // the whole grid however sparsely the value is written.
                    let key_letters = item.key.as_ref().map_or(0, letters_in);
                    if key_letters >= n_positions() {
                        self.m += m_cells().saturating_sub(self.m - m0);
                    }
                }
            }
            _ => {
                self.parent_is_collection.push(false);
                walk_expr(self, expr);
                self.parent_is_collection.pop();
            }
        }
    }

    fn visit_interpolated_string_element(&mut self, e: &'a InterpolatedStringElement) {
        match e {
            InterpolatedStringElement::Literal(l) => self.string(&l.value),
            InterpolatedStringElement::Interpolation(i) => self.visit_expr(&i.expression),
        }
    }
}

/// Statements whose literals never describe the mapping: asserts (self-tests), bare strings
/// (docstrings, notes), and loops/ifs made only of those.
fn counts_stmt(stmt: &Stmt) -> bool {
    match stmt {
        Stmt::Assert(_) => false,
        Stmt::Expr(e) => !matches!(&*e.value, Expr::StringLiteral(_) | Expr::FString(_)),
        Stmt::For(f) => f.body.iter().any(counts_stmt) || f.orelse.iter().any(counts_stmt),
        Stmt::While(w) => w.body.iter().any(counts_stmt),
        Stmt::If(i) => {
            i.body.iter().any(counts_stmt)
                || i.elif_else_clauses
                    .iter()
                    .any(|c| c.body.iter().any(counts_stmt))
        }
        _ => true,
    }
}

#[derive(Default)]
struct Names(HashSet<String>);

impl<'a> Visitor<'a> for Names {
    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Name(n) = expr {
            self.0.insert(n.id.to_string());
        }
        walk_expr(self, expr);
    }
}

fn used_names(stmt: &Stmt) -> HashSet<String> {
    let mut v = Names::default();
    v.visit_stmt(stmt);
    v.0
}

fn target_base(e: &Expr, out: &mut Vec<String>) {
    match e {
        Expr::Name(n) => out.push(n.id.to_string()),
        Expr::Subscript(s) => target_base(&s.value, out),
        Expr::Attribute(a) => target_base(&a.value, out),
        Expr::Starred(s) => target_base(&s.value, out),
        Expr::Tuple(t) => t.elts.iter().for_each(|x| target_base(x, out)),
        Expr::List(t) => t.elts.iter().for_each(|x| target_base(x, out)),
        _ => {}
    }
}

/// Names a definition statement binds; `None` for statements that run for effect (roots).
fn defined_names(stmt: &Stmt) -> Option<Vec<String>> {
    let mut out = Vec::new();
    match stmt {
        Stmt::Assign(a) => a.targets.iter().for_each(|t| target_base(t, &mut out)),
        Stmt::AnnAssign(a) => target_base(&a.target, &mut out),
        Stmt::AugAssign(a) => target_base(&a.target, &mut out),
        Stmt::FunctionDef(f) => out.push(f.name.to_string()),
        Stmt::ClassDef(c) => out.push(c.name.to_string()),
        Stmt::Import(i) => {
            for a in &i.names {
                let n = a.asname.as_ref().unwrap_or(&a.name).to_string();
                out.push(n.split('.').next().unwrap_or_default().to_string());
            }
        }
        Stmt::ImportFrom(i) => {
            for a in &i.names {
                out.push(a.asname.as_ref().unwrap_or(&a.name).to_string());
            }
        }
        _ => return None,
    }
    Some(out)
}

/// Definitions whose execution itself can store data: class bodies run, decorators and
/// default values run at definition, assignments whose value has an effect.
fn runs_for_effect(stmt: &Stmt) -> bool {
    match stmt {
        Stmt::ClassDef(_) => true,
        Stmt::FunctionDef(f) => {
            !f.decorator_list.is_empty()
                || f.parameters
                    .iter_non_variadic_params()
                    .any(|p| p.default.as_deref().is_some_and(has_effect))
        }
        Stmt::Assign(a) => has_effect(&a.value),
        Stmt::AugAssign(a) => has_effect(&a.value),
        Stmt::AnnAssign(a) => a.value.as_deref().is_some_and(has_effect),
        Stmt::Assert(a) => a.msg.is_some() || has_effect(&a.test),
        _ => false,
    }
}

/// Module-level statements that run or are used by what runs.
fn live_statements(body: &[Stmt]) -> Vec<&Stmt> {
    let defs: Vec<Option<Vec<String>>> = body.iter().map(defined_names).collect();
    let mut live: Vec<bool> = body
        .iter()
        .zip(&defs)
        .map(|(s, d)| (d.is_none() && counts_stmt(s)) || runs_for_effect(s))
        .collect();
    let mut used: HashSet<String> = HashSet::new();
    for (s, l) in body.iter().zip(&live) {
        if *l {
            used.extend(used_names(s));
        }
    }
    loop {
        let mut changed = false;
        for (i, s) in body.iter().enumerate() {
            if live[i] {
                continue;
            }
            if let Some(names) = &defs[i]
                && names.iter().any(|n| used.contains(n))
            {
                live[i] = true;
                used.extend(used_names(s));
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    body.iter()
        .zip(live)
        .filter(|(_, l)| *l)
        .map(|(s, _)| s)
        .collect()
}

/// Measures the mapping table of a program (see the module docs). All input goes into
/// `n_dict`/`m_dict` (the robust parser does not split dicts from blocks).
pub fn measure(code: &str) -> Counts {
    measure_bits(code).0
}

/// The counts of [`measure`] and the bits of the live literals they do not account for
/// (strings that are not data strings, ints outside collections, floats, complex numbers,
/// booleans, None, assert messages, keyword names read back as keys).
pub fn measure_bits(code: &str) -> (Counts, f64) {
    let Ok(parsed) = super::parse_guarded(code).ok_or(()) else {
        return (Counts::default(), 0.0);
    };
    let body = &parsed.syntax().body;
    let (own_params, name_bits) = identifier_bits(body);
    let mut c = Count {
        kwargs_funcs: kwargs_functions(body),
        own_params,
        no_try: !has_try(body),
        ..Count::default()
    };
    for s in live_statements(body) {
        c.visit_stmt(s);
    }
    c.free_bits += sequence_bits(body) + name_bits;
    let counts = Counts {
        n_dict: c.n,
        m_dict: c.m,
        n_block: 0,
        m_block: 0,
    };
    (counts, c.free_bits)
}

/// Bits stored in the order of repeated statements: a block of >= 16 statements with at most
/// a quarter as many distinct forms (`one()`, `zero()`, `one()`, ...) carries log2(forms)
/// bits per statement. Honest blocks have (nearly) all statements distinct.
fn sequence_bits(body: &[Stmt]) -> f64 {
    #[derive(Default)]
    struct Seq(f64);
    impl Seq {
        fn block(&mut self, body: &[Stmt]) {
            if body.len() >= 16 {
                let forms: HashSet<String> = body.iter().map(stmt_form).collect();
                if forms.len() >= 2 && 4 * forms.len() <= body.len() {
                    self.0 += body.len() as f64 * (forms.len() as f64).log2();
                }
            }
        }
    }
    impl<'a> Visitor<'a> for Seq {
        fn visit_body(&mut self, body: &'a [Stmt]) {
            self.block(body);
            ruff_python_ast::visitor::walk_body(self, body);
        }
    }
    let mut v = Seq::default();
    v.visit_body(body);
    v.0
}

/// A statement's form for [`sequence_bits`]: its expression or assignment as text, else its
/// kind.
fn stmt_form(s: &Stmt) -> String {
    use super::unparse::unparse;
    match s {
        Stmt::Expr(e) => unparse(&e.value, ""),
        Stmt::Assign(a) => {
            let targets: Vec<String> = a.targets.iter().map(|t| unparse(t, "")).collect();
            format!("{} = {}", targets.join(" = "), unparse(&a.value, ""))
        }
        Stmt::AugAssign(a) => format!(
            "{} {:?}= {}",
            unparse(&a.target, ""),
            a.op,
            unparse(&a.value, "")
        ),
        other => format!("{:?}", std::mem::discriminant(other)),
    }
}

/// Parameter names of the program, and the bits of the names that can store data: a
/// function, class or parameter name longer than [`LONG_NAME`] characters (its repr or a
/// TypeError prints it) and every parameter of a function with >= 8 of them, at 7 bits per
/// character.
fn identifier_bits(body: &[Stmt]) -> (HashSet<String>, f64) {
    #[derive(Default)]
    struct Ids {
        params: HashSet<String>,
        bits: f64,
    }
    impl Ids {
        fn name(&mut self, s: &str) {
            if s.chars().count() > LONG_NAME {
                self.bits += string_bits(s);
            }
        }
        fn params(&mut self, p: &ruff_python_ast::Parameters) {
            let names: Vec<&str> = p.iter().map(|x| x.name().as_str()).collect();
            for n in &names {
                self.params.insert(n.to_string());
                if names.len() < 8 {
                    self.name(n);
                }
            }
            if names.len() >= 8 {
                self.bits += names.iter().map(|n| string_bits(n)).sum::<f64>();
            }
        }
    }
    impl<'a> Visitor<'a> for Ids {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            match stmt {
                Stmt::FunctionDef(f) => {
                    self.name(f.name.as_str());
                    self.params(&f.parameters);
                }
                Stmt::ClassDef(c) => self.name(c.name.as_str()),
                _ => {}
            }
            walk_stmt(self, stmt);
        }
        fn visit_expr(&mut self, expr: &'a Expr) {
            if let Expr::Lambda(l) = expr
                && let Some(p) = &l.parameters
            {
                self.params(p);
            }
            walk_expr(self, expr);
        }
    }
    let mut v = Ids::default();
    for s in body {
        v.visit_stmt(s);
    }
    (v.params, v.bits)
}

/// Longest function, class or parameter name that counts no bits.
const LONG_NAME: usize = 24;

/// Names of the functions that take `**kwargs`.
fn kwargs_functions(body: &[Stmt]) -> HashSet<String> {
    #[derive(Default)]
    struct Kw(HashSet<String>);
    impl<'a> Visitor<'a> for Kw {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            if let Stmt::FunctionDef(f) = stmt
                && f.parameters.kwarg.is_some()
            {
                self.0.insert(f.name.to_string());
            }
            walk_stmt(self, stmt);
        }
    }
    let mut k = Kw::default();
    for s in body {
        k.visit_stmt(s);
    }
    k.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nm(code: &str) -> (usize, usize) {
        let c = measure(code);
        (c.n_dict, c.m_dict)
    }

    #[test]
    fn strings_are_classified() {
        assert_eq!(classify_string("A C E G"), (4, 0));
        assert_eq!(classify_string("*..*\n.**."), (0, 8));
        assert_eq!(classify_string("Enter the letters."), (0, 0));
        assert_eq!(classify_string("1010"), (0, 4));
        assert_eq!(classify_string("a5f0a5f0"), (0, 32));
    }

    #[test]
    fn rule_strings_and_regex_patterns_are_table_entries() {
        // Letter, row, pattern: 8 letters, 32 cells and 8 row numbers (one entry each).
        let rules = "A0**.. B0..** C1**.* D1..*. E2...* F2***. G3*... H3.***";
        assert_eq!(classify_string(rules), (8, 40));
        // On-cells per letter: every cell index below 16 one entry.
        assert_eq!(classify_string("A:0,4 B:8,12 C:1,5,13"), (3, 7));
        // A part naming all four positions is a whole sample: 16 cells at least.
        assert_eq!(classify_string("BDFH:2,3 ADFG:9"), (8, 32));
        // Numbers from 16 on cost their bit length.
        assert_eq!(classify_string("A 13107"), (1, 14));
        // Prose with digits stays prose (bits, not table entries).
        assert_eq!(classify_string("Enter 4 letters."), (0, 0));
        // Regex syntax is free; letters, cell symbols and counts are entries.
        assert_eq!(classify_regex(r"([A-H])(\d)([*.]{4})"), (2, 3, 0.0));
        assert_eq!(classify_regex(r"[A-H]"), (2, 0, 0.0));
        // Other literal characters in a pattern are data.
        assert_eq!(classify_regex("xyz").2, 21.0);
        // (Rows 0 only: an ordinary data string, its 0s free.)
        let code = "import re\nRULES = 'A0**.. B0..**'\nr = re.findall(r'([A-H])(\\d)([*.]{4})', RULES)\nprint(r)\n";
        let (counts, bits) = measure_bits(code);
        assert_eq!((counts.n_dict, counts.m_dict), (2 + 2, 8 + 3), "{counts:?}");
        assert!(bits < 10.0, "{bits}");
    }

    #[test]
    fn docstrings_asserts_and_dead_tables_do_not_count() {
        let code = "\"\"\"A -> **..\"\"\"\nTESTS = {'A C E G': '*...'}\ndef unused():\n    return '****'\n\
                    ROW = {'A': '**..'}\nassert ROW['A'] == '**..'\nprint(ROW[input()])\n";
        assert_eq!(nm(code), (1, 4));
    }

    #[test]
    fn coordinates_and_bitmasks() {
        assert_eq!(nm("ON = {'A': [(0, 1), (0, 3)]}\nprint(ON)"), (1, 2));
        assert_eq!(nm("M = {'A': 0b1010}\nprint(M)"), (1, 4));
        // A whole-input table: 8 letter-free entries of >= 8 cells each carry N = 4 and M = 16.
        let g = "G = [0xA5F0, 0x0F0F, 0x1234, 0xFFFF, 0xA5F0, 0x0F0F, 0x1234, 0xFFFF]\nprint(G)";
        assert_eq!(nm(g), (32, 128));
        // Per-position rows indexed by letter offset are not a whole-input table.
        let rows = "ROWS = [['**..', '..**'], ['**.*', '..*.'], ['...*', '***.'], ['*...', '.***']]\nprint(ROWS)";
        assert_eq!(nm(rows), (0, 32));
        assert_eq!(nm("D = {'A C E G': [(0, 0)]}\nprint(D)"), (4, 16));
    }

    #[test]
    fn reference_flaws_are_fixed() {
        // A dict inside print is counted once, not as dict and block.
        assert_eq!(
            nm("s = input()\nprint({'E': '*..*', 'F': '.**.'}[s[2]])"),
            (2, 8)
        );
        // Identifiers and message strings carry no letters.
        assert_eq!(
            nm("DATA = input('Enter the letters: ')\nGRID = False\nprint(DATA, GRID)"),
            (0, 0)
        );
        // '#' in a string is just a string.
        assert_eq!(
            nm("SEP = '#'\nROW = {'A': '*..*'}\nprint(SEP, ROW)"),
            (1, 4)
        );
    }

    #[test]
    fn messages_to_stderr_count_no_bits() {
        let base = "ROW = {'A': '**..'}\nprint(ROW[input()])\n";
        let (_, b0) = measure_bits(base);
        let msgs = format!(
            "import sys\nif len(sys.argv) > 5:\n    raise ValueError('expected four letters separated by spaces')\n\
             print('warning: unusual input here', file=sys.stderr)\n{base}"
        );
        let (_, b1) = measure_bits(&msgs);
        assert!(b1 - b0 < 10.0, "{b0} {b1}");
        // Caught, a raised message is data.
        let caught = format!(
            "try:\n    raise ValueError('row 13107 then 52428 then 13107')\nexcept ValueError as e:\n    M = str(e)\n{base}"
        );
        assert!(measure_bits(&caught).1 - b0 > 100.0);
    }

    #[test]
    fn syntax_errors_give_empty_counts() {
        assert_eq!(measure("x = ("), Counts::default());
    }
}
