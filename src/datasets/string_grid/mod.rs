//! String-to-grid datasets of the rule-generation paper (Xu et al., ACL 2026): each of `k` input
//! positions takes one of `u` letters and drives a fixed set of grid cells, so the mapping is
//! compositional by construction. [`generate`] reproduces the published generator's random
//! stream (Python `random.seed(seed)` once per file) so that `--compat rgp` output equals the
//! six published files byte for byte.
//!
//! Beyond the published generator: a holistic fraction h ([`Holistic`]) gives a fraction of the
//! inputs an arbitrary random grid, drawn from a separate seeded stream so that h = 0 leaves
//! the published stream untouched; [`Setting::Holistic`] is the fully holistic end (h = 1).
//! [`dataset`] turns records into [`crate::dataset::Dataset`]s with the generator's exact
//! K(Z|W); [`args`] holds the options of `kcomp grid generate` and `kcomp grid prompt`.

pub mod args;
pub mod dataset;
pub mod json;
pub mod prompt;

use std::collections::BTreeMap;

use crate::error::{KcompError, Result};
use crate::rng::python_random::PythonRandom;
use crate::rng::stream::{RngKind, Stream};

/// Which cells each input position drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    /// Position i drives row i (contiguous chunk i of the row-major cells).
    Horizontal,
    /// Position i drives column i (chunk i of the column-major cells).
    Vertical,
    /// Position i drives a square block, blocks in row-major order.
    Block,
    /// The cells are shuffled and dealt to the positions.
    Random,
    /// Two random rows are horizontal, the other cells are random.
    HorizontalRandom,
    /// Horizontal with the position-to-row index permuted (never the identity).
    HorizontalIndexShuffle,
    /// Every input gets an arbitrary random grid (holistic fraction 1, no layout).
    Holistic,
}

impl Setting {
    /// All settings in the order the published files are named.
    pub const ALL: [Setting; 6] = [
        Setting::Horizontal,
        Setting::Vertical,
        Setting::Block,
        Setting::Random,
        Setting::HorizontalRandom,
        Setting::HorizontalIndexShuffle,
    ];

    /// Parses `h|v|b|r|hr|h-index-shuffle|holistic` (also the file spelling
    /// `h_index-shuffle`).
    pub fn parse(s: &str) -> Result<Setting> {
        Ok(match s {
            "h" => Setting::Horizontal,
            "v" => Setting::Vertical,
            "b" => Setting::Block,
            "r" => Setting::Random,
            "hr" => Setting::HorizontalRandom,
            "h-index-shuffle" | "h_index-shuffle" | "ri" => Setting::HorizontalIndexShuffle,
            "holistic" => Setting::Holistic,
            other => {
                return Err(KcompError::param(
                    "setting",
                    format!(
                        "unknown setting `{other}` (expected h, v, b, r, hr, h-index-shuffle, holistic)"
                    ),
                ));
            }
        })
    }

    /// Short CLI name.
    pub fn name(self) -> &'static str {
        match self {
            Setting::Horizontal => "h",
            Setting::Vertical => "v",
            Setting::Block => "b",
            Setting::Random => "r",
            Setting::HorizontalRandom => "hr",
            Setting::HorizontalIndexShuffle => "h-index-shuffle",
            Setting::Holistic => "holistic",
        }
    }

    /// The `type=` part of the published file names.
    pub fn file_tag(self) -> &'static str {
        match self {
            Setting::HorizontalIndexShuffle => "h_index-shuffle",
            s => s.name(),
        }
    }
}

/// Shape of a dataset family.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GridSpec {
    /// Number of input positions (k).
    pub positions: usize,
    /// Letters per position (u); position i uses letters `chr(65 + u*i + v)`.
    pub letters: usize,
    /// Grid side; the grid has `side * side` cells, `side * side / positions` per position.
    pub side: usize,
    /// Samples per record (d), at most `letters ^ positions`.
    pub samples: usize,
    /// With two letters, the second letter's pattern is the complement of the first (as
    /// published); otherwise every letter draws its own pattern.
    pub complementary: bool,
}

