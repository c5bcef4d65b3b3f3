//! A reader for the small subset of Python's pickle format that plain data written by
//! `pickle.dump` uses (protocols 2-5: ints, floats, strings, tuples, dicts, and the dict
//! classes `dict`, `collections.OrderedDict` and `collections.defaultdict`).
//!
//! Hand-written because no crate reads these files: serde-pickle 1.2 stops at the REDUCE of
//! `collections.OrderedDict` ("expected dict, got Global"), which pybdm's CTM tables (the BDM
//! estimator's reference data) are full of. Nothing is executed: any other global is an
//! error, every length is checked against the bytes left, the memo and the stack are bounded
//! by the input.

use std::rc::Rc;

/// A value of the supported subset.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Int(i64),
    Float(f64),
    Str(Rc<str>),
    Tuple(Vec<Value>),
    /// Items in insertion order (dict, OrderedDict, defaultdict alike).
    Dict(Vec<(Value, Value)>),
    /// A class the subset can call: `dict`, `collections.OrderedDict` or `collections.defaultdict`.
    Class(DictClass),
    Mark,
}

/// The callable classes of the subset; both build a dict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DictClass {
    OrderedDict,
    DefaultDict,
    /// `builtins.dict` (the factory of pybdm's 4- to 9-symbol tables).
    Dict,
}

/// Why a pickle could not be read (with the byte offset).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PickleError {
    pub offset: usize,
    pub message: String,
}

impl std::fmt::Display for PickleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "pickle byte {}: {}", self.offset, self.message)
    }
}

struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn err<T>(&self, message: impl Into<String>) -> Result<T, PickleError> {
        Err(PickleError {
            offset: self.pos,
            message: message.into(),
        })
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], PickleError> {
        if n > self.b.len() - self.pos {
            return self.err(format!(
                "{n} bytes announced, {} left",
                self.b.len() - self.pos
            ));
        }
        let s = &self.b[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn u8(&mut self) -> Result<u8, PickleError> {
        Ok(self.take(1)?[0])
    }

    fn le<const N: usize>(&mut self) -> Result<[u8; N], PickleError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }

    fn line(&mut self) -> Result<&'a str, PickleError> {
        let rest = &self.b[self.pos..];
        let Some(end) = rest.iter().position(|&c| c == b'\n') else {
            return self.err("unterminated line");
        };
        let s = std::str::from_utf8(&rest[..end]).or_else(|_| self.err("line is not UTF-8"))?;
        self.pos += end + 1;
        Ok(s)
    }

    fn string(&mut self, n: usize) -> Result<Value, PickleError> {
        let s = self.take(n)?;
        match std::str::from_utf8(s) {
            Ok(s) => Ok(Value::Str(Rc::from(s))),
            Err(_) => self.err("string is not UTF-8"),
        }
    }
}

fn class(module: &str, name: &str) -> Option<DictClass> {
    match (module, name) {
        ("collections", "OrderedDict") => Some(DictClass::OrderedDict),
        ("collections", "defaultdict") => Some(DictClass::DefaultDict),
        ("builtins", "dict") | ("__builtin__", "dict") => Some(DictClass::Dict),
        _ => None,
    }
}

