//! Paths by which data can reach a program's output without being a literal the robust parser
//! counts: code run from strings (`eval`, `exec`, `compile`), deserialisers and decoders
//! (`pickle`, `marshal`, `codecs`, `zlib`, `base64`, `struct`, ...), introspection that reads
//! names, docstrings or the program's own source back as data (`inspect`, `__doc__`,
//! `__code__`, `__name__` of a function, `globals()`, `vars()`, `__file__`, `sys.argv`,
//! `open` of a file), and `unicodedata` normalisation. Any of them anywhere in the program
//! (dead code too: fail closed) makes the robust parser report `hidden_data` with the path
//! named, unless nothing is flagged.
//!
//! This is the static side; at run time the sandbox keeps the program from reading its own
//! source.

use std::collections::{BTreeSet, HashSet};

use ruff_python_ast::visitor::{Visitor, walk_expr, walk_stmt};
use ruff_python_ast::{Expr, ExprContext, Stmt};

/// Modules whose only use in a string-to-grid program is decoding or introspecting data.
const MODULES: &[&str] = &[
    "inspect",
    "pickle",
    "cPickle",
    "_pickle",
    "marshal",
    "codecs",
    "zlib",
    "gzip",
    "bz2",
    "lzma",
    "zipfile",
    "tarfile",
    "base64",
    "binascii",
    "quopri",
    "uu",
    "struct",
    "unicodedata",
    "importlib",
    "dis",
    "types",
    "ast",
    "shelve",
    "json",
    "ctypes",
    "array",
    "encodings",
    "linecache",
    "tokenize",
    "traceback",
    "gc",
    "builtins",
    "__builtin__",
    "code",
    "codeop",
    "runpy",
    "pkgutil",
    "pathlib",
    "fileinput",
    "mmap",
    "subprocess",
    "enum",
    "copyreg",
    "pickletools",
    "xdrlib",
    "plistlib",
    "csv",
    "configparser",
    "sqlite3",
    "dbm",
    "io",
    "__main__",
];

/// Builtins that run code from strings, read names back, or open files.
const BUILTINS: &[&str] = &[
    "eval",
    "exec",
    "compile",
    "globals",
    "locals",
    "vars",
    "dir",
    "__import__",
    "breakpoint",
    "help",
    "memoryview",
];

/// Attributes that read code objects, frames, fields or names back as data.
const ATTRS: &[&str] = &[
    "co_consts",
    "co_names",
    "co_varnames",
    "co_code",
    "co_filename",
    "co_cellvars",
    "co_freevars",
    "co_lines",
    "f_locals",
    "f_globals",
    "f_code",
    "f_back",
    "gi_frame",
    "gi_code",
    "cr_frame",
    "tb_frame",
    "_fields",
    "_asdict",
    "_field_defaults",
    "_getframe",
    "get_type_hints",
    "getsource",
    "getdoc",
    "fromhex",
    "frombytes",
    "from_bytes",
    "b64decode",
    "unhexlify",
    "decompress",
    "loads",
    "unpack",
    "normalize",
    "system",
    "popen",
    "fdopen",
    "listdir",
];

/// Special methods (callables, no data) a program may reach by attribute.
const METHOD_DUNDERS: &[&str] = &[
    "__init__",
    "__call__",
    "__getitem__",
    "__setitem__",
    "__iter__",
    "__next__",
    "__len__",
    "__str__",
    "__repr__",
    "__eq__",
    "__ne__",
    "__hash__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__contains__",
    "__add__",
    "__or__",
    "__and__",
    "__xor__",
    "__enter__",
    "__exit__",
    "__new__",
    "__format__",
    "__bool__",
    "__missing__",
];

/// Attributes of `sys` a program may use (standard streams, exit, limits).
const SYS_ATTRS: &[&str] = &[
    "stdin",
    "stdout",
    "stderr",
    "exit",
    "setrecursionlimit",
    "getrecursionlimit",
    "maxsize",
];

