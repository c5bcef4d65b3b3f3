//! A sweep or a panel run in shards (`--shard I/N`, `--job I`) and merged
//! (`--merge`) writes the same tables as one local run, byte for byte (up to the panel's
//! seconds columns); `kcomp slurm submit --dry-run` writes safely quoted scripts, and
//! `kcomp slurm status` maps missing jobs to their tasks. No Slurm needed (.ci/slurm-test.sh
//! runs the arrays on a real one).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn kcomp(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kcomp"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn ok(args: &[&str]) -> String {
    let (success, stdout, stderr) = kcomp(args);
    assert!(success, "kcomp {args:?}: {stderr}");
    stdout
}

fn data(name: &str) -> String {
    common::data_dir()
        .join("slurm")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn same_files(a: &Path, b: &Path, files: &[&str]) {
    for f in files {
        let (x, y) = (
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
        );
        assert!(
            x == y,
            "{f} differs between {} and {}",
            a.display(),
            b.display()
        );
    }
}

/// A CSV without the named columns (timings), as records.
fn csv_without(path: &Path, drop: &[&str]) -> Vec<Vec<String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header = reader.headers().unwrap().clone();
    let keep: Vec<usize> = (0..header.len())
        .filter(|&i| !drop.contains(&&header[i]))
        .collect();
    assert!(keep.len() + drop.len() == header.len(), "{header:?}");
    let mut rows = vec![keep.iter().map(|&i| header[i].to_string()).collect()];
    for record in reader.records() {
        let record = record.unwrap();
        rows.push(keep.iter().map(|&i| record[i].to_string()).collect());
    }
    rows
}

