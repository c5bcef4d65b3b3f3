//! Program generators for the grid tests: ideal compositional programs of four styles and
//! memorising programs of eight forms, derived from a record's data.
#![allow(dead_code)]

use kcomp::datasets::string_grid::Record;
use std::path::PathBuf;

pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/rgp")
}

/// Per position: its cells (row, col) and the cell values for its first and second letter.
pub struct Layout {
    pub cells: Vec<Vec<(usize, usize)>>,
    pub values: Vec<[Vec<char>; 2]>,
}

fn grid_chars(g: &str) -> Vec<char> {
    g.chars().filter(|c| *c != '\n').collect()
}

/// Infers which cells each position drives from pairs of samples differing in one letter.
pub fn infer_layout(rec: &Record) -> Layout {
    let letters: Vec<Vec<char>> = rec
        .input
        .iter()
        .map(|s| s.split(' ').map(|t| t.chars().next().unwrap()).collect())
        .collect();
    let grids: Vec<Vec<char>> = rec.output.iter().map(|g| grid_chars(g)).collect();
    let mut cells = Vec::new();
    let mut values = Vec::new();
    for i in 0..4 {
        let (a, b) = (0..16)
            .flat_map(|a| (0..16).map(move |b| (a, b)))
            .find(|&(a, b)| (0..4).all(|j| (letters[a][j] == letters[b][j]) != (j == i)))
            .expect("pair differing in one position");
        let cs: Vec<usize> = (0..16).filter(|&c| grids[a][c] != grids[b][c]).collect();
        let first = (0..16)
            .find(|&x| letters[x][i] as u8 == b'A' + 2 * i as u8)
            .unwrap();
        let second = (0..16)
            .find(|&x| letters[x][i] as u8 == b'B' + 2 * i as u8)
            .unwrap();
        values.push([
            cs.iter().map(|&c| grids[first][c]).collect(),
            cs.iter().map(|&c| grids[second][c]).collect(),
        ]);
        cells.push(cs.iter().map(|&c| (c / 4, c % 4)).collect());
    }
    Layout { cells, values }
}

fn letter(i: usize, v: usize) -> char {
    (b'A' + (2 * i + v) as u8) as char
}

const HEAD: &str = "s = input().split()\ngrid = [['.'] * 4 for _ in range(4)]\n";
const TAIL: &str = "print('\\n'.join(''.join(r) for r in grid))\n";

/// One dict entry per letter: letter -> [(row, col, value), ...].
pub fn ideal_dict(l: &Layout) -> String {
    let mut entries = Vec::new();
    for i in 0..4 {
        for v in 0..2 {
            let cells: Vec<String> = l.cells[i]
                .iter()
                .zip(&l.values[i][v])
                .map(|((r, c), ch)| format!("({r}, {c}, '{ch}')"))
                .collect();
            entries.push(format!("    '{}': [{}],", letter(i, v), cells.join(", ")));
        }
    }
    format!(
        "CELLS = {{\n{}\n}}\n{HEAD}for ch in s:\n    for r, c, val in CELLS[ch]:\n        grid[r][c] = val\n{TAIL}",
        entries.join("\n")
    )
}

/// Coordinate lists: letter -> the cells it turns on.
pub fn ideal_coords(l: &Layout) -> String {
    let mut entries = Vec::new();
    for i in 0..4 {
        for v in 0..2 {
            let on: Vec<String> = l.cells[i]
                .iter()
                .zip(&l.values[i][v])
                .filter(|(_, ch)| **ch == '*')
                .map(|((r, c), _)| format!("({r}, {c})"))
                .collect();
            entries.push(format!("    '{}': [{}],", letter(i, v), on.join(", ")));
        }
    }
    format!(
        "ON = {{\n{}\n}}\n{HEAD}for ch in s:\n    for r, c in ON[ch]:\n        grid[r][c] = '*'\n{TAIL}",
        entries.join("\n")
    )
}

/// If/else chains: one branch per letter assigning its cells.
pub fn ideal_if_else(l: &Layout) -> String {
    let mut body = String::from(HEAD);
    for i in 0..4 {
        body.push_str(&format!("if s[{i}] == '{}':\n", letter(i, 0)));
        for v in 0..2 {
            if v == 1 {
                body.push_str("else:\n");
            }
            for ((r, c), ch) in l.cells[i].iter().zip(&l.values[i][v]) {
                body.push_str(&format!("    grid[{r}][{c}] = '{ch}'\n"));
            }
        }
    }
    body.push_str(TAIL);
    body
}

/// Per-cell rules: each cell is '*' iff its position holds the letter that turns it on.
pub fn ideal_per_cell(l: &Layout) -> String {
    let mut body = String::from(HEAD);
    for i in 0..4 {
        for (k, (r, c)) in l.cells[i].iter().enumerate() {
            let on = if l.values[i][0][k] == '*' {
                letter(i, 0)
            } else {
                letter(i, 1)
            };
            body.push_str(&format!(
                "grid[{r}][{c}] = '*' if s[{i}] == '{on}' else '.'\n"
            ));
        }
    }
    body.push_str(TAIL);
    body
}

fn py_str(s: &str) -> String {
    format!("'{}'", s.replace('\n', "\\n"))
}

fn grid_int(g: &str) -> u32 {
    grid_chars(g)
        .iter()
        .fold(0, |acc, c| (acc << 1) | u32::from(*c == '*'))
}

/// Python expression: index of the input in product order (position 0 most significant).
const INDEX: &str = "idx = sum((ord(ch) - 65) % 2 << (3 - i) for i, ch in enumerate(s))\n";

