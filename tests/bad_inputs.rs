//! Bad inputs against the built binary: every case must end within a time bound with exit 2
//! and exactly one line on stderr (no "panicked", no allocation abort), or, where the input
//! is legal, print the right number. `cargo test --release --test bad_inputs -- --nocapture`
//! prints the closing tally "tried N / clean errors N / correct numbers N / panics N /
//! timeouts N".

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

type Check = fn(&str) -> Result<(), String>;

fn bare_overview(stdout: &str) -> Result<(), String> {
    if stdout.contains("Main tasks") && stdout.contains("kcomp compare --w") {
        Ok(())
    } else {
        Err(format!("no overview: {stdout}"))
    }
}

/// What a case must give.
enum Expect {
    /// Exit 2, one stderr line containing this text.
    Clean(&'static str),
    /// Exit 0 and stdout passing the check.
    Number(Check),
    /// A command given nothing to do: exit 2 and its help (the usage line) on stderr.
    Usage,
}

enum Outcome {
    Clean,
    Correct,
    Panic(String),
    Timeout,
    Wrong(String),
}

const LIMIT: Duration = Duration::from_secs(30);

fn run(args: &[String]) -> (Option<i32>, String, String, bool) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kcomp"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn kcomp");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let t_err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > LIMIT {
            let _ = child.kill();
            timed_out = true;
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (
        status.code(),
        t_out.join().unwrap(),
        t_err.join().unwrap(),
        timed_out,
    )
}

fn judge(args: &[String], expect: &Expect) -> Outcome {
    let (code, out, err, timed_out) = run(args);
    if timed_out {
        return Outcome::Timeout;
    }
    if err.contains("panicked") || err.contains("memory allocation") || code.is_none() {
        return Outcome::Panic(err.lines().take(3).collect::<Vec<_>>().join(" | "));
    }
    match expect {
        Expect::Clean(needle) => {
            let lines: Vec<&str> = err.lines().collect();
            if code != Some(2) {
                Outcome::Wrong(format!(
                    "exit {code:?}, stdout {}",
                    out.chars().take(200).collect::<String>()
                ))
            } else if lines.len() != 1 {
                Outcome::Wrong(format!("{} stderr lines: {err}", lines.len()))
            } else if !lines[0].to_lowercase().contains(&needle.to_lowercase()) {
                Outcome::Wrong(format!("stderr lacks `{needle}`: {}", lines[0]))
            } else {
                Outcome::Clean
            }
        }
        Expect::Usage => {
            if code == Some(2) && err.lines().any(|l| l.starts_with("Usage: kcomp")) {
                Outcome::Clean
            } else {
                Outcome::Wrong(format!("exit {code:?}, no usage on stderr: {err}"))
            }
        }
        Expect::Number(check) => {
            if code != Some(0) {
                return Outcome::Wrong(format!("exit {code:?}: {err}"));
            }
            match check(&out) {
                Ok(()) => Outcome::Correct,
                Err(e) => Outcome::Wrong(e),
            }
        }
    }
}

fn json(out: &str) -> Result<serde_json::Value, String> {
    serde_json::from_str(out.trim()).map_err(|e| format!("not JSON ({e}): {out}"))
}

fn field(out: &str, key: &str) -> Result<f64, String> {
    json(out)?[key]
        .as_f64()
        .ok_or_else(|| format!("no number `{key}` in {out}"))
}

fn near(got: f64, want: f64, tol: f64, what: &str) -> Result<(), String> {
    if (got - want).abs() <= tol {
        Ok(())
    } else {
        Err(format!("{what}: got {got}, want {want} +- {tol}"))
    }
}

/// Skellam(4e307, 4e307) at k = 3: 2^-512.7417 (asymptotic series, tests/data/skellam).
fn skellam_huge(out: &str) -> Result<(), String> {
    near(field(out, "bits")?, 512.741_710_629_946, 1e-9, "bits")
}

/// Skellam(1e15, 1e15) at 0: -ln p = ln(2 pi 2e15) / 2.
fn skellam_1e15(out: &str) -> Result<(), String> {
    let want = 0.5 * (2.0 * std::f64::consts::PI * 2e15).ln();
    near(-field(out, "logpmf_nats")?, want, 1e-9, "nats")
}

/// Tiny precision (1e-6, noise 0.01): 1e4 grid steps per sd, K(Z|W,f) per value close to the
/// entropy 0.5 log2(2 pi e) + log2(1e4) = 15.335 bits; every term finite and positive.
fn tiny_precision(out: &str) -> Result<(), String> {
    let per = field(out, "k_z_given_wf")? / (50.0 * 64.0);
    near(per, 15.3346, 0.05, "K(Z|W,f) per value")?;
    let c = field(out, "c")?;
    if !(c.is_finite() && c > 1.0) {
        return Err(format!("C = {c}"));
    }
    Ok(())
}

/// Huge table std within the exact range (std/precision = 4e7): K(f) per entry near the
/// entropy 0.5 log2(2 pi e) + log2(4e7) = 27.30 bits.
fn huge_table_std(out: &str) -> Result<(), String> {
    let per = field(out, "k_f")? / (10.0 * 4.0);
    near(per, 27.2763, 0.6, "K(f) per entry")
}

/// A tiny noise std (1e-300 at precision 0.01): the noise is 0, so K(Z|W,f) = 0 exactly.
fn tiny_noise(out: &str) -> Result<(), String> {
    near(field(out, "k_z_given_wf")?, 0.0, 0.0, "K(Z|W,f)")
}