/// Text codecs that only change how characters are stored.
const PLAIN_CODECS: &[&str] = &[
    "utf-8", "utf8", "utf_8", "ascii", "latin-1", "latin1", "latin_1",
];

/// A program's identifier as it may appear in a report: ASCII word characters, others `?`.
fn safe(s: &str) -> String {
    s.chars()
        .take(40)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '?'
            }
        })
        .collect()
}

fn is_dunder(s: &str) -> bool {
    s.len() > 4 && s.starts_with("__") && s.ends_with("__")
}

#[derive(Default)]
struct Paths {
    found: BTreeSet<String>,
    /// Builtin names of [`BUILTINS`] the program loads (unless it binds them itself).
    builtin_loads: BTreeSet<String>,
    /// Names the program binds (a variable called `dir` is not the builtin).
    bound: HashSet<String>,
}

/// Functions and classes the program defines, and those it uses as values (not called).
#[derive(Default)]
struct Objects {
    defined: HashSet<String>,
    called: HashSet<usize>,
    loads: Vec<(usize, String)>,
}

impl<'a> Visitor<'a> for Objects {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::FunctionDef(f) => {
                self.defined.insert(f.name.to_string());
            }
            Stmt::ClassDef(c) => {
                self.defined.insert(c.name.to_string());
            }
            _ => {}
        }
        walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Call(c) => {
                if let Expr::Name(n) = &*c.func {
                    self.called.insert(n.range.start().to_usize());
                }
            }
            Expr::Name(n) if matches!(n.ctx, ExprContext::Load) => {
                self.loads
                    .push((n.range.start().to_usize(), n.id.to_string()));
            }
            _ => {}
        }
        walk_expr(self, expr);
    }
}

/// Functions or classes used as values (a repr, an exception's name, a list of them) can
/// carry data in their names: eight or more distinct ones is a path.
const MAX_OBJECT_VALUES: usize = 8;

impl Paths {
    fn module(&mut self, name: &str) {
        let root = name.split('.').next().unwrap_or_default();
        if MODULES.contains(&root) {
            self.found.insert(format!("import {root}"));
        }
    }
}

/// Whether a call opens standard input (`open(0)`, `open(sys.stdin.fileno())`).
fn opens_stdin(args: &[Expr]) -> bool {
    match args.first() {
        Some(Expr::NumberLiteral(n)) => n.value.as_int().and_then(|i| i.as_u8()) == Some(0),
        Some(Expr::Call(c)) => {
            matches!(&*c.func, Expr::Attribute(a) if a.attr.as_str() == "fileno")
        }
        _ => false,
    }
}

