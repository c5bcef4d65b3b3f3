//! The published evaluator's `calculate_estimate`, rule by rule (R0-R16 of
//! shared/notes/rgp-reference-parser.md), flaws included. Where the reference would crash
//! (`{**x}`, unhashable keys) the key falls back to its source text instead.

use super::Counts;
use super::pyval::{PyVal, literal_eval, reference_m};
use super::space::Space;
use super::unparse::unparse;
use regex::Regex;
use ruff_python_ast::visitor::{Visitor, walk_expr, walk_stmt};
use ruff_python_ast::{ExceptHandler, Expr, Stmt};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::LazyLock;

static COMMENT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"#.*").expect("regex"));
static TRIPLE_SINGLE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?s)'''.*?'''").expect("regex"));
static TRIPLE_DOUBLE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"(?s)""".*?""""#).expect("regex"));
static QUOTED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"'([^'\n]*)'|"([^"\n]*)""#).expect("regex"));

/// R0: delete comments (even inside strings), triple-quoted spans and blank lines.
pub fn preprocess(code: &str) -> String {
    let code = COMMENT.replace_all(code, "");
    let code = TRIPLE_SINGLE.replace_all(&code, "");
    let code = TRIPLE_DOUBLE.replace_all(&code, "");
    code.split('\n')
        .filter(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// 1-based line number of a byte offset.
fn line_of(line_starts: &[usize], offset: usize) -> usize {
    match line_starts.binary_search(&offset) {
        Ok(i) => i + 1,
        Err(i) => i,
    }
}

fn line_starts(code: &str) -> Vec<usize> {
    let mut v = vec![0];
    v.extend(code.match_indices('\n').map(|(i, _)| i + 1));
    v
}

#[derive(Default)]
struct Collect<'a> {
    dicts: Vec<&'a ruff_python_ast::ExprDict>,
    /// (start, end) byte ranges whose lines R7 deletes.
    deleted: Vec<(usize, usize)>,
}

impl<'a> Visitor<'a> for Collect<'a> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if let Stmt::Assign(a) = stmt
            && matches!(&*a.value, Expr::Dict(_))
        {
            self.deleted
                .push((a.range.start().to_usize(), a.range.end().to_usize()));
        }
        walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Dict(d) => self.dicts.push(d),
            Expr::DictComp(c) => self
                .deleted
                .push((c.range.start().to_usize(), c.range.end().to_usize())),
            _ => {}
        }
        walk_expr(self, expr);
    }
}

/// Keys (or values) of a dict the reference way: literal_eval each; if any fails, all become
/// their unparse text.
fn eval_all(exprs: &[Option<&Expr>], values: &[&Expr], src: &str) -> Vec<PyVal> {
    let evaluated: Option<Vec<PyVal>> = exprs
        .iter()
        .map(|e| e.and_then(literal_eval).filter(PyVal::hashable))
        .collect();
    match evaluated {
        Some(v) => v,
        None => exprs
            .iter()
            .zip(values)
            .map(|(e, v)| match e {
                Some(e) => PyVal::Str(unparse(e, src)),
                None => PyVal::Str(format!("**{}", unparse(v, src))),
            })
            .collect(),
    }
}

/// R2-R6: (n_dict, m_dict) over every dict display.
fn dict_part(dicts: &[&ruff_python_ast::ExprDict], src: &str) -> (usize, usize) {
    let mut seen: HashSet<Space> = HashSet::new();
    let (mut n, mut m) = (0, 0);
    for d in dicts {
        let key_exprs: Vec<Option<&Expr>> = d.items.iter().map(|i| i.key.as_ref()).collect();
        let val_exprs: Vec<&Expr> = d.items.iter().map(|i| &i.value).collect();
        let keys = eval_all(&key_exprs, &val_exprs, src);
        let vals: Vec<PyVal> = match val_exprs
            .iter()
            .map(|e| literal_eval(e))
            .collect::<Option<Vec<_>>>()
        {
            Some(v) => v,
            None => val_exprs
                .iter()
                .map(|e| PyVal::Str(unparse(e, src)))
                .collect(),
        };
        // dict(zip(keys, values)): a later equal key replaces the value in place. Buckets of
        // equal-hashing keys keep this linear for big dicts.
        let mut entries: Vec<(PyVal, PyVal)> = Vec::new();
        let mut buckets: HashMap<u64, Vec<usize>> = HashMap::new();
        for (k, v) in keys.into_iter().zip(vals) {
            let bucket = buckets.entry(k.eq_bucket()).or_default();
            if let Some(&i) = bucket.iter().find(|&&i| entries[i].0.py_eq(&k)) {
                entries[i].1 = v;
            } else {
                bucket.push(entries.len());
                entries.push((k, v));
            }
        }
        for (k, v) in &entries {
            let text = k.py_str();
            let mut space = Space::of_text(&text);
            if text.contains("else") {
                space.star_non_empty();
            }
            let size = space.size();
            if seen.insert(space) {
                n += size;
            }
            m += reference_m(v);
        }
    }
    (n, m)
}

/// Statement-level nodes in CPython `ast.walk` (breadth-first) order; an `elif` is an `If`
/// nested in its predecessor's `orelse`, one level deeper; handlers and match cases are nodes
/// of their own between a statement and its body.
enum Node<'a> {
    Stmt(&'a Stmt),
    /// An except handler or a match case: its body is one level below it.
    Wrapper(&'a [Stmt]),
    /// Clause `k` (1-based) of an if statement's elif/else chain, as a nested `If`.
    Elif(&'a ruff_python_ast::StmtIf, usize),
}

fn assigns_bfs(body: &[Stmt]) -> Vec<&ruff_python_ast::StmtAssign> {
    let mut out = Vec::new();
    let mut queue: VecDeque<Node> = body.iter().map(Node::Stmt).collect();
    fn push<'a>(q: &mut VecDeque<Node<'a>>, b: &'a [Stmt]) {
        q.extend(b.iter().map(Node::Stmt));
    }
    while let Some(node) = queue.pop_front() {
        match node {
            Node::Wrapper(b) => push(&mut queue, b),
            Node::Stmt(s) => match s {
                Stmt::Assign(a) => out.push(a),
                Stmt::If(i) => {
                    push(&mut queue, &i.body);
                    chain_tail(&mut queue, i, 0);
                }
                Stmt::For(f) => {
                    push(&mut queue, &f.body);
                    push(&mut queue, &f.orelse);
                }
                Stmt::While(w) => {
                    push(&mut queue, &w.body);
                    push(&mut queue, &w.orelse);
                }
                Stmt::With(w) => push(&mut queue, &w.body),
                Stmt::FunctionDef(f) => push(&mut queue, &f.body),
                Stmt::ClassDef(c) => push(&mut queue, &c.body),
                Stmt::Try(t) => {
                    push(&mut queue, &t.body);
                    for h in &t.handlers {
                        let ExceptHandler::ExceptHandler(h) = h;
                        queue.push_back(Node::Wrapper(&h.body));
                    }
                    push(&mut queue, &t.orelse);
                    push(&mut queue, &t.finalbody);
                }
                Stmt::Match(m) => {
                    for c in &m.cases {
                        queue.push_back(Node::Wrapper(&c.body));
                    }
                }
                _ => {}
            },
            Node::Elif(i, k) => {
                push(&mut queue, &i.elif_else_clauses[k - 1].body);
                chain_tail(&mut queue, i, k);
            }
        }
    }
    out
}

/// Children of clause `k` of an if chain after its body: the next elif as a nested If, or the
/// else body directly.
fn chain_tail<'a>(queue: &mut VecDeque<Node<'a>>, i: &'a ruff_python_ast::StmtIf, k: usize) {
    if let Some(next) = i.elif_else_clauses.get(k) {
        if next.test.is_some() {
            queue.push_back(Node::Elif(i, k + 1));
        } else {
            queue.extend(next.body.iter().map(Node::Stmt));
        }
    }
}

/// Whole-word regex for a stored name.
fn word_re(name: &str) -> Option<Regex> {
    Regex::new(&format!(r"\b{}\b", regex::escape(name))).ok()
}

static WORD: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\w+").expect("valid regex"));

/// The store's names, indexed so that finding the names a text mentions is linear in the
/// text: `\bname\b` for a name made of word characters matches exactly when the name is one
/// of the text's maximal `\w+` runs; other names (`a.b`, `x[0]`) keep their regex.
struct StoreIndex {
    words: HashMap<String, Vec<usize>>,
    others: Vec<usize>,
}

impl StoreIndex {
    fn new() -> Self {
        StoreIndex {
            words: HashMap::new(),
            others: Vec::new(),
        }
    }

    fn add(&mut self, name: &str, slot: usize) {
        if WORD.find(name).is_some_and(|m| m.len() == name.len()) {
            self.words.entry(name.to_string()).or_default().push(slot);
        } else {
            self.others.push(slot);
        }
    }

    /// Slots of the store whose name the text mentions (each at most once, any order).
    fn mentioned(&self, store: &[(String, Space, Option<Regex>)], text: &str) -> Vec<usize> {
        let mut hits: HashSet<usize> = HashSet::new();
        for m in WORD.find_iter(text) {
            if let Some(slots) = self.words.get(m.as_str()) {
                hits.extend(slots);
            }
        }
        for &i in &self.others {
            if store[i].2.as_ref().is_some_and(|re| re.is_match(text)) {
                hits.insert(i);
            }
        }
        hits.into_iter().collect()
    }
}

/// R8-R9: the variable store from assignments, single pass in walk order.
fn store_of(code: &str) -> Vec<(String, Space, Option<Regex>)> {
    let Ok(parsed) = super::parse_guarded(code).ok_or(()) else {
        return Vec::new();
    };
    let module = parsed.syntax();
    let mut store: Vec<(String, Space, Option<Regex>)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut names = StoreIndex::new();
    for a in assigns_bfs(&module.body) {
        let mut pairs: Vec<(String, String)> = Vec::new();
        for t in &a.targets {
            match (t, &*a.value) {
                (Expr::Tuple(tt), Expr::Tuple(vt)) if tt.elts.len() == vt.elts.len() => {
                    for (x, y) in tt.elts.iter().zip(&vt.elts) {
                        pairs.push((unparse(x, code), unparse(y, code)));
                    }
                }
                _ => pairs.push((unparse(t, code), unparse(&a.value, code))),
            }
        }
        for (lhs, rhs) in pairs {
            let mut space = Space::of_text(&rhs);
            if rhs.contains("else") {
                space.star_non_empty();
            }
            let slot = *index.entry(lhs.clone()).or_insert_with(|| {
                store.push((lhs.clone(), Space::default(), word_re(&lhs)));
                names.add(&lhs, store.len() - 1);
                store.len() - 1
            });
            store[slot].1.union_with(&space);
            let mut extra = Space::default();
            for i in names.mentioned(&store, &rhs) {
                extra.union_with(&store[i].1);
            }
            store[slot].1.union_with(&extra);
        }
    }
    store
}

/// R11-R16 over the remaining lines: (n_block, m_block).
fn block_part(code: &str, store: &[(String, Space, Option<Regex>)]) -> (usize, usize) {
    let lines: Vec<&str> = code.split('\n').collect();
    let indents: Vec<usize> = lines
        .iter()
        .map(|l| l.chars().take_while(|c| c.is_whitespace()).count())
        .collect();
    // Parent = nearest earlier line with a smaller indent, through a stack of strictly
    // increasing indents (linear; a backwards scan per line was quadratic).
    let mut parents: Vec<Option<usize>> = Vec::with_capacity(lines.len());
    let mut open: Vec<usize> = Vec::new();
    for i in 0..lines.len() {
        while open.last().is_some_and(|&j| indents[j] >= indents[i]) {
            open.pop();
        }
        parents.push(open.last().copied());
        open.push(i);
    }
    let mut names = StoreIndex::new();
    for (i, (name, _, _)) in store.iter().enumerate() {
        names.add(name, i);
    }
    let mut spaces: Vec<Space> = Vec::with_capacity(lines.len());
    let mut outs: Vec<usize> = Vec::with_capacity(lines.len());
    let mut stack: Vec<(usize, Space)> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let mut space = Space::default();
        let mut out_num = 0;
        for cap in QUOTED.captures_iter(line) {
            let inner = cap.get(1).or_else(|| cap.get(2)).map_or("", |m| m.as_str());
            space.add_letters(inner);
            out_num += inner.chars().filter(|&c| c == '*' || c == '.').count();
        }
        for j in names.mentioned(store, line) {
            space.union_with(&store[j].1);
        }
        let indent = indents[i];
        while stack.last().is_some_and(|(d, _)| *d > indent) {
            stack.pop();
        }
        let stripped = line.trim_start();
        if stripped.starts_with("if") {
            stack.push((indent, space.clone()));
        } else if stripped.starts_with("elif") {
            if let Some(top) = stack.last_mut() {
                top.0 = indent;
                top.1.union_with(&space);
            }
        } else if stripped.starts_with("else") {
            space = stack.last().map(|(_, s)| s.stars_of()).unwrap_or_default();
        }
        if line.contains("else") {
            space.star_non_empty();
        }
        spaces.push(space);
        outs.push(out_num);
    }
    let m_block = outs.iter().sum();
    // The union of a line's space with its ancestors', built once per line from its
    // parent's (parents come first): linear in the lines, whatever the nesting depth.
    let mut paths: Vec<Space> = Vec::with_capacity(lines.len());
    for i in 0..lines.len() {
        let mut path = spaces[i].clone();
        if let Some(j) = parents[i] {
            path.union_with(&paths[j]);
        }
        paths.push(path);
    }
    let mut seen: HashSet<Space> = HashSet::new();
    let mut n_block = 0;
    for i in 0..lines.len() {
        let is_leaf = lines.get(i + 1).is_none() || indents[i + 1] <= indents[i];
        if outs[i] == 0 || !is_leaf {
            continue;
        }
        let path = paths[i].clone();
        let size = path.size();
        if seen.insert(path) {
            n_block += size;
        }
    }
    (n_block, m_block)
}

/// The reference `calculate_estimate(code)`.
pub fn calculate_estimate(code: &str) -> Counts {
    let code = preprocess(code);
    let (n_dict, m_dict, remaining) = match super::parse_guarded(&code).ok_or(()) {
        Ok(parsed) => {
            let mut c = Collect::default();
            for s in &parsed.syntax().body {
                c.visit_stmt(s);
            }
            let (n, m) = dict_part(&c.dicts, &code);
            let starts = line_starts(&code);
            let mut drop: HashSet<usize> = HashSet::new();
            for (a, b) in &c.deleted {
                let (la, lb) = (
                    line_of(&starts, *a),
                    line_of(&starts, b.saturating_sub(1).max(*a)),
                );
                drop.extend(la..=lb);
            }
            let kept: Vec<&str> = code
                .split('\n')
                .enumerate()
                .filter(|(i, _)| !drop.contains(&(i + 1)))
                .map(|(_, l)| l)
                .collect();
            (n, m, kept.join("\n"))
        }
        Err(_) => (0, 0, code.clone()),
    };
    let store = store_of(&remaining);
    let (n_block, m_block) = if remaining.is_empty() {
        (0, 0)
    } else {
        block_part(&remaining, &store)
    };
    Counts {
        n_dict,
        m_dict,
        n_block,
        m_block,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_follows_breadth_first_walk_order() {
        // `b = a` (depth 1) is walked before `a = 'C'` (depth 2, inside the if), so b stays
        // empty; printing b therefore has an empty space (n_block 0).
        let c =
            calculate_estimate("if len(s):\n    a = 'C'\nb = a\nprint('*' if s[1] == b else '.')");
        assert_eq!((c.n_block, c.m_block), (0, 2));
        // Same statements at one depth: a is stored first and propagates to b.
        let c = calculate_estimate("a = 'C'\nb = a\nprint('*' if s[1] == b else '.')");
        assert_eq!((c.n_block, c.m_block), (2, 2));
    }

    #[test]
    fn elif_is_one_level_deeper_than_its_if() {
        // The elif body's assignment (depth 3) comes after the else-less sibling's (depth 2).
        let bodies =
            assigns_bfs_of("if x:\n    p = 1\nelif y:\n    q = 2\nr = 3\nif z:\n    t = 4");
        assert_eq!(bodies, ["r", "p", "t", "q"]);
    }

    fn assigns_bfs_of(code: &str) -> Vec<String> {
        let parsed = ruff_python_parser::parse_module(code).unwrap();
        assigns_bfs(&parsed.syntax().body)
            .iter()
            .map(|a| unparse(&a.targets[0], code))
            .collect()
    }
}