/// A fixed std of 1e300 for continuous Z: every value costs log2(1e300/0.01) + log2(2 pi)/2
/// = 1004.55 bits under the final model; K(Data) stays positive (the naive code wins every
/// chunk) and a negative K(f) is reported as a warning.
fn fixed_huge_std(out: &str) -> Result<(), String> {
    let v = json(out)?;
    let k_data = v["k_data"].as_f64().ok_or("no k_data")?;
    let given_f = v["k_data_given_f"].as_f64().ok_or("no k_data_given_f")?;
    let n = v["n_encoded"].as_f64().ok_or("no n_encoded")?;
    if !(k_data > 0.0 && v["c_l"].as_f64().is_some_and(|c| c > 0.0)) {
        return Err(format!("negative code length: {out}"));
    }
    let per = 302.0 * 10f64.log2() + 0.5 * (2.0 * std::f64::consts::PI).log2();
    near(given_f / (n * 2.0), per, 1e-6, "K(Data|f) per value")?;
    let warned = v["warnings"]
        .as_array()
        .is_some_and(|w| w.iter().any(|s| s.as_str().unwrap_or("").contains("K(f)")));
    if !warned {
        return Err(format!("no K(f) warning: {out}"));
    }
    Ok(())
}

/// bosdis with a token id of 9,999,999 equals bosdis with that token relabelled 7 (only
/// observed symbols count): 0.375296011... (kcomp on the relabelled file), in kilobytes.
fn bosdis_big_token(out: &str) -> Result<(), String> {
    let v = json(out)?;
    let score = v["estimates"][0]["score"].as_f64().ok_or("no score")?;
    near(score, 0.375_296_011_052_509_26, 1e-12, "bosdis")
}

/// 4 rows, values {0, 10^6}: K(Z) = 4 log2(2) = 4 bits.
fn k_z_two_observed_values(out: &str) -> Result<(), String> {
    let v = json(out)?;
    near(v["k_z"]["bits"].as_f64().ok_or("no k_z")?, 4.0, 0.0, "K(Z)")
}

/// Skellam(1e-300, 1e300) at 0: ln p = -(mu1 + mu2) + ln I0(2) = -1e300 (finite).
fn skellam_far_apart(out: &str) -> Result<(), String> {
    let lp = field(out, "logpmf_nats")?;
    near(lp / -1e300, 1.0, 1e-12, "ln p / -1e300")
}

fn expand(template: &str, tmp: &Path) -> Vec<String> {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    template
        .split_whitespace()
        .map(|a| {
            a.replace("{T}", tmp.to_str().unwrap())
                .replace("{D}", data.to_str().unwrap())
        })
        .collect()
}