impl Default for GridSpec {
    fn default() -> Self {
        GridSpec {
            positions: 4,
            letters: 2,
            side: 4,
            samples: 16,
            complementary: true,
        }
    }
}

/// One record: `samples` inputs ("A C E G") and their grids (rows of '.'/'*' joined by "\n").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub input: Vec<String>,
    pub output: Vec<String>,
}

impl Record {
    /// The record as one `json.dumps` line (no newline).
    pub fn to_json_line(&self) -> String {
        format!(
            "{{\"input\": {}, \"output\": {}}}",
            json::py_json_str_list(&self.input),
            json::py_json_str_list(&self.output)
        )
    }
}

impl GridSpec {
    /// The shape of `grid generate`'s options: `compat = rgp` is the published shape (and
    /// refuses shape options), otherwise the given shape with all letters^positions samples
    /// by default and complementary patterns when there are two letters.
    pub fn from_options(
        compat: Option<&str>,
        positions: usize,
        letters: usize,
        side: usize,
        samples: Option<usize>,
        non_complementary: bool,
    ) -> Result<GridSpec> {
        let d = GridSpec::default();
        match compat {
            Some("rgp") => {
                if positions != d.positions
                    || letters != d.letters
                    || side != d.side
                    || samples.is_some()
                    || non_complementary
                {
                    return Err(KcompError::param(
                        "compat",
                        "--compat rgp fixes the shape: drop --positions, --letters, --side, \
                         --samples and --non-complementary",
                    ));
                }
                Ok(d)
            }
            Some(other) => Err(KcompError::param(
                "compat",
                format!("unknown `{other}` (expected rgp)"),
            )),
            None => {
                let total = letters.checked_pow(positions as u32).unwrap_or(usize::MAX);
                Ok(GridSpec {
                    positions,
                    letters,
                    side,
                    samples: samples.unwrap_or(total),
                    complementary: !non_complementary && letters == 2,
                })
            }
        }
    }

    fn cells_per_position(&self) -> usize {
        self.side * self.side / self.positions
    }

    /// Bytes one generated record takes, twice (the records and their JSONL text): every
    /// possible input with its grid are built before `samples` of them are drawn.
    pub fn memory_bytes_per_record(&self) -> f64 {
        let total = (self.letters as f64).powi(self.positions as i32);
        let per_sample = 2.0 * self.positions as f64 + (self.side * (self.side + 1)) as f64 + 64.0;
        2.0 * (total + self.samples as f64) * per_sample + 256.0
    }