/// Reads one pickled value.
pub fn from_slice(bytes: &[u8]) -> Result<Value, PickleError> {
    let mut r = Reader { b: bytes, pos: 0 };
    let mut stack: Vec<Value> = Vec::new();
    let mut memo: Vec<Value> = Vec::new();
    let pop = |stack: &mut Vec<Value>, r: &Reader| -> Result<Value, PickleError> {
        stack.pop().map_or_else(|| r.err("stack underflow"), Ok)
    };
    let pop_mark = |stack: &mut Vec<Value>, r: &Reader| -> Result<Vec<Value>, PickleError> {
        match stack.iter().rposition(|v| *v == Value::Mark) {
            Some(i) => {
                let items = stack.split_off(i + 1);
                stack.pop();
                Ok(items)
            }
            None => r.err("no mark on the stack"),
        }
    };
    loop {
        let op = r.u8()?;
        match op {
            0x80 => {
                let proto = r.u8()?;
                if proto > 5 {
                    return r.err(format!("protocol {proto} is newer than 5"));
                }
            }
            0x95 => {
                r.le::<8>()?; // FRAME: a length hint only
            }
            0x8c => {
                let n = r.u8()? as usize;
                stack.push(r.string(n)?);
            }
            b'X' => {
                let n = u32::from_le_bytes(r.le()?) as usize;
                stack.push(r.string(n)?);
            }
            0x8d => {
                let n = u64::from_le_bytes(r.le()?);
                let n = usize::try_from(n).or_else(|_| r.err("string too long"))?;
                stack.push(r.string(n)?);
            }
            0x94 => {
                let top = stack
                    .last()
                    .map_or_else(|| r.err("memoize on an empty stack"), Ok)?;
                memo.push(top.clone());
            }
            b'q' | b'r' => {
                let i = if op == b'q' {
                    r.u8()? as usize
                } else {
                    u32::from_le_bytes(r.le()?) as usize
                };
                let top = stack
                    .last()
                    .map_or_else(|| r.err("put on an empty stack"), Ok)?;
                if i > memo.len() {
                    return r.err(format!("memo index {i} skips entries"));
                }
                if i == memo.len() {
                    memo.push(top.clone());
                } else {
                    memo[i] = top.clone();
                }
            }
            b'h' | b'j' => {
                let i = if op == b'h' {
                    r.u8()? as usize
                } else {
                    u32::from_le_bytes(r.le()?) as usize
                };
                match memo.get(i) {
                    Some(v) => stack.push(v.clone()),
                    None => return r.err(format!("memo index {i} not set")),
                }
            }
            0x93 => {
                let name = pop(&mut stack, &r)?;
                let module = pop(&mut stack, &r)?;
                let (Value::Str(m), Value::Str(n)) = (&module, &name) else {
                    return r.err("STACK_GLOBAL needs two strings");
                };
                match class(m, n) {
                    Some(c) => stack.push(Value::Class(c)),
                    None => return r.err(format!("global {m}.{n} is not allowed")),
                }
            }
            b'c' => {
                let m = r.line()?.to_string();
                let n = r.line()?.to_string();
                match class(&m, &n) {
                    Some(c) => stack.push(Value::Class(c)),
                    None => return r.err(format!("global {m}.{n} is not allowed")),
                }
            }
            b'R' => {
                let args = pop(&mut stack, &r)?;
                let callable = pop(&mut stack, &r)?;
                let Value::Class(_) = callable else {
                    return r.err("REDUCE of something other than a dict class");
                };
                if !matches!(args, Value::Tuple(_)) {
                    return r.err("REDUCE arguments are not a tuple");
                }
                // dict(), OrderedDict() and defaultdict(factory) all start empty.
                stack.push(Value::Dict(Vec::new()));
            }
            b'(' => stack.push(Value::Mark),
            b')' => stack.push(Value::Tuple(Vec::new())),
            0x85..=0x87 => {
                let k = (op - 0x84) as usize;
                if stack.len() < k {
                    return r.err("stack underflow");
                }
                let items = stack.split_off(stack.len() - k);
                stack.push(Value::Tuple(items));
            }
            b't' => {
                let items = pop_mark(&mut stack, &r)?;
                stack.push(Value::Tuple(items));
            }
            b'K' => stack.push(Value::Int(r.u8()? as i64)),
            b'M' => stack.push(Value::Int(u16::from_le_bytes(r.le()?) as i64)),
            b'J' => stack.push(Value::Int(i32::from_le_bytes(r.le()?) as i64)),
            b'G' => stack.push(Value::Float(f64::from_be_bytes(r.le()?))),
            b'}' => stack.push(Value::Dict(Vec::new())),
            b's' | b'u' => {
                let items = if op == b's' {
                    let v = pop(&mut stack, &r)?;
                    let k = pop(&mut stack, &r)?;
                    vec![k, v]
                } else {
                    pop_mark(&mut stack, &r)?
                };
                if items.len() % 2 != 0 {
                    return r.err("odd number of items for a dict");
                }
                let Some(Value::Dict(d)) = stack.last_mut() else {
                    return r.err("SETITEM on something other than a dict");
                };
                let mut it = items.into_iter();
                while let (Some(k), Some(v)) = (it.next(), it.next()) {
                    d.push((k, v));
                }
            }
            b'.' => {
                return match (stack.pop(), stack.is_empty()) {
                    (Some(v), true) => Ok(v),
                    _ => r.err("STOP with a stack that is not one value"),
                };
            }
            other => return r.err(format!("opcode 0x{other:02x} is not supported")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `pickle.dumps(d, protocol=4)` by CPython 3.11 for
    /// `d = collections.defaultdict(collections.OrderedDict); d[(2,)]['00'] = 1.5`.
    fn sample() -> Vec<u8> {
        vec![
            0x80, 0x04, 0x95, 0x4e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x8c, 0x0b, 0x63,
            0x6f, 0x6c, 0x6c, 0x65, 0x63, 0x74, 0x69, 0x6f, 0x6e, 0x73, 0x94, 0x8c, 0x0b, 0x64,
            0x65, 0x66, 0x61, 0x75, 0x6c, 0x74, 0x64, 0x69, 0x63, 0x74, 0x94, 0x93, 0x94, 0x68,
            0x00, 0x8c, 0x0b, 0x4f, 0x72, 0x64, 0x65, 0x72, 0x65, 0x64, 0x44, 0x69, 0x63, 0x74,
            0x94, 0x93, 0x94, 0x85, 0x94, 0x52, 0x94, 0x4b, 0x02, 0x85, 0x94, 0x68, 0x04, 0x29,
            0x52, 0x94, 0x8c, 0x02, 0x30, 0x30, 0x94, 0x47, 0x3f, 0xf8, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x73, 0x73, 0x2e,
        ]
    }

    #[test]
    fn reads_nested_dict_classes() {
        let v = from_slice(&sample()).unwrap();
        let Value::Dict(outer) = v else {
            panic!("not a dict: {v:?}")
        };
        assert_eq!(outer.len(), 1);
        assert_eq!(outer[0].0, Value::Tuple(vec![Value::Int(2)]));
        assert_eq!(
            outer[0].1,
            Value::Dict(vec![(Value::Str(Rc::from("00")), Value::Float(1.5))])
        );
    }

    #[test]
    fn refuses_other_globals_and_truncations() {
        let mut evil = vec![0x80, 4];
        for t in ["os", "system"] {
            evil.push(0x8c);
            evil.push(t.len() as u8);
            evil.extend_from_slice(t.as_bytes());
        }
        evil.push(0x93);
        let e = from_slice(&evil).unwrap_err();
        assert!(e.message.contains("os.system"), "{e}");
        let good = sample();
        for cut in [1, 5, 20, good.len() - 1] {
            assert!(from_slice(&good[..cut]).is_err());
        }
        // A string longer than the input.
        assert!(from_slice(&[0x80, 4, b'X', 0xff, 0xff, 0xff, 0x7f]).is_err());
        assert!(from_slice(&[b'h', 3]).is_err());
    }
}
