//! Names and files of an answer tree are data: `grid report` over a tree whose
//! folder names carry Markdown rows, CSV formulas and terminal escape sequences, an answer
//! that is a FIFO, an answer that is a symbolic link to a secret, and an output folder with
//! planted links; and the lock on an output folder.

use std::path::Path;
use std::process::{Command, Output};

const PROGRAM: &str = "```python\nprint('....')\n```";

fn kcomp(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kcomp"))
        .args(args)
        .output()
        .unwrap()
}

fn data() -> String {
    format!("{}/tests/data/rgp", env!("CARGO_MANIFEST_DIR"))
}

fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// Unescaped `|` in a Markdown line (a `\|` is text).
fn cells(line: &str) -> usize {
    let b = line.as_bytes();
    (0..b.len())
        .filter(|&i| b[i] == b'|' && (i == 0 || b[i - 1] != b'\\'))
        .count()
}

#[test]
fn hostile_folder_names_reach_no_table_row_formula_or_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tree");
    let models = [
        "evil | 0 | 0 |\n| forged | h | 1",
        "=HYPERLINK(1)",
        "@SUM(A1)",
        "m\x1b]0;pwned\x07\x1b[31m",
    ];
    for m in models {
        let h = root.join(m).join("h");
        std::fs::create_dir_all(&h).unwrap();
        std::fs::write(h.join("0.txt"), PROGRAM).unwrap();
    }
    // An unknown setting folder whose name is printed in a warning.
    std::fs::create_dir_all(root.join("plain/zz\x1b[2J")).unwrap();
    let out = dir.path().join("out");
    let o = kcomp(&[
        "grid",
        "report",
        root.to_str().unwrap(),
        "--data",
        &data(),
        "--no-plots",
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(!err.contains('\x1b'), "raw escape on the terminal: {err:?}");
    assert!(err.contains("\\u{1b}[2J"), "{err}");

    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(!md.contains('\x1b'));
    assert!(!md.lines().any(|l| l.starts_with("| forged")), "{md}");
    // Every row of the main table has its 14 cell borders.
    let rows: Vec<&str> = md
        .lines()
        .skip_while(|l| !l.starts_with("| model | setting | answers"))
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert_eq!(rows.len(), 2 + models.len(), "{md}");
    for r in &rows {
        assert_eq!(cells(r), 14, "{r}");
    }

    for file in ["per_answer.csv", "summary.csv"] {
        let mut rdr = csv::Reader::from_path(out.join(file)).unwrap();
        let mut seen = 0;
        for rec in rdr.records() {
            let rec = rec.unwrap();
            for cell in rec.iter() {
                let formula = cell.starts_with(['=', '@', '+', '-', '\t', '\r'])
                    && cell.parse::<f64>().is_err();
                assert!(!formula, "{file}: formula cell {cell:?}");
            }
            // The name is kept, behind a quote, so nothing is lost.
            seen += usize::from(rec[0].starts_with("'=HYPERLINK") || &rec[0] == "'@SUM(A1)");
        }
        assert_eq!(seen, 2, "{file}");
    }
}

#[test]
fn fifos_and_links_out_of_the_tree_are_not_read_and_links_are_not_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tree");
    let h = root.join("m/h");
    std::fs::create_dir_all(&h).unwrap();
    std::fs::write(h.join("0.txt"), PROGRAM).unwrap();
    // A FIFO named like an answer would block a plain read forever.
    mkfifo(&h.join("1.txt"));
    // An answer that is a link to a secret outside the tree.
    let secret = dir.path().join("secret.txt");
    std::fs::write(&secret, "TOP SECRET").unwrap();
    std::os::unix::fs::symlink(&secret, h.join("2.txt")).unwrap();
    // A published folder with links planted at a file and at a folder.
    let victim = dir.path().join("victim.txt");
    std::fs::write(&victim, "keep").unwrap();
    let published = dir.path().join("pub");
    let leaf = published.join("result/m/k=4_u=2_d=16_type=h");
    std::fs::create_dir_all(&leaf).unwrap();
    std::os::unix::fs::symlink(&victim, leaf.join("0.txt")).unwrap();
    let out = dir.path().join("out");
    let args = |dest: &Path| {
        vec![
            "grid".to_string(),
            "report".into(),
            root.to_str().unwrap().into(),
            "--data".into(),
            data(),
            "--no-plots".into(),
            "--out".into(),
            out.to_str().unwrap().into(),
            "--write-published".into(),
            dest.to_str().unwrap().into(),
            // The planted folder is not kcomp's: --force, and the links must still not be
            // written through.
            "--force".into(),
        ]
    };
    let o = Command::new(env!("CARGO_BIN_EXE_kcomp"))
        .args(args(&published))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let per = std::fs::read_to_string(out.join("per_answer.csv")).unwrap();
    let status = |rec: usize| {
        let line = per
            .lines()
            .find(|l| l.starts_with(&format!("m,h,{rec},")))
            .unwrap_or_else(|| panic!("{rec}: {per}"));
        line.split(',').nth(3).unwrap().to_string()
    };
    assert_eq!(status(0), "ok");
    assert!(status(1).contains("not a regular file"), "{}", status(1));
    assert!(status(2).contains("symbolic link"), "{}", status(2));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
    assert_eq!(
        std::fs::read_to_string(leaf.join("0.txt")).unwrap(),
        PROGRAM
    );
    let copied: String = std::fs::read_dir(&leaf)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap_or_default())
        .collect();
    assert!(!copied.contains("TOP SECRET"));

    // A link planted as a folder of the published layout stops the run; nothing is written
    // outside.
    let outside = dir.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    let published2 = dir.path().join("pub2");
    std::fs::create_dir_all(published2.join("result")).unwrap();
    std::os::unix::fs::symlink(&outside, published2.join("result/m")).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_kcomp"))
        .args(args(&published2))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{:?} {err}", o.status);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("symbolic link"), "{err}");
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
}

#[test]
fn a_locked_output_folder_is_refused_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tree");
    std::fs::create_dir_all(root.join("m/h")).unwrap();
    std::fs::write(root.join("m/h/0.txt"), PROGRAM).unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    // Another run holds the folder (kcomp locks the folder itself and leaves no file there).
    let held = std::fs::File::open(&out).unwrap();
    held.lock().unwrap();
    let run = || {
        kcomp(&[
            "grid",
            "report",
            root.to_str().unwrap(),
            "--data",
            &data(),
            "--no-plots",
            "--out",
            out.to_str().unwrap(),
        ])
    };
    let o = run();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("another kcomp run"), "{err}");
    assert!(!out.join("report.md").exists());
    drop(held);
    let o = run();
    assert!(
        o.status.success(),
        "{:?} {}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.join("report.md").is_file());
    // The lock leaves nothing behind (older versions left an empty .kcomp.lock).
    assert!(!out.join(".kcomp.lock").exists());
}