    /// Checks the shape and that `setting` is defined for it.
    pub fn validate(&self, setting: Setting) -> Result<()> {
        let p = |reason: String| Err(KcompError::param("grid spec", reason));
        if self.positions == 0 || self.letters < 2 || self.side == 0 {
            return p("positions >= 1, letters >= 2 and side >= 1 are required".into());
        }
        if self.positions.saturating_mul(self.letters) > 26 {
            return p("positions x letters must be at most 26 (letters A-Z)".into());
        }
        if self.side > 1 << 10 {
            return p(format!("side must be at most 1024, got {}", self.side));
        }
        let cells = self.side * self.side;
        if cells > 64 {
            return p(format!("at most 64 cells (side <= 8), got {cells}"));
        }
        let total = (self.letters as u64).checked_pow(self.positions as u32);
        match total {
            Some(t) if t <= 1 << 20 && (self.samples as u64) <= t && self.samples > 0 => {}
            _ => {
                return p(format!(
                    "samples must be in 1..=letters^positions (<= 2^20), got {}",
                    self.samples
                ));
            }
        }
        if setting == Setting::Holistic {
            // no layout and no patterns: any shape with a grid will do
            return Ok(());
        }
        if !cells.is_multiple_of(self.positions) {
            return p(format!(
                "the {cells} cells do not split evenly among {} positions",
                self.positions
            ));
        }
        if self.cells_per_position() > 20 {
            return p("at most 20 cells per position".into());
        }
        if self.complementary && self.letters != 2 {
            return p("complementary patterns need exactly 2 letters per position".into());
        }
        match setting {
            Setting::Horizontal
            | Setting::HorizontalRandom
            | Setting::HorizontalIndexShuffle
            | Setting::Vertical
                if self.positions != self.side =>
            {
                p(format!(
                    "setting {} needs positions == side (one row or column each)",
                    setting.name()
                ))
            }
            Setting::Block => {
                let q = (self.positions as f64).sqrt().round() as usize;
                if q * q != self.positions || !self.side.is_multiple_of(q) {
                    return p(
                        "setting b needs a square number of positions whose root divides side"
                            .into(),
                    );
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Cell indices (row-major) per position, drawing from `rng` as the published generator.
    fn layout(&self, setting: Setting, rng: &mut PythonRandom) -> Vec<Vec<usize>> {
        let (k, side) = (self.positions, self.side);
        let c = self.cells_per_position();
        let rows = |i: usize| (0..side).map(|col| i * side + col).collect::<Vec<_>>();
        match setting {
            Setting::Horizontal | Setting::HorizontalIndexShuffle => (0..k).map(rows).collect(),
            Setting::Vertical => (0..k)
                .map(|i| (0..side).map(|r| r * side + i).collect())
                .collect(),
            Setting::Block => {
                let q = (k as f64).sqrt().round() as usize;
                let bs = side / q;
                (0..k)
                    .map(|i| {
                        let (r0, c0) = ((i / q) * bs, (i % q) * bs);
                        let mut cells = Vec::with_capacity(bs * bs);
                        for r in 0..bs {
                            for col in 0..bs {
                                cells.push((r0 + r) * side + c0 + col);
                            }
                        }
                        cells
                    })
                    .collect()
            }
            Setting::Random => {
                let mut pos: Vec<usize> = (0..side * side).collect();
                rng.shuffle(&mut pos);
                pos.chunks(c).map(|ch| ch.to_vec()).collect()
            }
            Setting::Holistic => Vec::new(),
            Setting::HorizontalRandom => {
                let all: Vec<usize> = (0..k).collect();
                let chosen = rng.sample(&all, 2.min(k)).unwrap_or_default();
                let mut rest: Vec<usize> = (0..side * side)
                    .filter(|cell| !chosen.contains(&(cell / side)))
                    .collect();
                rng.shuffle(&mut rest);
                let mut chunks = rest.chunks(c);
                (0..k)
                    .map(|i| {
                        if chosen.contains(&i) {
                            rows(i)
                        } else {
                            chunks.next().map(|ch| ch.to_vec()).unwrap_or_default()
                        }
                    })
                    .collect()
            }
        }
    }

    /// Generates `records` records with one Python-compatible stream seeded once.
    pub fn generate(&self, setting: Setting, records: usize, seed: i64) -> Result<Vec<Record>> {
        let holistic = Holistic {
            fraction: 0.0,
            seed: seed as u64,
        };
        Ok(self
            .generate_programs(setting, records, seed, holistic)?
            .into_iter()
            .map(|g| g.record)
            .collect())
    }

    /// Generates records with their programs. The Python stream (seeded once with `seed`)
    /// draws layouts, patterns and samples as the published generator; a ChaCha8 stream
    /// seeded once with `holistic.seed` draws, per record, which round(h x letters^positions)
    /// inputs are holistic (a partial Fisher-Yates shuffle) and their grids (one fair bit per
    /// cell), so h = 0 reproduces [`GridSpec::generate`]. [`Setting::Holistic`] draws no layout
    /// or patterns and makes every input holistic.
    pub fn generate_programs(
        &self,
        setting: Setting,
        records: usize,
        seed: i64,
        holistic: Holistic,
    ) -> Result<Vec<GeneratedRecord>> {
        self.validate(setting)?;
        holistic.validate()?;
        crate::datasets::validate::memory(
            "this dataset",
            &[("records", self.memory_bytes_per_record() * records as f64)],
        )?;
        let mut rng = PythonRandom::seed(seed);
        let mut hol_rng = Stream::new(RngKind::Kcomp, holistic.seed);
        let (k, u, side) = (self.positions, self.letters, self.side);
        let cells = side * side;
        let total = u.pow(k as u32);
        let n_holistic = holistic.count(setting, total);
        let mut out = Vec::with_capacity(records);
        for _ in 0..records {
            let program = if setting == Setting::Holistic {
                GridProgram {
                    layout: Vec::new(),
                    patterns: Vec::new(),
                    holistic: BTreeMap::new(),
                }
            } else {
                self.compositional_program(setting, &mut rng)
            };
            let mut program = program;
            if n_holistic > 0 {
                let mut pool: Vec<usize> = (0..total).collect();
                for j in 0..n_holistic {
                    let pick = j + hol_rng.below((total - j) as u64) as usize;
                    pool.swap(j, pick);
                    let grid = (0..cells).map(|_| hol_rng.below(2) == 1).collect();
                    program.holistic.insert(pool[j], grid);
                }
            }
            let mut samples = Vec::with_capacity(total);
            for idx in 0..total {
                let vals = self.input_values(idx);
                let input: Vec<String> = vals
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| char::from(b'A' + (u * i + v) as u8).to_string())
                    .collect();
                let grid = program.grid(&vals, idx, cells);
                let rows: Vec<String> = grid
                    .chunks(side)
                    .map(|r| {
                        r.iter()
                            .map(|&on| if on { '*' } else { '.' })
                            .collect::<String>()
                    })
                    .collect();
                samples.push((input.join(" "), rows.join("\n")));
            }
            let chosen = rng
                .sample(&samples, self.samples)
                .expect("validated samples <= total");
            let (input, output) = chosen.into_iter().unzip();
            out.push(GeneratedRecord {
                record: Record { input, output },
                program,
            });
        }
        Ok(out)
    }

    /// Letter index of every position for input number `idx` (position 0 most significant).
    pub fn input_values(&self, idx: usize) -> Vec<usize> {
        let (k, u) = (self.positions, self.letters);
        let mut vals = vec![0usize; k];
        let mut rem = idx;
        for i in (0..k).rev() {
            vals[i] = rem % u;
            rem /= u;
        }
        vals
    }

    /// Layout (after the index shuffle) and patterns, drawn as the published generator does.
    fn compositional_program(&self, setting: Setting, rng: &mut PythonRandom) -> GridProgram {
        let (k, u) = (self.positions, self.letters);
        let c = self.cells_per_position();
        let n_patterns: Vec<u64> = (0..1u64 << c).collect();
        let bits = |v: u64| -> Vec<bool> { (0..c).map(|b| (v >> (c - 1 - b)) & 1 == 1).collect() };
        let layout = self.layout(setting, rng);
        // patterns[i][letter] = on/off per cell of position i
        let mut patterns: Vec<Vec<Vec<bool>>> = Vec::with_capacity(k);
        for _ in 0..k {
            if self.complementary {
                let v = *rng.choice(&n_patterns).expect("non-empty");
                patterns.push(vec![bits(v), bits(v ^ ((1 << c) - 1))]);
            } else {
                patterns.push(
                    (0..u)
                        .map(|_| bits(*rng.choice(&n_patterns).expect("non-empty")))
                        .collect(),
                );
            }
        }
        let mut control: Vec<usize> = (0..k).collect();
        if setting == Setting::HorizontalIndexShuffle && k > 1 {
            let identity = control.clone();
            loop {
                rng.shuffle(&mut control);
                if control != identity {
                    break;
                }
            }
        }
        GridProgram {
            layout: control.iter().map(|&j| layout[j].clone()).collect(),
            patterns,
            holistic: BTreeMap::new(),
        }
    }

    /// The JSONL text of `records` (one `json.dumps` line each, newline-terminated).
    pub fn to_jsonl(records: &[Record]) -> String {
        let mut s = String::new();
        for r in records {
            s.push_str(&r.to_json_line());
            s.push('\n');
        }
        s
    }

    /// Published file name, e.g. `k=4_u=2_d=16_type=h.jsonl`.
    pub fn file_name(&self, setting: Setting) -> String {
        format!(
            "k={}_u={}_d={}_type={}.jsonl",
            self.positions,
            self.letters,
            self.samples,
            setting.file_tag()
        )
    }
}

/// The holistic part of the generator: a fraction of the inputs gets an arbitrary grid.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Holistic {
    /// h in [0, 1]: round(h x letters^positions) inputs are holistic.
    pub fraction: f64,
    /// Seed of the stream that picks the holistic inputs and draws their grids.
    pub seed: u64,
}

impl Holistic {
    /// No holistic inputs (the published generator).
    pub const NONE: Holistic = Holistic {
        fraction: 0.0,
        seed: 0,
    };

    pub fn validate(&self) -> Result<()> {
        if !(0.0..=1.0).contains(&self.fraction) {
            return Err(KcompError::param(
                "holistic fraction",
                format!("must be in [0, 1], got {}", self.fraction),
            ));
        }
        Ok(())
    }

    /// Number of holistic inputs among `total`: all of them for [`Setting::Holistic`].
    pub fn count(&self, setting: Setting, total: usize) -> usize {
        if setting == Setting::Holistic {
            total
        } else {
            ((self.fraction * total as f64).round() as usize).min(total)
        }
    }
}

/// The generator's own program for one record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GridProgram {
    /// Cells (row-major) driven by each position, in pattern order (empty when holistic).
    pub layout: Vec<Vec<usize>>,
    /// patterns[position][letter][j]: whether cell `layout[position][j]` is on.
    pub patterns: Vec<Vec<Vec<bool>>>,
    /// Holistic inputs (index among all letters^positions inputs) and their grids.
    pub holistic: BTreeMap<usize, Vec<bool>>,
}

impl GridProgram {
    /// The grid of input number `idx` with letter indices `vals`.
    pub fn grid(&self, vals: &[usize], idx: usize, cells: usize) -> Vec<bool> {
        if let Some(g) = self.holistic.get(&idx) {
            return g.clone();
        }
        let mut grid = vec![false; cells];
        for (i, &v) in vals.iter().enumerate() {
            for (cell, &on) in self.layout[i].iter().zip(&self.patterns[i][v]) {
                if on {
                    grid[*cell] = true;
                }
            }
        }
        grid
    }
}

/// A record with the program that generated it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedRecord {
    pub record: Record,
    pub program: GridProgram,
}