/// Memorising programs in eight forms (all correct on the record).
pub fn memorisers(rec: &Record) -> Vec<(&'static str, String)> {
    let pairs: Vec<(String, String)> = rec
        .input
        .iter()
        .cloned()
        .zip(rec.output.iter().cloned())
        .collect();
    let mut by_index = vec![String::new(); 16];
    for (x, y) in &pairs {
        let idx = x.split(' ').enumerate().fold(0, |acc, (i, t)| {
            acc | (((t.as_bytes()[0] - b'A') as usize % 2) << (3 - i))
        });
        by_index[idx] = y.clone();
    }
    let dict = pairs
        .iter()
        .map(|(x, y)| format!("    '{x}': {},", py_str(y)))
        .collect::<Vec<_>>()
        .join("\n");
    let keys = pairs
        .iter()
        .map(|(x, _)| format!("'{x}'"))
        .collect::<Vec<_>>()
        .join(", ");
    let vals = pairs
        .iter()
        .map(|(_, y)| py_str(y))
        .collect::<Vec<_>>()
        .join(", ");
    let table = pairs
        .iter()
        .map(|(x, y)| format!("{x}\n{y}"))
        .collect::<Vec<_>>()
        .join("\n\n");
    let ints = pairs
        .iter()
        .map(|(x, y)| format!("    '{x}': {:#06x},", grid_int(y)))
        .collect::<Vec<_>>()
        .join("\n");
    let int_list = by_index
        .iter()
        .map(|y| grid_int(y).to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let bytes_lit: String = by_index
        .iter()
        .flat_map(|y| grid_int(y).to_be_bytes()[2..].to_vec())
        .map(|b| format!("\\x{b:02x}"))
        .collect();
    let chain = pairs
        .iter()
        .enumerate()
        .map(|(k, (x, y))| {
            format!(
                "{}if key == '{x}':\n    print({})\n",
                if k == 0 { "" } else { "el" },
                py_str(y)
            )
        })
        .collect::<String>();
    let tuples = pairs
        .iter()
        .map(|(x, y)| format!("('{x}', {})", py_str(y)))
        .collect::<Vec<_>>()
        .join(",\n    ");
    let bit_rows = by_index
        .iter()
        .map(|y| {
            let bits: Vec<&str> = grid_chars(y)
                .iter()
                .map(|c| if *c == '*' { "1" } else { "0" })
                .collect();
            format!("    [{}],", bits.join(", "))
        })
        .collect::<Vec<_>>()
        .join("\n");
    let decode = "print('\\n'.join(''.join('*' if v >> (15 - 4 * r - c) & 1 else '.' for c in range(4)) for r in range(4)))\n";
    vec![
        (
            "dict",
            format!("TABLE = {{\n{dict}\n}}\nprint(TABLE[input().strip()])\n"),
        ),
        (
            "dict_comprehension",
            format!(
                "TABLE = {{k: v for k, v in zip([{keys}], [{vals}])}}\nprint(TABLE[input().strip()])\n"
            ),
        ),
        (
            "triple_quoted",
            format!(
                "DATA = \"\"\"\n{table}\n\"\"\"\nblocks = DATA.strip().split('\\n\\n')\nTABLE = {{b.split('\\n')[0]: '\\n'.join(b.split('\\n')[1:]) for b in blocks}}\nprint(TABLE[input().strip()])\n"
            ),
        ),
        (
            "int_by_input",
            format!("TABLE = {{\n{ints}\n}}\nv = TABLE[input().strip()]\n{decode}"),
        ),
        (
            "int_by_index",
            format!("GRIDS = [{int_list}]\ns = input().split()\n{INDEX}v = GRIDS[idx]\n{decode}"),
        ),
        (
            "bytes",
            format!(
                "RAW = b'{bytes_lit}'\ns = input().split()\n{INDEX}v = RAW[2 * idx] << 8 | RAW[2 * idx + 1]\n{decode}"
            ),
        ),
        ("if_chain", format!("key = input().strip()\n{chain}")),
        (
            "nested_dict",
            format!(
                "TREE = {}\nnode = TREE\nfor ch in input().split():\n    node = node[ch]\nprint(node)\n",
                nested(&pairs, 0)
            ),
        ),
        (
            "bit_lists",
            format!(
                "GRIDS = [\n{bit_rows}\n]\ns = input().split()\n{INDEX}g = GRIDS[idx]\n\
                 print('\\n'.join(''.join('*' if g[4 * r + c] else '.' for c in range(4)) for r in range(4)))\n"
            ),
        ),
        (
            "pairs_list",
            format!(
                "PAIRS = [\n    {tuples},\n]\nkey = input().strip()\nfor x, y in PAIRS:\n    if x == key:\n        print(y)\n"
            ),
        ),
    ]
}

/// A decision tree of nested dicts keyed by one letter per level.
fn nested(pairs: &[(String, String)], level: usize) -> String {
    if level == 4 {
        return py_str(&pairs[0].1);
    }
    let mut letters: Vec<&str> = pairs
        .iter()
        .map(|(x, _)| x.split(' ').nth(level).unwrap())
        .collect();
    letters.sort();
    letters.dedup();
    let items: Vec<String> = letters
        .iter()
        .map(|l| {
            let sub: Vec<(String, String)> = pairs
                .iter()
                .filter(|(x, _)| x.split(' ').nth(level) == Some(l))
                .cloned()
                .collect();
            format!("'{l}': {}", nested(&sub, level + 1))
        })
        .collect();
    format!("{{{}}}", items.join(", "))
}

/// A compositional program followed by an unused self-test table of all samples.
pub fn with_unused_selftest(program: &str, rec: &Record) -> String {
    let dict = rec
        .input
        .iter()
        .zip(&rec.output)
        .map(|(x, y)| format!("'{x}': {}", py_str(y)))
        .collect::<Vec<_>>()
        .join(", ");
    format!("{program}\nSELF_TEST = {{{dict}}}\n")
}