fn write_fixtures(tmp: &Path) {
    let fifo = tmp.join("fifo.txt");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    std::fs::create_dir(tmp.join("adir")).unwrap();
    // A .npy header claiming shape (10^12, 2) over 16 bytes of data.
    let mut header =
        "{'descr': '<i8', 'fortran_order': False, 'shape': (1000000000000, 2), }".to_string();
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    let mut npy = b"\x93NUMPY\x01\x00".to_vec();
    npy.extend((header.len() as u16).to_le_bytes());
    npy.extend(header.as_bytes());
    npy.extend([0u8; 16]);
    std::fs::write(tmp.join("huge.npy"), &npy).unwrap();
    std::fs::write(tmp.join("garbage.npy"), b"not numpy at all").unwrap();
    std::fs::write(tmp.join("empty.csv"), "").unwrap();
    std::fs::write(
        tmp.join("w.csv"),
        (0..60)
            .map(|i| format!("{},{}\n", i % 4, i % 3))
            .collect::<String>(),
    )
    .unwrap();
    std::fs::write(
        tmp.join("z.csv"),
        (0..60)
            .map(|i| format!("{:.2},{:.2}\n", (i % 4) as f64 * 0.5, (i % 3) as f64 - 1.0))
            .collect::<String>(),
    )
    .unwrap();
    std::fs::write(tmp.join("z_short.csv"), "0.1,0.2\n").unwrap();
    std::fs::write(
        tmp.join("z_nan.csv"),
        (0..60).map(|_| "nan,1\n").collect::<String>(),
    )
    .unwrap();
    std::fs::write(
        tmp.join("w_neg.csv"),
        (0..60).map(|_| "-1,2\n").collect::<String>(),
    )
    .unwrap();
    std::fs::write(tmp.join("w.txt"), "1\n").unwrap();
    let files = format!(
        "[files]\nw = \"{0}/w.csv\"\nz = \"{0}/z.csv\"\nprecision = 0.01\n",
        tmp.display()
    );
    let model = "[prequential]\nscheme = \"reference\"\nval_size = 10\nthreads = 1\n[prequential.schedule]\nkind = \"increment\"\nmin = 10\nstep = 20\n[prequential.train]\nmax_epochs = 2\n";
    std::fs::write(
        tmp.join("std.toml"),
        format!("{files}{model}[prequential.model]\nhidden = [4]\nemb_dim = 2\nstd = {{ kind = \"fixed\", std = 1e300 }}\n"),
    )
    .unwrap();
    std::fs::write(
        tmp.join("std_nan.toml"),
        format!("{files}{model}[prequential.model]\nstd = {{ kind = \"fixed\", std = nan }}\n"),
    )
    .unwrap();
    std::fs::write(
        tmp.join("both.toml"),
        format!("{files}[language]\nn_attr = 2\n"),
    )
    .unwrap();
    std::fs::write(tmp.join("bad.toml"), "this is = = not toml").unwrap();
    let sweep = |extra: &str, values: &str, seeds: &str| {
        format!(
            "name = \"t\"\ngenerator = \"lookup\"\nparameter = \"length\"\nvalues = {values}\n{seeds}\n{extra}[params]\nvocab = 4\nsamples = 10\n"
        )
    };
    std::fs::write(
        tmp.join("dup_seeds.toml"),
        sweep("", "[1, 2]", "seed_list = [0, 0, 1]"),
    )
    .unwrap();
    std::fs::write(
        tmp.join("dup_values.toml"),
        sweep("", "[1, 1, 2]", "seeds = 2"),
    )
    .unwrap();
    std::fs::write(
        tmp.join("ignored.toml"),
        sweep("", "[1, 2]", "seeds = 2").replace("vocab = 4", "vocab = 4\nlength = 4"),
    )
    .unwrap();
    std::fs::write(
        tmp.join("huge_samples.toml"),
        sweep("", "[1, 2]", "seeds = 2").replace("samples = 10", "samples = 10000000000"),
    )
    .unwrap();
    std::fs::write(
        tmp.join("nan_noise.toml"),
        sweep("", "[1, 2]", "seeds = 2").replace("samples = 10", "samples = 10\nnoise = nan"),
    )
    .unwrap();
    std::fs::write(
        tmp.join("inf_precision.toml"),
        sweep("", "[1, 2]", "seeds = 2")
            .replace("samples = 10", "samples = 10\nprecision = 1e-308"),
    )
    .unwrap();
    std::fs::write(
        tmp.join("many_seeds.toml"),
        sweep("", "[1, 2]", "seeds = 100000000"),
    )
    .unwrap();
    std::fs::write(
        tmp.join("zero_seeds.toml"),
        sweep("", "[1, 2]", "seeds = 0"),
    )
    .unwrap();
    std::fs::write(tmp.join("no_values.toml"), sweep("", "[]", "seeds = 2")).unwrap();
    std::fs::write(
        tmp.join("bad_gen.toml"),
        sweep("", "[1, 2]", "seeds = 2").replace("\"lookup\"", "\"nope\""),
    )
    .unwrap();
    // Headers and tables that must be refused, not panic or be clamped.
    let npy = |name: &str, descr: &str, shape: &str, data: &[u8]| {
        let mut header =
            format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
        while !(10 + header.len() + 1).is_multiple_of(64) {
            header.push(' ');
        }
        header.push('\n');
        let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
        bytes.extend((header.len() as u16).to_le_bytes());
        bytes.extend(header.as_bytes());
        bytes.extend(data);
        std::fs::write(tmp.join(name), &bytes).unwrap();
    };
    std::fs::write(tmp.join("w_bigtok.csv"), "9999999,1\n2,3\n4,5\n1,1\n").unwrap();
    std::fs::write(tmp.join("z_b.csv"), "0\n1\n0\n1\n").unwrap();
    std::fs::write(tmp.join("z_b_big.csv"), "0\n1000000\n0\n1000000\n").unwrap();
    std::fs::write(tmp.join("z_const.csv"), "3\n3\n3\n3\n").unwrap();
    npy(
        "shape_overflow.npy",
        "<i8",
        "(18446744073709551615, 0)",
        &[],
    );
    let mut big = (1u64 << 63).to_le_bytes().to_vec();
    big.extend(1u64.to_le_bytes());
    npy("u64_big.npy", "<u8", "(2, 1)", &big);
    std::fs::write(
        tmp.join("w_typo.csv"),
        std::iter::once("1,x\n".to_string())
            .chain((1..60).map(|i| format!("{},{}\n", i % 4, i % 3)))
            .collect::<String>(),
    )
    .unwrap();
    std::fs::write(
        tmp.join("w_wide.csv"),
        (0..2)
            .map(|_| vec!["1"; 70_000].join(",") + "\n")
            .collect::<String>(),
    )
    .unwrap();
    std::fs::write(tmp.join("z_wide1.csv"), "1\n0\n").unwrap();
    // Width: 200,000 columns are refused at the first row (the second is not a
    // number: refusing for the width proves it was never read) or from a .npy header (the
    // file holds no data: refusing for the width proves the data was never needed).
    std::fs::write(
        tmp.join("w_wide200k.csv"),
        vec!["1"; 200_000].join(",") + "\nx\n",
    )
    .unwrap();
    npy("wide200k.npy", "<i8", "(1000000, 200000)", &[]);
    // Malformed string-to-grid records, refused alike by `compare --grid` and
    // `grid score` (one validation function).
    let h = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/rgp/k=4_u=2_d=16_type=h.jsonl"),
    )
    .unwrap();
    let first: serde_json::Value = serde_json::from_str(h.lines().next().unwrap()).unwrap();
    let corrupt = |name: &str, field: &str, f: &dyn Fn(&str) -> String| {
        let mut rec = first.clone();
        let s = rec[field][0].as_str().unwrap().to_string();
        rec[field][0] = serde_json::Value::String(f(&s));
        std::fs::write(tmp.join(name), format!("{rec}\n")).unwrap();
    };
    corrupt("cell_type=h.jsonl", "output", &|s: &str| {
        s.replacen('.', "x", 1)
    });
    corrupt("ragged_type=h.jsonl", "output", &|s: &str| {
        s[1..].to_string()
    });
    corrupt("letter_type=v.jsonl", "input", &|s: &str| {
        s.replacen(' ', "Q ", 1)
    });
    corrupt("nosetting.jsonl", "output", &|s: &str| {
        s.replacen('*', "#", 1)
    });
    std::fs::write(
        tmp.join("z_int.csv"),
        (0..60)
            .map(|i| format!("{},{}\n", i % 4, i % 3))
            .collect::<String>(),
    )
    .unwrap();
    std::fs::write(
        tmp.join("std_discrete.toml"),
        format!(
            "[files]\nw = \"{0}/w.csv\"\nz = \"{0}/z_int.csv\"\n[prequential]\nscheme = \"reference\"\n[prequential.model]\nstd = {{ kind = \"fixed\", std = -1.0 }}\n",
            tmp.display()
        ),
    )
    .unwrap();
    let panel = |family: &str, extra: &str, estimators: &str| {
        format!(
            "name = \"p\"\nseeds = 1\nestimators = [{estimators}]\n{extra}[[family]]\nname = \"{family}\"\nkind = \"lookup\"\nparameter = \"ngram\"\nvalues = [1]\n[family.params]\nsamples = 20\nlength = 2\nvocab = 4\ndim = 2\n"
        )
    };
    std::fs::write(tmp.join("panel.toml"), panel("ok", "", "\"exact\"")).unwrap();
    std::fs::write(tmp.join("panel_up.toml"), panel("../../X", "", "\"exact\"")).unwrap();
    std::fs::write(tmp.join("panel_abs.toml"), panel("/tmp/X", "", "\"exact\"")).unwrap();
    std::fs::write(
        tmp.join("panel_tre0.toml"),
        panel("ok", "[tre]\nsteps = 0\n", "\"tre\""),
    )
    .unwrap();
    std::fs::write(
        tmp.join("sweep_up.toml"),
        sweep("", "[1, 2]", "seeds = 2").replace("name = \"t\"", "name = \"../../X\""),
    )
    .unwrap();
    std::fs::write(
        tmp.join("sweep_abs.toml"),
        sweep("", "[1, 2]", "seeds = 2").replace("name = \"t\"", "name = \"/tmp/X\""),
    )
    .unwrap();
    let many: Vec<String> = (1..=200_000).map(|i| i.to_string()).collect();
    std::fs::write(
        tmp.join("sweep_200k.toml"),
        sweep("", &format!("[{}]", many.join(", ")), "seeds = 1"),
    )
    .unwrap();
    let tree = tmp.join("linktree");
    std::fs::create_dir_all(tree.join("m/h")).unwrap();
    std::fs::write(tree.join("m/h/0.txt"), "```python\nprint(1)\n```").unwrap();
    std::os::unix::fs::symlink(tmp.join("adir"), tree.join("report")).unwrap();
    std::fs::write(tmp.join("answer.txt"), "```python\nprint('....')\n```\n").unwrap();
    std::fs::write(tmp.join("empty.txt"), "").unwrap();
    std::fs::write(tmp.join("big_answer.txt"), "x".repeat(17 << 20)).unwrap();
}

