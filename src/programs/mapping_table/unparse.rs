//! An `ast.unparse` for expressions (CPython 3.11 spacing, quoting and parenthesisation for
//! the node kinds programs here use). The reference counts letters, whole words and lengths
//! of this text, so it must read like Python's, not like the source.

use super::pyval::{repr_float, repr_str};
use ruff_python_ast::{BoolOp, CmpOp, Expr, Number, Operator, UnaryOp};
use ruff_text_size::Ranged;

// CPython's _Precedence, lowest first.
const TUPLE: u8 = 1;
const TEST: u8 = 3;
const OR: u8 = 4;
const AND: u8 = 5;
const NOT: u8 = 6;
const CMP: u8 = 7;
const BOR: u8 = 9;
const BXOR: u8 = 10;
const BAND: u8 = 11;
const SHIFT: u8 = 12;
const ARITH: u8 = 13;
const TERM: u8 = 14;
const FACTOR: u8 = 15;
const POWER: u8 = 16;
const AWAIT: u8 = 17;
const ATOM: u8 = 18;

/// `ast.unparse(expr)`; `src` is the parsed text (used for f-strings and lambdas' parameters).
pub fn unparse(expr: &Expr, src: &str) -> String {
    let mut out = String::new();
    Unparser { src, out: &mut out }.expr(expr, TEST);
    out
}

struct Unparser<'s, 'o> {
    src: &'s str,
    out: &'o mut String,
}

fn binop_prec(op: Operator) -> (u8, &'static str) {
    match op {
        Operator::Add => (ARITH, "+"),
        Operator::Sub => (ARITH, "-"),
        Operator::Mult => (TERM, "*"),
        Operator::MatMult => (TERM, "@"),
        Operator::Div => (TERM, "/"),
        Operator::Mod => (TERM, "%"),
        Operator::FloorDiv => (TERM, "//"),
        Operator::Pow => (POWER, "**"),
        Operator::LShift => (SHIFT, "<<"),
        Operator::RShift => (SHIFT, ">>"),
        Operator::BitOr => (BOR, "|"),
        Operator::BitXor => (BXOR, "^"),
        Operator::BitAnd => (BAND, "&"),
    }
}

fn cmp_str(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "==",
        CmpOp::NotEq => "!=",
        CmpOp::Lt => "<",
        CmpOp::LtE => "<=",
        CmpOp::Gt => ">",
        CmpOp::GtE => ">=",
        CmpOp::Is => "is",
        CmpOp::IsNot => "is not",
        CmpOp::In => "in",
        CmpOp::NotIn => "not in",
    }
}

impl Unparser<'_, '_> {
    fn w(&mut self, s: &str) {
        self.out.push_str(s);
    }

    fn source(&mut self, e: &impl Ranged) {
        let r = e.range();
        let text = self
            .src
            .get(r.start().to_usize()..r.end().to_usize())
            .unwrap_or("");
        self.out.push_str(text);
    }

    fn items(&mut self, elts: &[Expr]) {
        for (i, e) in elts.iter().enumerate() {
            if i > 0 {
                self.w(", ");
            }
            self.expr(e, TEST);
        }
    }

    fn comprehensions(&mut self, gens: &[ruff_python_ast::Comprehension]) {
        for g in gens {
            self.w(if g.is_async { " async for " } else { " for " });
            self.expr(&g.target, TUPLE);
            self.w(" in ");
            self.expr(&g.iter, TEST + 1);
            for cond in &g.ifs {
                self.w(" if ");
                self.expr(cond, TEST + 1);
            }
        }
    }

