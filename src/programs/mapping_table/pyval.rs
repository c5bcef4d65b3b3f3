//! Python literal values as `ast.literal_eval` produces them, with Python's `str`/`repr` and
//! equality (1 == 1.0 == True), so dict keys collapse and key spaces read as the reference's do.

use ruff_python_ast::{Expr, Number, UnaryOp};

/// A value `ast.literal_eval` can return.
#[derive(Debug, Clone)]
pub enum PyVal {
    Str(String),
    Bytes(Vec<u8>),
    /// Decimal text of an int too large for i128 is kept as text.
    Int(i128),
    BigInt(String),
    Float(f64),
    Complex(f64, f64),
    Bool(bool),
    None,
    Ellipsis,
    Tuple(Vec<PyVal>),
    List(Vec<PyVal>),
    Set(Vec<PyVal>),
    Dict(Vec<(PyVal, PyVal)>),
}

impl PyVal {
    fn as_num(&self) -> Option<f64> {
        match self {
            PyVal::Int(i) => Some(*i as f64),
            PyVal::Float(f) => Some(*f),
            PyVal::Bool(b) => Some(f64::from(u8::from(*b))),
            PyVal::Complex(r, 0.0) => Some(*r),
            _ => None,
        }
    }

    /// A hash consistent with [`PyVal::py_eq`] (equal values share it; unequal ones may too),
    /// so that deduplicating keys is linear instead of quadratic.
    pub fn eq_bucket(&self) -> u64 {
        use std::hash::Hasher;
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.bucket_into(&mut h);
        h.finish()
    }

    fn bucket_into(&self, h: &mut impl std::hash::Hasher) {
        use std::hash::Hash;
        if let Some(x) = self.as_num() {
            // 1 == 1.0 == True: one bucket per numeric value (-0.0 == 0.0).
            1u8.hash(h);
            (if x == 0.0 { 0.0f64 } else { x }).to_bits().hash(h);
            return;
        }
        match self {
            PyVal::Str(s) => (2u8, s).hash(h),
            PyVal::Bytes(b) => (3u8, b).hash(h),
            PyVal::BigInt(s) => (4u8, s).hash(h),
            PyVal::None => 5u8.hash(h),
            PyVal::Ellipsis => 6u8.hash(h),
            PyVal::Tuple(v) | PyVal::List(v) => {
                (7u8, v.len()).hash(h);
                for x in v {
                    x.bucket_into(h);
                }
            }
            // Sets, dicts and complex numbers compare structurally: one shared bucket.
            _ => 0u8.hash(h),
        }
    }