fn cases() -> Vec<(&'static str, Expect)> {
    use Expect::*;
    vec![
        // synth lookup: non-finite, huge and tiny reals
        ("synth lookup --precision 1e-308", Clean("precision")),
        ("synth lookup --precision 0", Clean("precision")),
        ("synth lookup --precision -1", Clean("precision")),
        ("synth lookup --precision nan", Clean("precision")),
        ("synth lookup --precision inf", Clean("precision")),
        ("synth lookup --precision 1e308", Clean("precision")),
        ("synth lookup --noise 1e308", Clean("noise")),
        ("synth lookup --noise 0", Clean("noise")),
        ("synth lookup --noise -0.5", Clean("noise")),
        ("synth lookup --noise nan", Clean("noise")),
        ("synth lookup --noise inf", Clean("noise")),
        ("synth lookup --table-std 1e308", Clean("table_std")),
        ("synth lookup --table-std 0", Clean("table_std")),
        ("synth lookup --table-std nan", Clean("table_std")),
        ("synth lookup --table-std -inf", Clean("table_std")),
        // synth lookup: sizes
        ("synth lookup --samples 10000000000", Clean("samples")),
        ("synth lookup --samples 0", Clean("samples")),
        ("synth lookup --samples -1", Clean("samples")),
        (
            "synth lookup --samples 99999999999999999999999",
            Clean("samples"),
        ),
        ("synth lookup --dim 4294967296", Clean("dim")),
        ("synth lookup --dim 100000000000", Clean("dim")),
        ("synth lookup --dim 0", Clean("dim")),
        ("synth lookup --dim 60", Clean("dim")),
        ("synth lookup --length 0", Clean("length")),
        (
            "synth lookup --length 1000000000000 --dim 1000000000000",
            Clean("samples"),
        ),
        ("synth lookup --vocab 1", Clean("vocab")),
        ("synth lookup --vocab 0", Clean("vocab")),
        ("synth lookup --vocab 4294967297", Clean("vocab")),
        ("synth lookup --ngram 0", Clean("ngram")),
        ("synth lookup --ngram 3", Clean("ngram")),
        (
            "synth lookup --ngram 16 --vocab 1000000 --length 16",
            Clean("ngram"),
        ),
        (
            "synth lookup --ngram 16 --vocab 100 --rng numpy",
            Clean("rng"),
        ),
        (
            "synth lookup --ngram 4 --vocab 40 --rng numpy",
            Clean("rng"),
        ),
        (
            "synth lookup --topsim-max-pairs 100000000000 --samples 1000000",
            Clean("max_pairs"),
        ),
        ("synth lookup --max-memory 1K", Clean("max-memory")),
        ("synth lookup --max-memory 0", Clean("max-memory")),
        ("synth lookup --max-memory -5G", Clean("max-memory")),
        ("synth lookup --max-memory lots", Clean("max-memory")),
        ("synth lookup --seed -1", Clean("seed")),
        ("synth lookup --rng nope", Clean("rng")),
        ("synth lookup --table-cost some", Clean("table-cost")),
        (
            "synth lookup --out {T}/fifo.txt --samples 5",
            Clean("fifo.txt"),
        ),
        ("synth lookup --bogus 1", Clean("bogus")),
        // synth grammar
        ("synth grammar --param-std 1e308", Clean("param_std")),
        ("synth grammar --param-std nan", Clean("param_std")),
        ("synth grammar --param-std 0", Clean("param_std")),
        ("synth grammar --precision 1e-308", Clean("precision")),
        ("synth grammar --precision nan", Clean("precision")),
        ("synth grammar --noise 1e308", Clean("noise")),
        ("synth grammar --noise -1", Clean("noise")),
        ("synth grammar --vocab 4294967295", Clean("vocab")),
        ("synth grammar --vocab 2", Clean("vocab")),
        ("synth grammar --width 100000", Clean("width")),
        ("synth grammar --width 0", Clean("width")),
        ("synth grammar --length 1048576", Clean("length")),
        ("synth grammar --length 15", Clean("length")),
        ("synth grammar --length 0", Clean("length")),
        ("synth grammar --dim 100000", Clean("dim")),
        ("synth grammar --dim 0", Clean("dim")),
        ("synth grammar --depth 0", Clean("depth")),
        ("synth grammar --depth 64", Clean("depth")),
        ("synth grammar --pos 2", Clean("pos")),
        ("synth grammar --pos 1000000000000", Clean("pos")),
        ("synth grammar --samples 10000000000", Clean("samples")),
        ("synth grammar --samples 0", Clean("samples")),
        (
            "synth grammar --param-std 1000000 --depth 4 --length 16 --samples 5 --no-topsim",
            Clean("param_std"),
        ),
        ("synth grammar --composition nope", Clean("composition")),
        // numbers that must come out right
        (
            "codelength skellam --mu1 4e307 --mu2 4e307 --k 3",
            Number(skellam_huge),
        ),
        (
            "codelength skellam --mu1 1e15 --mu2 1e15 --k 0",
            Number(skellam_1e15),
        ),
        (
            "synth lookup --precision 1e-6 --samples 50 --json --no-topsim",
            Number(tiny_precision),
        ),
        (
            "synth lookup --table-std 400000 --precision 0.01 --vocab 10 --dim 64 --samples 20 --json --no-topsim",
            Number(huge_table_std),
        ),
        (
            "synth lookup --noise 1e-300 --samples 20 --json --no-topsim",
            Number(tiny_noise),
        ),
        (
            "prequential --config {T}/std.toml --json --quiet",
            Number(fixed_huge_std),
        ),
        // codelength
        ("codelength skellam --mu1 1e308 --mu2 1 --k 0", Clean("mu1")),
        ("codelength skellam --mu1 nan --mu2 1 --k 0", Clean("mu1")),
        ("codelength skellam --mu1 -1 --mu2 1 --k 0", Clean("mu1")),
        ("codelength skellam --mu1 1 --mu2 inf --k 0", Clean("mu2")),
        ("codelength skellam --mu1 0 --mu2 0 --k 0", Clean("mu1")),
        (
            "codelength skellam --mu1 1 --mu2 0 --k -1",
            Clean("probability 0"),
        ),
        (
            "codelength skellam --mu1 1 --mu2 1 --k 99999999999999999999",
            Clean("k"),
        ),
        // prequential: model and schedule sizes
        (
            "prequential --protocol reference --hidden 100000000",
            Clean("hidden"),
        ),
        (
            "prequential --protocol reference --hidden 0",
            Clean("hidden"),
        ),
        (
            "prequential --protocol reference --hidden 8,x",
            Clean("hidden"),
        ),
        (
            "prequential --protocol reference --hidden -3",
            Clean("hidden"),
        ),
        (
            "prequential --protocol reference --emb-dim 1000000000",
            Clean("emb_dim"),
        ),
        (
            "prequential --protocol reference --emb-dim 0",
            Clean("emb_dim"),
        ),
        (
            "prequential --protocol reference --log-schedule 10,1000000000",
            Clean("log_schedule"),
        ),
        (
            "prequential --protocol reference --log-schedule 0,5",
            Clean("schedule"),
        ),
        (
            "prequential --protocol reference --log-schedule 10",
            Clean("log_schedule"),
        ),
        (
            "prequential --protocol reference --increment 0,10",
            Clean("schedule"),
        ),
        (
            "prequential --protocol reference --increment 10,0",
            Clean("schedule"),
        ),
        (
            "prequential --protocol reference --increment 100000000000,1",
            Clean("schedule"),
        ),
        (
            "prequential --protocol reference --fractions 0.5,0.2",
            Clean("schedule"),
        ),
        (
            "prequential --protocol reference --fractions nan",
            Clean("schedule"),
        ),
        (
            "prequential --protocol reference --fractions 2",
            Clean("schedule"),
        ),
        (
            "prequential --protocol reference --val-size 1000000",
            Clean("val_size"),
        ),
        (
            "prequential --protocol reference --dropout 1",
            Clean("dropout"),
        ),
        (
            "prequential --protocol reference --dropout nan",
            Clean("dropout"),
        ),
        (
            "prequential --protocol reference --dropout -0.1",
            Clean("dropout"),
        ),
        ("prequential --protocol reference --lr 0", Clean("lr")),
        ("prequential --protocol reference --lr nan", Clean("lr")),
        ("prequential --protocol reference --lr 1e308", Clean("lr")),
        ("prequential --protocol reference --lr -1", Clean("lr")),
        (
            "prequential --protocol reference --batch-size 0",
            Clean("batch_size"),
        ),
        (
            "prequential --protocol reference --max-epochs 0",
            Clean("max_epochs"),
        ),
        (
            "prequential --protocol reference --tolerance nan",
            Clean("tolerance"),
        ),
        (
            "prequential --protocol reference --tolerance -1",
            Clean("tolerance"),
        ),
        (
            "prequential --protocol reference --lr-decay 0",
            Clean("lr_decay"),
        ),
        (
            "prequential --protocol reference --lr-decay 2",
            Clean("lr_decay"),
        ),
        (
            "prequential --protocol reference --lr-decay nan",
            Clean("lr_decay"),
        ),
        ("prequential --threads 100000", Clean("threads")),
        (
            "prequential --holistic-fraction 2",
            Clean("holistic_fraction"),
        ),
        (
            "prequential --holistic-fraction nan",
            Clean("holistic_fraction"),
        ),
        ("prequential --synonyms 0", Clean("synonyms")),
        ("prequential --synonyms 100000000000", Clean("vocab")),
        ("prequential --max-memory 1M", Clean("max-memory")),
        // prequential: sweeps and ignored settings
        ("prequential --sweep-h 0,0 --out {T}/s", Clean("sweep_h")),
        ("prequential --sweep-h 0,1.5 --out {T}/s", Clean("sweep_h")),
        ("prequential --sweep-h nan --out {T}/s", Clean("sweep_h")),
        ("prequential --sweep-h 0,x --out {T}/s", Clean("sweep_h")),
        (
            "prequential --sweep-h 0,1 --seeds 0 --out {T}/s",
            Clean("seeds"),
        ),
        (
            "prequential --sweep-h 0,1 --seeds 100000000000 --out {T}/s",
            Clean("seeds"),
        ),
        ("prequential --sweep-h 0,1", Clean("out")),
        (
            "prequential --sweep-h 0,1 --holistic-fraction 0.5 --out {T}/s",
            Clean("holistic_fraction"),
        ),
        (
            "prequential --sweep-h 0,1 --seed 3 --out {T}/s",
            Clean("seed"),
        ),
        (
            "prequential --sweep-h 0,1 --language-seed 3 --out {T}/s",
            Clean("language_seed"),
        ),
        ("prequential --seeds 3", Clean("seeds")),
        ("prequential --resume", Clean("resume")),
        ("prequential --precision 0.01", Clean("precision")),
        (
            "prequential --w {T}/w.csv --z {T}/z.csv --precision 0.01 --synonyms 2",
            Clean("synonyms"),
        ),
        ("prequential --config {T}/both.toml", Clean("language")),
        // prequential: files
        ("prequential --config {T}/fifo.txt", Clean("fifo.txt")),
        ("prequential --config {T}/adir", Clean("adir")),
        (
            "prequential --config {T}/missing.toml",
            Clean("missing.toml"),
        ),
        ("prequential --config {T}/bad.toml", Clean("bad.toml")),
        ("prequential --config {T}/std_nan.toml", Clean("std")),
        (
            "prequential --w {T}/huge.npy --z {T}/z.csv --precision 0.01",
            Clean("huge.npy"),
        ),
        (
            "prequential --w {T}/garbage.npy --z {T}/z.csv --precision 0.01",
            Clean("garbage.npy"),
        ),
        (
            "prequential --w {T}/fifo.txt --z {T}/z.csv",
            Clean("fifo.txt"),
        ),
        ("prequential --w {T}/adir --z {T}/z.csv", Clean("adir")),
        (
            "prequential --w {T}/w.csv --z {T}/fifo.txt",
            Clean("fifo.txt"),
        ),
        (
            "prequential --w {T}/empty.csv --z {T}/z.csv --precision 0.01",
            Clean("empty.csv"),
        ),
        (
            "prequential --w {T}/w.csv --z {T}/z_short.csv --precision 0.01",
            Clean("z_short.csv"),
        ),
        (
            "prequential --w {T}/w.csv --z {T}/z_nan.csv --precision 0.01",
            Clean("z_nan.csv"),
        ),
        (
            "prequential --w {T}/w_neg.csv --z {T}/z.csv --precision 0.01",
            Clean("w_neg.csv"),
        ),
        (
            "prequential --w {T}/w.txt --z {T}/z.csv --precision 0.01",
            Clean("w.txt"),
        ),
        (
            "prequential --w {T}/w.csv --z {T}/z.csv",
            Clean("precision"),
        ),
        (
            "prequential --w {T}/w.csv --z {T}/z.csv --precision 1e-300",
            Clean("precision"),
        ),
        (
            "prequential --w {T}/w.csv --z {T}/z.csv --precision nan",
            Clean("precision"),
        ),
        (
            "prequential --w {T}/w.csv --z {T}/z.csv --precision -1",
            Clean("precision"),
        ),
        (
            "prequential --w {T}/w.csv --z {T}/z.csv --precision 0.01 --protocol reference --val-size 60",
            Clean("val_size"),
        ),
        ("prequential --w {T}/w.csv", Clean("z")),
        // sweeps
        ("sweep {T}/dup_seeds.toml --out {T}/o", Clean("seed_list")),
        ("sweep {T}/dup_values.toml --out {T}/o", Clean("values")),
        ("sweep {T}/ignored.toml --out {T}/o", Clean("params.length")),
        ("sweep {T}/huge_samples.toml --out {T}/o", Clean("samples")),
        ("sweep {T}/nan_noise.toml --out {T}/o", Clean("noise")),
        (
            "sweep {T}/inf_precision.toml --out {T}/o",
            Clean("precision"),
        ),
        ("sweep {T}/many_seeds.toml --out {T}/o", Clean("runs")),
        ("sweep {T}/zero_seeds.toml --out {T}/o", Clean("seeds")),
        ("sweep {T}/no_values.toml --out {T}/o", Clean("values")),
        ("sweep {T}/bad_gen.toml --out {T}/o", Clean("generator")),
        ("sweep {T}/fifo.txt --out {T}/o", Clean("fifo.txt")),
        ("sweep {T}/adir --out {T}/o", Clean("adir")),
        ("sweep {T}/missing.toml --out {T}/o", Clean("missing.toml")),
        ("sweep {T}/bad.toml --out {T}/o", Clean("bad.toml")),
        (
            "sweep {T}/dup_values.toml --out {T}/o --threads 100000",
            Clean("threads"),
        ),
        (
            "sweep {T}/dup_values.toml --out {T}/o --threads 0",
            Clean("threads"),
        ),
        (
            "sweep {T}/dup_values.toml --out {T}/o --max-memory nope",
            Clean("max-memory"),
        ),
        ("reproduce --threads 100000", Clean("threads")),
        ("reproduce --threads 0", Clean("threads")),
        ("reproduce --rng nope", Clean("rng")),
        // grid
        ("grid generate --records 10000000000", Clean("records")),
        ("grid generate --positions 100000", Clean("grid spec")),
        ("grid generate --letters 1000000000000", Clean("grid spec")),
        ("grid generate --side 4294967296", Clean("grid spec")),
        ("grid generate --side 0", Clean("grid spec")),
        ("grid generate --samples 0", Clean("grid spec")),
        ("grid generate --samples 1000000", Clean("grid spec")),
        ("grid generate --setting zz", Clean("setting")),
        ("grid generate --compat rgp --side 8", Clean("compat")),
        ("grid generate --compat xyz", Clean("compat")),
        (
            "grid generate --records 100000 --max-memory 1K",
            Clean("records"),
        ),
        ("grid generate --output {T}/adir", Clean("adir")),
        (
            "grid score --dataset {D}/rgp/k=4_u=2_d=16_type=h.jsonl --record 0 --answer {T}/fifo.txt",
            Clean("fifo.txt"),
        ),
        (
            "grid score --dataset {D}/rgp/k=4_u=2_d=16_type=h.jsonl --record 0 --answer {T}/adir",
            Clean("adir"),
        ),
        (
            "grid score --dataset {D}/rgp/k=4_u=2_d=16_type=h.jsonl --record 0 --answer {T}/missing.txt",
            Clean("missing.txt"),
        ),
        (
            "grid score --dataset {D}/rgp/k=4_u=2_d=16_type=h.jsonl --record 0 --answer {T}/empty.txt",
            Clean("empty"),
        ),
        (
            "grid score --dataset {D}/rgp/k=4_u=2_d=16_type=h.jsonl --record 0 --answer {T}/big_answer.txt",
            Clean("big_answer.txt"),
        ),
        (
            "grid score --dataset {D}/rgp/k=4_u=2_d=16_type=h.jsonl --record 0 --answer {T}/answer.txt --timeout 1e-9",
            Clean("timeout"),
        ),
        (
            "grid score --dataset {D}/rgp/k=4_u=2_d=16_type=h.jsonl --record 0 --answer {T}/answer.txt --timeout 1e9",
            Clean("timeout"),
        ),
        (
            "grid score --dataset {D}/rgp/k=4_u=2_d=16_type=h.jsonl --record 0 --answer {T}/answer.txt --timeout nan",
            Clean("timeout"),
        ),
        (
            "grid score --dataset {D}/rgp/k=4_u=2_d=16_type=h.jsonl --record 0 --answer {T}/answer.txt --timeout -1",
            Clean("timeout"),
        ),
        (
            "grid score --dataset {D}/rgp/k=4_u=2_d=16_type=h.jsonl --record 99999 --answer {T}/answer.txt",
            Clean("record"),
        ),
        (
            "grid score --dataset {D}/rgp/k=4_u=2_d=16_type=h.jsonl --record 0 --answer {T}/answer.txt --parser nope",
            Clean("parser"),
        ),
        (
            "grid score --dataset {T}/fifo.txt --record 0 --answer {T}/answer.txt",
            Clean("fifo.txt"),
        ),
        (
            "grid score --dataset {T}/adir --record 0 --answer {T}/answer.txt",
            Clean("adir"),
        ),
        (
            "grid score --dataset {T}/empty.txt --record 0 --answer {T}/answer.txt",
            Clean("empty.txt"),
        ),
        (
            "grid prompt --dataset {T}/fifo.txt --record 0",
            Clean("fifo.txt"),
        ),
        (
            "grid prompt --dataset {D}/rgp/k=4_u=2_d=16_type=h.jsonl --record 100",
            Clean("record"),
        ),
        (
            "grid prompt --dataset {D}/rgp/k=4_u=2_d=16_type=h.jsonl --record 0 --style nope",
            Clean("style"),
        ),
        ("grid report {T} --data /nonexistent", Clean("data")),
        ("grid report {T}/nonexistent --data {D}/rgp", Clean("dir")),
        (
            "grid report {T} --data {D}/rgp --timeout 1e-9",
            Clean("timeout"),
        ),
        ("grid report {T} --data {D}/rgp --alpha 2", Clean("alpha")),
        // The bad-input classes: panics, hangs, wrong numbers, ignored input, writes outside --out
        (
            "prequential --w {T}/shape_overflow.npy --z {T}/z.csv --precision 0.01",
            Clean("shape_overflow.npy"),
        ),
        (
            "compare --w {T}/u64_big.npy --z {T}/z_wide1.csv",
            Clean("2^63"),
        ),
        (
            "compare --w {T}/w_typo.csv --z {T}/z_int.csv",
            Clean("w_typo.csv"),
        ),
        (
            "compare --w {T}/w_wide.csv --z {T}/z_wide1.csv",
            Clean("columns"),
        ),
        (
            "compare --w {T}/w_wide200k.csv --z {T}/z_wide1.csv",
            Clean("200000 columns"),
        ),
        (
            "prequential --w {T}/wide200k.npy --z {T}/z_int.csv",
            Clean("200000 columns"),
        ),
        (
            "compare --w {T}/z_int.csv --z {T}/wide200k.npy",
            Clean("200000 columns"),
        ),
        (
            "compare --grid {T}/cell_type=h.jsonl --record 0",
            Clean("output 1"),
        ),
        (
            "grid score --dataset {T}/cell_type=h.jsonl --record 0 --answer {T}/answer.txt",
            Clean("output 1"),
        ),
        (
            "compare --grid {T}/ragged_type=h.jsonl --record 0",
            Clean("output 1"),
        ),
        (
            "grid score --dataset {T}/ragged_type=h.jsonl --record 0 --answer {T}/answer.txt",
            Clean("output 1"),
        ),
        (
            "compare --grid {T}/letter_type=v.jsonl --record 0",
            Clean("record"),
        ),
        (
            "grid score --dataset {T}/letter_type=v.jsonl --record 0 --answer {T}/answer.txt",
            Clean("record"),
        ),
        (
            "compare --grid {T}/nosetting.jsonl --record 0 --setting holistic",
            Clean("output 1"),
        ),
        (
            "grid score --dataset {T}/nosetting.jsonl --record 0 --answer {T}/answer.txt",
            Clean("output 1"),
        ),
        (
            "synth protocol --kind holistic --colours 1000 --shapes 1000 --repeats 1000",
            Clean("repeats"),
        ),
        (
            "compare --w {T}/w_bigtok.csv --z {T}/z_b.csv --estimators bosdis --json",
            Number(bosdis_big_token),
        ),
        // K(Z) of a discrete file: uniform over the observed values (2 here: 4 bits), not
        // log2(max + 1) per cell.
        (
            "compare --w {T}/w_bigtok.csv --z {T}/z_b_big.csv --estimators bosdis --json",
            Number(k_z_two_observed_values),
        ),
        (
            "compare --w {T}/w_bigtok.csv --z {T}/z_const.csv --estimators bosdis",
            Clean("z"),
        ),
        ("synth lookup --precision 1e10", Clean("precision")),
        ("synth lookup --precision 100", Clean("precision")),
        (
            "codelength skellam --mu1 1e-300 --mu2 1e300 --k 0",
            Number(skellam_far_apart),
        ),
        (
            "prequential --protocol reference --max-epochs 1000000000 --patience 1000000000 --tolerance 0",
            Clean("max_epochs"),
        ),
        (
            "prequential --protocol online --warm-start",
            Clean("warm_start"),
        ),
        ("prequential --protocol online --hidden 8", Clean("model")),
        (
            "prequential --protocol online --val-size 10",
            Clean("val_size"),
        ),
        ("prequential --config {T}/std_discrete.toml", Clean("std")),
        ("prequential --config /dev/zero", Clean("/dev/zero")),
        ("compare /dev/zero --out {T}/p", Clean("/dev/zero")),
        (
            "compare --w {T}/w.csv --z {T}/z_int.csv --record 3",
            Clean("record"),
        ),
        (
            "compare --w {T}/w.csv --z {T}/z_int.csv --setting h",
            Clean("setting"),
        ),
        ("compare --grid {T}/missing.jsonl --out {T}/p", Clean("out")),
        (
            "compare --w {T}/w.csv --z {T}/z_int.csv --resume",
            Clean("resume"),
        ),
        (
            "compare --w {T}/w.csv --z {T}/z_int.csv --threads 100000",
            Clean("threads"),
        ),
        (
            "compare {T}/panel.toml --out {T}/p --precision 0.01",
            Clean("precision"),
        ),
        (
            "compare {T}/panel.toml --out {T}/p --estimators exact",
            Clean("estimators"),
        ),
        (
            "compare {T}/panel.toml --out {T}/p --record 1",
            Clean("record"),
        ),
        (
            "compare {T}/panel.toml --out {T}/p --setting h",
            Clean("setting"),
        ),
        (
            "compare {T}/panel.toml --out {T}/p --llm-report {T}/adir",
            Clean("llm-report"),
        ),
        (
            "compare {T}/panel_up.toml --out {T}/p",
            Clean("family.name"),
        ),
        (
            "compare {T}/panel_abs.toml --out {T}/p",
            Clean("family.name"),
        ),
        (
            "compare {T}/panel_tre0.toml --out {T}/p",
            Clean("tre.steps"),
        ),
        ("sweep {T}/sweep_up.toml --out {T}/o", Clean("name")),
        ("sweep {T}/sweep_abs.toml --out {T}/o", Clean("name")),
        ("sweep {T}/sweep_200k.toml --out {T}/o", Clean("values")),
        (
            "sweep {T}/dup_values.toml --out {T}/o --threads -1",
            Clean("--threads"),
        ),
        ("reproduce --threads -1", Clean("--threads")),
        ("synth lookup --samples -5", Clean("--samples")),
        (
            "grid report {T}/linktree --data {D}/rgp --no-plots",
            Clean("symbolic link"),
        ),
        // the command line itself
        // Bare `kcomp` is not an error: it prints the main tasks and their commands.
        ("", Number(bare_overview)),
        ("nope", Clean("nope")),
        ("synth", Usage),
        ("grid", Usage),
        ("prequential", Usage),
    ]
}

#[test]
fn every_bad_input_gives_a_clean_error_or_the_right_number() {
    let tmp = tempfile::tempdir().unwrap();
    write_fixtures(tmp.path());
    let cases = cases();
    let (mut clean, mut correct, mut panics, mut timeouts) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for (template, expect) in &cases {
        let args = expand(template, tmp.path());
        match judge(&args, expect) {
            Outcome::Clean => clean += 1,
            Outcome::Correct => correct += 1,
            Outcome::Panic(e) => {
                panics += 1;
                failures.push(format!("PANIC `{template}`: {e}"));
            }
            Outcome::Timeout => {
                timeouts += 1;
                failures.push(format!("TIMEOUT `{template}`"));
            }
            Outcome::Wrong(e) => failures.push(format!("WRONG `{template}`: {e}")),
        }
    }
    println!(
        "tried {} / clean errors {clean} / correct numbers {correct} / panics {panics} / timeouts {timeouts}",
        cases.len()
    );
    for f in &failures {
        println!("{f}");
    }
    assert!(cases.len() >= 150, "only {} cases", cases.len());
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