    fn expr(&mut self, e: &Expr, prec: u8) {
        let paren = |me: &mut Self, own: u8, f: &mut dyn FnMut(&mut Self)| {
            let p = prec > own;
            if p {
                me.w("(");
            }
            f(me);
            if p {
                me.w(")");
            }
        };
        match e {
            Expr::BoolOp(b) => {
                let (own, op) = match b.op {
                    BoolOp::And => (AND, " and "),
                    BoolOp::Or => (OR, " or "),
                };
                paren(self, own, &mut |me| {
                    for (i, v) in b.values.iter().enumerate() {
                        if i > 0 {
                            me.w(op);
                        }
                        me.expr(v, own + 1);
                    }
                });
            }
            Expr::Named(n) => {
                paren(self, 0, &mut |me| {
                    me.expr(&n.target, ATOM);
                    me.w(" := ");
                    me.expr(&n.value, ATOM);
                });
            }
            Expr::BinOp(b) => {
                let (own, op) = binop_prec(b.op);
                let (lp, rp) = if own == POWER {
                    (own + 1, own)
                } else {
                    (own, own + 1)
                };
                paren(self, own, &mut |me| {
                    me.expr(&b.left, lp);
                    me.w(" ");
                    me.w(op);
                    me.w(" ");
                    me.expr(&b.right, rp);
                });
            }
            Expr::UnaryOp(u) => {
                let (own, op) = match u.op {
                    UnaryOp::Not => (NOT, "not "),
                    UnaryOp::Invert => (FACTOR, "~"),
                    UnaryOp::USub => (FACTOR, "-"),
                    UnaryOp::UAdd => (FACTOR, "+"),
                };
                paren(self, own, &mut |me| {
                    me.w(op);
                    me.expr(&u.operand, own);
                });
            }
            Expr::Lambda(l) => {
                paren(self, TEST, &mut |me| {
                    me.w("lambda");
                    if let Some(p) = &l.parameters {
                        me.w(" ");
                        me.source(&**p);
                    }
                    me.w(": ");
                    me.expr(&l.body, TEST);
                });
            }
            Expr::If(i) => {
                paren(self, TEST, &mut |me| {
                    me.expr(&i.body, TEST + 1);
                    me.w(" if ");
                    me.expr(&i.test, TEST + 1);
                    me.w(" else ");
                    me.expr(&i.orelse, TEST);
                });
            }
            Expr::Dict(d) => {
                self.w("{");
                for (i, item) in d.items.iter().enumerate() {
                    if i > 0 {
                        self.w(", ");
                    }
                    match &item.key {
                        Some(k) => {
                            self.expr(k, TEST);
                            self.w(": ");
                            self.expr(&item.value, TEST);
                        }
                        None => {
                            self.w("**");
                            self.expr(&item.value, BOR);
                        }
                    }
                }
                self.w("}");
            }
            Expr::Set(s) => {
                self.w("{");
                self.items(&s.elts);
                self.w("}");
            }
            Expr::ListComp(c) => {
                self.w("[");
                self.expr(&c.elt, TEST);
                self.comprehensions(&c.generators);
                self.w("]");
            }
            Expr::SetComp(c) => {
                self.w("{");
                self.expr(&c.elt, TEST);
                self.comprehensions(&c.generators);
                self.w("}");
            }
            Expr::DictComp(c) => {
                self.w("{");
                if let Some(k) = &c.key {
                    self.expr(k, TEST);
                    self.w(": ");
                }
                self.expr(&c.value, TEST);
                self.comprehensions(&c.generators);
                self.w("}");
            }
            Expr::Generator(g) => {
                self.w("(");
                self.expr(&g.elt, TEST);
                self.comprehensions(&g.generators);
                self.w(")");
            }
            Expr::Await(a) => paren(self, AWAIT, &mut |me| {
                me.w("await ");
                me.expr(&a.value, ATOM);
            }),
            Expr::Yield(y) => {
                self.w("(yield");
                if let Some(v) = &y.value {
                    self.w(" ");
                    self.expr(v, TEST);
                }
                self.w(")");
            }
            Expr::YieldFrom(y) => {
                self.w("(yield from ");
                self.expr(&y.value, TEST);
                self.w(")");
            }
            Expr::Compare(c) => {
                paren(self, CMP, &mut |me| {
                    me.expr(&c.left, CMP + 1);
                    for (op, right) in c.ops.iter().zip(c.comparators.iter()) {
                        me.w(" ");
                        me.w(cmp_str(*op));
                        me.w(" ");
                        me.expr(right, CMP + 1);
                    }
                });
            }
            Expr::Call(c) => {
                self.expr(&c.func, ATOM);
                self.w("(");
                let mut first = true;
                for a in c.arguments.args.iter() {
                    if !first {
                        self.w(", ");
                    }
                    first = false;
                    self.expr(a, TEST);
                }
                for k in c.arguments.keywords.iter() {
                    if !first {
                        self.w(", ");
                    }
                    first = false;
                    match &k.arg {
                        Some(name) => {
                            self.w(name.as_str());
                            self.w("=");
                        }
                        None => self.w("**"),
                    }
                    self.expr(&k.value, TEST);
                }
                self.w(")");
            }
            Expr::FString(_) | Expr::TString(_) | Expr::IpyEscapeCommand(_) => self.source(e),
            Expr::StringLiteral(s) => {
                let text = repr_str(s.value.to_str());
                self.w(&text);
            }
            Expr::BytesLiteral(b) => {
                let v = super::pyval::PyVal::Bytes(b.value.bytes().collect());
                self.w(&v.py_repr());
            }
            Expr::NumberLiteral(n) => {
                let text = match &n.value {
                    Number::Int(i) => i.to_string(),
                    Number::Float(f) if f.is_infinite() => "1e309".to_string(),
                    Number::Float(f) => repr_float(*f),
                    Number::Complex { real, imag } => {
                        super::pyval::PyVal::Complex(*real, *imag).py_repr()
                    }
                };
                self.w(&text);
            }
            Expr::BooleanLiteral(b) => self.w(if b.value { "True" } else { "False" }),
            Expr::NoneLiteral(_) => self.w("None"),
            Expr::EllipsisLiteral(_) => self.w("..."),
            Expr::Attribute(a) => {
                self.expr(&a.value, ATOM);
                // `1 .real`: an int literal needs a space before the dot.
                if matches!(&*a.value, Expr::NumberLiteral(n) if matches!(n.value, Number::Int(_)))
                {
                    self.w(" ");
                }
                self.w(".");
                self.w(a.attr.as_str());
            }
            Expr::Subscript(s) => {
                self.expr(&s.value, ATOM);
                self.w("[");
                match &*s.slice {
                    Expr::Tuple(t) if !t.elts.is_empty() => {
                        self.items(&t.elts);
                        if t.elts.len() == 1 {
                            self.w(",");
                        }
                    }
                    other => self.expr(other, TUPLE),
                }
                self.w("]");
            }
            Expr::Starred(s) => {
                self.w("*");
                self.expr(&s.value, BOR);
            }
            Expr::Name(n) => self.w(n.id.as_str()),
            Expr::List(l) => {
                self.w("[");
                self.items(&l.elts);
                self.w("]");
            }
            Expr::Tuple(t) => {
                let p = t.elts.is_empty() || prec > TUPLE;
                if p {
                    self.w("(");
                }
                self.items(&t.elts);
                if t.elts.len() == 1 {
                    self.w(",");
                }
                if p {
                    self.w(")");
                }
            }
            Expr::Slice(s) => {
                if let Some(l) = &s.lower {
                    self.expr(l, TEST);
                }
                self.w(":");
                if let Some(u) = &s.upper {
                    self.expr(u, TEST);
                }
                if let Some(st) = &s.step {
                    self.w(":");
                    self.expr(st, TEST);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn up(src: &str) -> String {
        let parsed = ruff_python_parser::parse_expression(src).unwrap();
        unparse(parsed.expr(), src)
    }

    // Expected strings are CPython 3.11 ast.unparse outputs.
    #[test]
    fn matches_cpython_unparse() {
        assert_eq!(up("{ 'A' :BASE}"), "{'A': BASE}");
        assert_eq!(up("a,b"), "(a, b)");
        assert_eq!(up("x[1,2]"), "x[1, 2]");
        assert_eq!(up("(a+b)*c"), "(a + b) * c");
        assert_eq!(up("a if b else c"), "a if b else c");
        assert_eq!(up("not (a and b)"), "not (a and b)");
        assert_eq!(up("f(x for x in y)"), "f((x for x in y))");
        assert_eq!(up("(x:=1)"), "(x := 1)");
        assert_eq!(up("1e20"), "1e+20");
        assert_eq!(up("2 ** -1"), "2 ** (-1)");
        assert_eq!(up("(-1) ** 2"), "(-1) ** 2");
        assert_eq!(up("{**x, 1:2}"), "{**x, 1: 2}");
        assert_eq!(up("x[1:2, ::3]"), "x[1:2, ::3]");
        assert_eq!(up("0xFF"), "255");
        assert_eq!(up("\"it's\""), "\"it's\"");
        assert_eq!(up("-x ** 2"), "-x ** 2");
        assert_eq!(up("[ (0,0), (1 ,2) ]"), "[(0, 0), (1, 2)]");
    }
}