/// Loads record `index` (0-based line) of a dataset with a clear error.
pub fn load_record(path: &std::path::Path, index: usize) -> Result<Record> {
    let mut records = read_dataset(path)?;
    let n = records.len();
    if index >= n {
        return Err(KcompError::file(
            path,
            format!("record {index} does not exist (the file has {n} records, 0-based)"),
        ));
    }
    Ok(records.swap_remove(index))
}

/// Reads a JSONL dataset; every line must be {"input": [str], "output": [str]} of equal length.
pub fn read_dataset(path: &std::path::Path) -> Result<Vec<Record>> {
    let text = crate::io::limits::read_text(path)?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |reason: String| KcompError::file(path, format!("line {}: {reason}", i + 1));
        let v: serde_json::Value =
            serde_json::from_str(line).map_err(|e| bad(format!("malformed JSON: {e}")))?;
        let field = |name: &str| -> Result<Vec<String>> {
            let arr = v
                .get(name)
                .and_then(|x| x.as_array())
                .ok_or_else(|| bad(format!("missing list field `{name}`")))?;
            arr.iter()
                .map(|x| {
                    x.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| bad(format!("field `{name}` holds a non-string")))
                })
                .collect()
        };
        let input = field("input")?;
        let output = field("output")?;
        if input.len() != output.len() || input.is_empty() {
            return Err(bad(
                "`input` and `output` must be non-empty and equally long".into(),
            ));
        }
        out.push(Record { input, output });
    }
    if out.is_empty() {
        return Err(KcompError::file(path, "no records"));
    }
    Ok(out)
}