impl<'a> Visitor<'a> for Paths {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::FunctionDef(f) => {
                self.bound.insert(f.name.to_string());
                for p in f.parameters.iter() {
                    self.bound.insert(p.name().to_string());
                }
            }
            Stmt::Import(i) => i.names.iter().for_each(|a| self.module(a.name.as_str())),
            Stmt::ImportFrom(i) => {
                if let Some(m) = &i.module {
                    self.module(m.as_str());
                    if m.as_str() == "sys" || m.as_str() == "os" {
                        for a in &i.names {
                            let n = a.name.as_str();
                            if !SYS_ATTRS.contains(&n) && n != "read" {
                                self.found.insert(format!("from {m} import {}", safe(n)));
                            }
                        }
                    }
                }
                for a in &i.names {
                    if a.name.as_str() == "*" {
                        self.found.insert("import *".into());
                    }
                }
            }
            _ => {}
        }
        walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Name(n) => {
                let id = n.id.as_str();
                if !matches!(n.ctx, ExprContext::Load) {
                    self.bound.insert(id.to_string());
                }
                if matches!(n.ctx, ExprContext::Load) {
                    if BUILTINS.contains(&id) {
                        self.builtin_loads.insert(id.to_string());
                    }
                    if is_dunder(id) && id != "__name__" && id != "__debug__" {
                        self.found.insert(safe(id));
                    }
                }
            }
            Expr::Attribute(a) => {
                let attr = a.attr.as_str();
                if is_dunder(attr) && !METHOD_DUNDERS.contains(&attr) {
                    self.found.insert(format!(".{}", safe(attr)));
                }
                if ATTRS.contains(&attr) {
                    self.found.insert(format!(".{}", safe(attr)));
                }
                if let Expr::Name(base) = &*a.value {
                    let b = base.id.as_str();
                    if b == "sys" && !SYS_ATTRS.contains(&attr) {
                        self.found.insert(format!("sys.{}", safe(attr)));
                    }
                    if b == "os" && !matches!(attr, "read" | "write") {
                        self.found.insert(format!("os.{}", safe(attr)));
                    }
                }
            }
            Expr::Call(c) => {
                if let Expr::Name(f) = &*c.func {
                    match f.id.as_str() {
                        "open" if !opens_stdin(&c.arguments.args) => {
                            self.found.insert("open() of a file".into());
                        }
                        "getattr" | "setattr" | "delattr" | "hasattr"
                            if !matches!(c.arguments.args.get(1), Some(Expr::StringLiteral(_))) =>
                        {
                            self.found
                                .insert(format!("{}() with a computed name", f.id));
                        }
                        _ => {}
                    }
                }
                if let Expr::Attribute(a) = &*c.func
                    && matches!(a.attr.as_str(), "encode" | "decode")
                {
                    let plain = match c.arguments.args.first() {
                        None => true,
                        Some(Expr::StringLiteral(s)) => {
                            PLAIN_CODECS.contains(&s.value.to_str().to_ascii_lowercase().as_str())
                        }
                        Some(_) => false,
                    };
                    if !plain || !c.arguments.keywords.is_empty() {
                        self.found.insert(format!(".{}() with a codec", a.attr));
                    }
                }
            }
            _ => {}
        }
        walk_expr(self, expr);
    }
}

/// The hidden-data paths of a program, sorted (empty when none, or when it does not parse).
pub fn paths(code: &str) -> Vec<String> {
    let Some(parsed) = super::parse_guarded(code) else {
        return Vec::new();
    };
    let mut p = Paths::default();
    let mut o = Objects::default();
    for s in &parsed.syntax().body {
        p.visit_stmt(s);
        o.visit_stmt(s);
    }
    let values: HashSet<&String> = o
        .loads
        .iter()
        .filter(|(at, id)| !o.called.contains(at) && o.defined.contains(id))
        .map(|(_, id)| id)
        .collect();
    if values.len() >= MAX_OBJECT_VALUES {
        p.found.insert(format!(
            "{} functions or classes used as values",
            values.len()
        ));
    }
    for b in &p.builtin_loads {
        if !p.bound.contains(b) {
            p.found.insert(format!("{b}()"));
        }
    }
    p.found.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding_and_introspection_paths_are_named() {
        assert_eq!(paths("import base64\nprint(1)"), ["import base64"]);
        assert_eq!(paths("exec('print(1)')"), ["exec()"]);
        assert_eq!(paths("def f(): pass\nprint(f.__name__)"), [".__name__"]);
        assert_eq!(paths("print(__doc__)"), ["__doc__"]);
        assert_eq!(paths("import sys\nprint(sys.argv)"), ["sys.argv"]);
        assert_eq!(paths("print(open('x.py').read())"), ["open() of a file"]);
        assert_eq!(
            paths("print('nybg'.encode('rot13'))"),
            [".encode() with a codec"]
        );
    }

    #[test]
    fn ordinary_programs_have_no_path() {
        let code = "import sys\nfrom functools import reduce\nclass G:\n    def __init__(self):\n        \
                    self.g = [['.'] * 4 for _ in range(4)]\nif __name__ == '__main__':\n    \
                    s = open(0).read().split()\n    print(sys.stdin, reduce(max, [1]), 'x'.encode())\n";
        assert!(paths(code).is_empty(), "{:?}", paths(code));
        // A variable or parameter named like a builtin is not the builtin.
        assert!(paths("dir = input()\nprint(dir)\ndef f(vars):\n    return vars\n").is_empty());
        assert_eq!(paths("print(dir())"), ["dir()"]);
    }
}