#[test]
fn a_sweep_of_two_configs_in_shards_and_jobs_merges_to_the_local_tables() {
    let dir = tempfile::tempdir().unwrap();
    let (local, sharded) = (dir.path().join("local"), dir.path().join("sharded"));
    let (a, b) = (data("sweep-length.toml"), data("sweep-width.toml"));
    let sweep = |out: &Path, extra: &[&str]| {
        let mut args = vec!["sweep", &a, &b, "--out", s(out), "--quiet"];
        args.extend_from_slice(extra);
        ok(&args)
    };
    sweep(&local, &[]);
    // 12 + 4 jobs; shards 0..2 of 4 first, then the plan lists the rest.
    for i in 0..3 {
        let text = sweep(&sharded, &["--shard", &format!("{i}/4")]);
        assert!(
            text.contains(&format!("shard {i}/4: 4 of 16 jobs (4 computed")),
            "{text}"
        );
    }
    let text = sweep(&sharded, &["--plan"]);
    assert!(
        text.contains("16 jobs, 12 saved, 4 missing (3,7,11,15)"),
        "{text}"
    );
    let plan = std::fs::read_to_string(sharded.join("plan.csv")).unwrap();
    assert_eq!(plan.lines().count(), 17);
    assert!(plan.contains("15,false,"), "{plan}");
    // A merge with jobs missing fails, naming them.
    let (success, _, stderr) =
        kcomp(&["sweep", &a, &b, "--out", s(&sharded), "--quiet", "--merge"]);
    assert!(!success && stderr.contains("jobs 3,7,11"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    for job in ["3", "7", "11", "15"] {
        let text = sweep(&sharded, &["--job", job]);
        assert!(
            text.contains(&format!("job {job} of 16: computed")),
            "{text}"
        );
    }
    let (success, _, stderr) = kcomp(&[
        "sweep",
        &a,
        &b,
        "--out",
        s(&sharded),
        "--quiet",
        "--job",
        "16",
    ]);
    assert!(!success && stderr.contains("16 jobs"), "{stderr}");
    sweep(&sharded, &["--merge"]);
    for name in ["lookup-length-small", "grammar-width-small"] {
        same_files(
            &local.join(name),
            &sharded.join(name),
            &[
                "runs.csv",
                "summary.csv",
                "summary.json",
                "c.png",
                "topsim.png",
            ],
        );
    }
}

#[test]
fn a_panel_in_shards_merges_to_the_local_tables_up_to_seconds() {
    let dir = tempfile::tempdir().unwrap();
    let (local, sharded) = (dir.path().join("local"), dir.path().join("sharded"));
    let panel = data("panel.toml");
    ok(&["compare", &panel, "--out", s(&local), "--quiet"]);
    for i in 0..3 {
        let text = ok(&[
            "compare",
            &panel,
            "--out",
            s(&sharded),
            "--quiet",
            "--shard",
            &format!("{i}/3"),
        ]);
        assert!(text.contains(&format!("shard {i}/3: ")), "{text}");
    }
    let text = ok(&[
        "compare",
        &panel,
        "--out",
        s(&sharded),
        "--quiet",
        "--merge",
    ]);
    assert!(
        text.contains("8 datasets x 5 estimators (8 read back"),
        "{text}"
    );
    same_files(
        &local,
        &sharded,
        &["agreement.csv", "agreement.png", "lookup-q_estimators.png"],
    );
    assert_eq!(
        csv_without(&local.join("runs.csv"), &["seconds"]),
        csv_without(&sharded.join("runs.csv"), &["seconds"])
    );
    assert_eq!(
        csv_without(&local.join("summary.csv"), &["seconds_mean"]),
        csv_without(&sharded.join("summary.csv"), &["seconds_mean"])
    );
}

#[test]
fn slurm_dry_run_writes_quoted_scripts_and_status_maps_missing_jobs_to_tasks() {
    let dir = tempfile::tempdir().unwrap();
    // A run folder whose name a shell would expand.
    let out: PathBuf = dir.path().join("runs $(touch x) 'q'");
    let sweep = data("sweep-length.toml");
    let text = ok(&[
        "slurm",
        "submit",
        "--dry-run",
        "--tasks",
        "5",
        "--parallel",
        "2",
        "--time",
        "0:05:00",
        "--setup",
        "echo ready",
        "--",
        "sweep",
        &sweep,
        "--out",
        s(&out),
    ]);
    assert!(
        text.contains("plan: 12 jobs (0 already saved) in 5 array tasks"),
        "{text}"
    );
    let array = std::fs::read_to_string(out.join("slurm/array.sh")).unwrap();
    assert!(array.contains("#SBATCH --array=0-4%2\n"), "{array}");
    assert!(array.contains("#SBATCH --time=0:05:00\n"), "{array}");
    assert!(
        array.contains(&format!(
            "#SBATCH --output=\"{}/slurm/logs/task_%A_%a.log\"\n",
            out.display()
        )),
        "{array}"
    );
    assert!(array.contains("echo ready\n"), "{array}");
    // The shell reads the task's command line back as the exact words (nothing expanded).
    let exec = array.lines().find_map(|l| l.strip_prefix("exec ")).unwrap();
    let words = Command::new("bash")
        .arg("-c")
        .arg(format!("printf '%s\\n' {exec}"))
        .env("SLURM_ARRAY_TASK_ID", "2")
        .current_dir(dir.path())
        .output()
        .unwrap();
    let words = String::from_utf8(words.stdout).unwrap();
    let words: Vec<&str> = words.lines().collect();
    assert_eq!(
        words[1..],
        [
            "sweep",
            &sweep,
            "--out",
            s(&out),
            "--quiet",
            "--shard",
            "2/5"
        ]
    );
    let merge = std::fs::read_to_string(out.join("slurm/merge.sh")).unwrap();
    assert!(
        merge.contains(" --quiet --merge\n") && !merge.contains("--array"),
        "{merge}"
    );
    // Tasks 1 and 3 "ran" (jobs 1, 6, 11 and 3, 8); the others are missing.
    for task in ["1/5", "3/5"] {
        ok(&[
            "sweep",
            &sweep,
            "--out",
            s(&out),
            "--quiet",
            "--shard",
            task,
        ]);
    }
    let text = ok(&["slurm", "status", s(&out)]);
    assert!(text.contains("12 jobs in 5 tasks"), "{text}");
    assert!(text.contains("7 missing"), "{text}");
    assert!(text.contains("missing jobs: 0,2,4-5,7,9-10"), "{text}");
    assert!(text.contains("tasks to run again: 0,2,4"), "{text}");
    let text = ok(&["slurm", "resubmit", "--dry-run", s(&out)]);
    assert!(text.contains("sbatch --array=0,2,4%2 "), "{text}");
    // Refused: options that would break an #SBATCH line, and shard options in the sweep.
    let (success, _, stderr) = kcomp(&[
        "slurm",
        "submit",
        "--dry-run",
        "--mem",
        "4G\n#SBATCH --x",
        "--",
        "sweep",
        &sweep,
        "--out",
        s(&out),
    ]);
    assert!(!success && stderr.contains("mem"), "{stderr}");
    let (success, _, stderr) = kcomp(&[
        "slurm",
        "submit",
        "--dry-run",
        "--",
        "sweep",
        &sweep,
        "--out",
        s(&out),
        "--merge",
    ]);
    assert!(!success && stderr.contains("--merge"), "{stderr}");
    assert!(!dir.path().join("x").exists());
}

#[test]
fn a_prequential_h_sweep_in_shards_merges_to_the_local_tables_up_to_wall_time() {
    let dir = tempfile::tempdir().unwrap();
    let (local, sharded) = (dir.path().join("local"), dir.path().join("sharded"));
    let config = data("h-sweep.toml");
    let sweep = |out: &Path, extra: &[&str]| {
        let mut args = vec![
            "prequential",
            "--config",
            &config,
            "--sweep-h",
            "0,1",
            "--seeds",
            "2",
            "--out",
            s(out),
            "--quiet",
        ];
        args.extend_from_slice(extra);
        ok(&args)
    };
    sweep(&local, &[]);
    let text = sweep(&sharded, &["--plan"]);
    assert!(text.contains("4 jobs, 0 saved, 4 missing (0-3)"), "{text}");
    for i in 0..2 {
        let text = sweep(&sharded, &["--shard", &format!("{i}/2")]);
        assert!(
            text.contains(&format!("shard {i}/2: 2 of 4 jobs (2 computed")),
            "{text}"
        );
    }
    let md = sweep(&sharded, &["--merge"]);
    assert!(md.contains("| 0 | 2 |") && md.contains("| 1 | 2 |"), "{md}");
    same_files(&local, &sharded, &["table.csv", "table.md", "c_l_vs_h.png"]);
    assert_eq!(
        csv_without(&local.join("runs.csv"), &["wall_seconds"]),
        csv_without(&sharded.join("runs.csv"), &["wall_seconds"])
    );
}