    /// Python `==`.
    pub fn py_eq(&self, other: &PyVal) -> bool {
        use PyVal::*;
        match (self, other) {
            (Str(a), Str(b)) => a == b,
            (Bytes(a), Bytes(b)) => a == b,
            (BigInt(a), BigInt(b)) => a == b,
            (Int(a), Int(b)) => a == b,
            (None, None) | (Ellipsis, Ellipsis) => true,
            (Complex(a, b), Complex(c, d)) => a == c && b == d,
            (Tuple(a), Tuple(b)) | (List(a), List(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.py_eq(y))
            }
            (Set(a), Set(b)) => {
                a.len() == b.len() && a.iter().all(|x| b.iter().any(|y| x.py_eq(y)))
            }
            (Dict(a), Dict(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .all(|(k, v)| b.iter().any(|(k2, v2)| k.py_eq(k2) && v.py_eq(v2)))
            }
            _ => match (self.as_num(), other.as_num()) {
                (Some(a), Some(b)) => a == b,
                _ => false,
            },
        }
    }

    /// Whether Python can hash it (lists, sets and dicts cannot be keys).
    pub fn hashable(&self) -> bool {
        match self {
            PyVal::List(_) | PyVal::Set(_) | PyVal::Dict(_) => false,
            PyVal::Tuple(items) => items.iter().all(PyVal::hashable),
            _ => true,
        }
    }

    /// Python `str(value)`.
    pub fn py_str(&self) -> String {
        match self {
            PyVal::Str(s) => s.clone(),
            _ => self.py_repr(),
        }
    }

    /// Python `repr(value)`.
    pub fn py_repr(&self) -> String {
        let join = |items: &[PyVal]| {
            items
                .iter()
                .map(PyVal::py_repr)
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            PyVal::Str(s) => repr_str(s),
            PyVal::Bytes(b) => repr_bytes(b),
            PyVal::Int(i) => i.to_string(),
            PyVal::BigInt(s) => s.clone(),
            PyVal::Float(f) => repr_float(*f),
            PyVal::Complex(r, i) => {
                if *r == 0.0 && r.is_sign_positive() {
                    format!("{}j", repr_float_short(*i))
                } else {
                    let sign = if *i < 0.0 || (*i == 0.0 && i.is_sign_negative()) {
                        "-"
                    } else {
                        "+"
                    };
                    format!(
                        "({}{}{}j)",
                        repr_float_short(*r),
                        sign,
                        repr_float_short(i.abs())
                    )
                }
            }
            PyVal::Bool(true) => "True".into(),
            PyVal::Bool(false) => "False".into(),
            PyVal::None => "None".into(),
            PyVal::Ellipsis => "Ellipsis".into(),
            PyVal::Tuple(items) if items.len() == 1 => format!("({},)", items[0].py_repr()),
            PyVal::Tuple(items) => format!("({})", join(items)),
            PyVal::List(items) => format!("[{}]", join(items)),
            PyVal::Set(items) if items.is_empty() => "set()".into(),
            PyVal::Set(items) => format!("{{{}}}", join(items)),
            PyVal::Dict(items) => format!(
                "{{{}}}",
                items
                    .iter()
                    .map(|(k, v)| format!("{}: {}", k.py_repr(), v.py_repr()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// Python `repr(str)`: single quotes unless the text has a single and no double quote.
pub fn repr_str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c if (c as u32) > 0x7f && (c.is_control() || c.is_whitespace() && c != ' ') => {
                let v = c as u32;
                if v <= 0xff {
                    out.push_str(&format!("\\x{v:02x}"));
                } else if v <= 0xffff {
                    out.push_str(&format!("\\u{v:04x}"));
                } else {
                    out.push_str(&format!("\\U{v:08x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

fn repr_bytes(b: &[u8]) -> String {
    let quote = if b.contains(&b'\'') && !b.contains(&b'"') {
        b'"'
    } else {
        b'\''
    };
    let mut out = String::from("b");
    out.push(quote as char);
    for &c in b {
        match c {
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c as char);
            }
            0x20..=0x7e => out.push(c as char),
            c => out.push_str(&format!("\\x{c:02x}")),
        }
    }
    out.push(quote as char);
    out
}

/// Python `repr(float)`: shortest round-trip digits, exponent form outside [1e-4, 1e16).
pub fn repr_float(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let s = repr_float_short(f);
    if s.contains(['.', 'e', 'n', 'i']) {
        s
    } else {
        format!("{s}.0")
    }
}

fn repr_float_short(f: f64) -> String {
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    if !f.is_finite() {
        return repr_float(f);
    }
    let a = f.abs();
    if (1e-4..1e16).contains(&a) {
        let s = format!("{f}");
        return s;
    }
    // Rust's {:e} gives the shortest digits too: "1e20", "1.5e-7".
    let s = format!("{f:e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mant}e{sign}{:02}", exp.abs())
}

/// `ast.literal_eval` of an expression node; `None` when it would raise.
pub fn literal_eval(expr: &Expr) -> Option<PyVal> {
    match expr {
        Expr::StringLiteral(s) => Some(PyVal::Str(s.value.to_str().to_string())),
        Expr::BytesLiteral(b) => Some(PyVal::Bytes(b.value.bytes().collect())),
        Expr::NumberLiteral(n) => Some(number(&n.value)),
        Expr::BooleanLiteral(b) => Some(PyVal::Bool(b.value)),
        Expr::NoneLiteral(_) => Some(PyVal::None),
        Expr::EllipsisLiteral(_) => Some(PyVal::Ellipsis),
        Expr::Tuple(t) => t
            .elts
            .iter()
            .map(literal_eval)
            .collect::<Option<_>>()
            .map(PyVal::Tuple),
        Expr::List(t) => t
            .elts
            .iter()
            .map(literal_eval)
            .collect::<Option<_>>()
            .map(PyVal::List),
        Expr::Set(t) => {
            let items: Vec<PyVal> = t.elts.iter().map(literal_eval).collect::<Option<_>>()?;
            if !items.iter().all(PyVal::hashable) {
                return None;
            }
            Some(PyVal::Set(dedupe(items)))
        }
        Expr::Dict(d) => {
            let mut items: Vec<(PyVal, PyVal)> = Vec::new();
            for item in &d.items {
                let k = literal_eval(item.key.as_ref()?)?;
                let v = literal_eval(&item.value)?;
                if !k.hashable() {
                    return None;
                }
                if let Some(slot) = items.iter_mut().find(|(k2, _)| k2.py_eq(&k)) {
                    slot.1 = v;
                } else {
                    items.push((k, v));
                }
            }
            Some(PyVal::Dict(items))
        }
        Expr::Call(c)
            if c.arguments.args.is_empty()
                && c.arguments.keywords.is_empty()
                && matches!(&*c.func, Expr::Name(n) if n.id.as_str() == "set") =>
        {
            Some(PyVal::Set(Vec::new()))
        }
        Expr::UnaryOp(u) if matches!(u.op, UnaryOp::USub | UnaryOp::UAdd) => {
            let v = match &*u.operand {
                Expr::NumberLiteral(n) => number(&n.value),
                _ => return None,
            };
            if matches!(u.op, UnaryOp::UAdd) {
                return Some(v);
            }
            Some(match v {
                PyVal::Int(i) => PyVal::Int(-i),
                PyVal::BigInt(s) => PyVal::BigInt(format!("-{s}")),
                PyVal::Float(f) => PyVal::Float(-f),
                PyVal::Complex(r, i) => PyVal::Complex(-r, -i),
                other => other,
            })
        }
        Expr::BinOp(b) => {
            // only real +/- complex, as literal_eval allows
            use ruff_python_ast::Operator;
            let l = literal_eval(&b.left)?;
            let r = literal_eval(&b.right)?;
            let lr = match l {
                PyVal::Int(i) => i as f64,
                PyVal::Float(f) => f,
                _ => return None,
            };
            let PyVal::Complex(0.0, im) = r else {
                return None;
            };
            match b.op {
                Operator::Add => Some(PyVal::Complex(lr, im)),
                Operator::Sub => Some(PyVal::Complex(lr, -im)),
                _ => None,
            }
        }
        _ => None,
    }
}

fn number(n: &Number) -> PyVal {
    match n {
        Number::Int(i) => match i.as_i64() {
            Some(v) => PyVal::Int(i128::from(v)),
            None => {
                let s = i.to_string();
                s.parse::<i128>()
                    .map(PyVal::Int)
                    .unwrap_or(PyVal::BigInt(s))
            }
        },
        Number::Float(f) => PyVal::Float(*f),
        Number::Complex { real, imag } => PyVal::Complex(*real, *imag),
    }
}

fn dedupe(items: Vec<PyVal>) -> Vec<PyVal> {
    let mut out: Vec<PyVal> = Vec::new();
    for it in items {
        if !out.iter().any(|o| o.py_eq(&it)) {
            out.push(it);
        }
    }
    out
}

/// An atom of the reference's m count: a 1-char str, a tuple of exactly two ints, or any
/// non-iterable scalar.
fn is_atom(v: &PyVal) -> bool {
    match v {
        PyVal::Str(s) => s.chars().count() == 1,
        PyVal::Tuple(t) => {
            t.len() == 2
                && t.iter()
                    .all(|x| matches!(x, PyVal::Int(_) | PyVal::BigInt(_) | PyVal::Bool(_)))
        }
        PyVal::Bytes(_) | PyVal::List(_) | PyVal::Set(_) | PyVal::Dict(_) => false,
        _ => true,
    }
}

fn expand(v: &PyVal, out: &mut Vec<PyVal>) {
    match v {
        PyVal::Str(s) => out.extend(s.chars().map(|c| PyVal::Str(c.to_string()))),
        PyVal::Bytes(b) => out.extend(b.iter().map(|&c| PyVal::Int(i128::from(c)))),
        PyVal::Tuple(t) | PyVal::List(t) | PyVal::Set(t) => out.extend(t.iter().cloned()),
        PyVal::Dict(d) => out.extend(d.iter().map(|(k, _)| k.clone())),
        other => out.push(other.clone()),
    }
}

/// The reference's m of one dict value: flatten round by round, dropping the atoms of a
/// round while other items still need expanding; m is the final length.
pub fn reference_m(v: &PyVal) -> usize {
    if is_atom(v) {
        return 1;
    }
    let mut items = vec![v.clone()];
    // Each round strictly shrinks nesting depth, so this terminates.
    loop {
        if items.iter().all(is_atom) {
            return items.len();
        }
        let mut next = Vec::new();
        for it in items.iter().filter(|x| !is_atom(x)) {
            expand(it, &mut next);
        }
        items = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_repr_matches_python() {
        assert_eq!(repr_float(1.0), "1.0");
        assert_eq!(repr_float(0.1), "0.1");
        assert_eq!(repr_float(1e16), "1e+16");
        assert_eq!(repr_float(1.5e-7), "1.5e-07");
        assert_eq!(repr_float(123456.789), "123456.789");
    }

    #[test]
    fn str_repr_matches_python() {
        assert_eq!(repr_str("a'b"), "\"a'b\"");
        assert_eq!(repr_str("a\nb"), "'a\\nb'");
        assert_eq!(repr_str("'\""), "'\\'\"'");
    }

    #[test]
    fn m_drops_atoms_of_mixed_rounds() {
        let v = PyVal::List(vec![PyVal::Str("*".into()), PyVal::Str("..".into())]);
        assert_eq!(reference_m(&v), 2);
        let t = PyVal::Tuple(vec![PyVal::Int(1), PyVal::Int(2)]);
        assert_eq!(reference_m(&t), 1);
        assert_eq!(reference_m(&PyVal::Str(String::new())), 0);
    }
}
