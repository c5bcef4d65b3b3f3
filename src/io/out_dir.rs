//! Output folders: a command refuses to write into a non-empty folder that another run (other
//! command or settings) or something else filled, unless `--force`. Each folder kcomp writes
//! gets a small stamp file naming the command and the settings that fill it, so running the
//! same command again rewrites its own folder without asking.

use std::path::Path;

use crate::error::{KcompError, Result};

/// The stamp file inside an output folder.
pub const STAMP: &str = ".kcomp-run.json";

/// Checks that `dir` may receive the outputs of the run described by `stamp` (the command and
/// its settings) and records the stamp. An absent or empty folder, one stamped with the same
/// run, or `force` (also `--resume`, which asks to reuse a folder) pass; anything else is a
/// one-line error naming `--force`.
pub fn claim(dir: &Path, stamp: &serde_json::Value, force: bool) -> Result<()> {
    let text = check(dir, stamp, force)?;
    crate::io::files::create_dir_all(dir)?;
    // From here on no folder below it is written through a link, --force or not.
    crate::io::files::guard_out_root(dir);
    crate::io::files::atomic_write(&dir.join(STAMP), text.as_bytes())
}

/// [`claim`] under the folder's lock ([`crate::io::files::lock_dir`]), held by the returned
/// guard for the whole run: the check runs first (a refused folder is not created), then
/// again under the lock, so a second run on the folder stops at once with one line.
pub fn claim_locked(
    dir: &Path,
    stamp: &serde_json::Value,
    force: bool,
) -> Result<crate::io::files::DirLock> {
    check(dir, stamp, force)?;
    let lock = crate::io::files::lock_dir(dir)?;
    claim(dir, stamp, force)?;
    Ok(lock)
}

/// Refuses a run one of whose `inputs` is a file it would replace: `outputs` are names of
/// files (or folders) the run writes in `dir`. Links are resolved on both sides, so
/// `--z o/W.npy --out o` is refused, and so is an input reached through another path.
pub fn check_inputs(dir: &Path, outputs: &[&str], inputs: &[(&str, &Path)]) -> Result<()> {
    let Ok(out) = std::fs::canonicalize(dir) else {
        // A folder that does not exist yet holds no input.
        return Ok(());
    };
    for (option, input) in inputs {
        let Ok(real) = std::fs::canonicalize(input) else {
            continue;
        };
        for name in outputs {
            let target = out.join(name);
            if real == target || real.starts_with(&target) {
                return Err(KcompError::param(
                    *option,
                    format!(
                        "{} is this run's output {}: writing it would overwrite the input; \
                         choose another --out",
                        input.display(),
                        target.display()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The check of [`claim`] without creating or stamping anything (for commands that must leave
/// no folder behind when they stop before writing); returns the stamp's text.
pub fn check(dir: &Path, stamp: &serde_json::Value, force: bool) -> Result<String> {
    let text = serde_json::to_string_pretty(stamp)
        .map_err(|e| KcompError::Other(format!("cannot serialise the run's settings: {e}")))?;
    if occupied(dir)? && !force {
        let what = match read_stamp(dir)? {
            Some(old) if old == text => None,
            Some(old) => Some(match serde_json::from_str::<serde_json::Value>(&old) {
                Ok(v) if v["command"] != stamp["command"] => format!(
                    "the outputs of another command ({})",
                    v["command"].as_str().unwrap_or("?")
                ),
                _ => "the outputs of a run with other settings".to_string(),
            }),
            None => Some("files kcomp did not write there".to_string()),
        };
        if let Some(what) = what {
            return Err(KcompError::file(
                dir,
                format!(
                    "the output folder holds {what}; choose another folder, or add --force to \
                     write into it anyway"
                ),
            ));
        }
    }
    Ok(text)
}

/// Largest stamp read (a stamp is a few hundred bytes of JSON).
const MAX_STAMP_BYTES: u64 = 1 << 20;

/// The stamp's text, `None` when there is none. Read like any input (a FIFO or device at
/// its name is an error, never a hang); a link planted there is refused, not followed.
fn read_stamp(dir: &Path) -> Result<Option<String>> {
    let path = dir.join(STAMP);
    match std::fs::symlink_metadata(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(KcompError::io(&path, e)),
        Ok(m) if m.file_type().is_symlink() => {
            return Err(KcompError::file(
                &path,
                "is a symbolic link; kcomp does not follow links inside its output folder",
            ));
        }
        Ok(_) => {}
    }
    let bytes = crate::io::files::read_capped(&path, MAX_STAMP_BYTES)?;
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}

/// Whether `dir` holds anything (the lock file of a finished run is not content); a missing
/// folder is empty, a file in its place an error.
pub fn occupied(dir: &Path) -> Result<bool> {
    match std::fs::read_dir(dir) {
        Ok(entries) => Ok(entries
            .flatten()
            .any(|e| e.file_name() != crate::io::files::LOCK_FILE)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
            Err(KcompError::file(dir, "is a file, not a folder"))
        }
        Err(e) => Err(KcompError::io(dir, e)),
    }
}

/// The one-line refusal of a folder holding files kcomp did not write (for commands that
/// recognise their own outputs another way, e.g. `kcomp prequential`'s config.toml).
pub fn foreign(dir: &Path) -> KcompError {
    KcompError::file(
        dir,
        "the output folder holds files kcomp did not write there; choose another folder, or add \
         --force to write into it anyway",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn same_run_passes_other_runs_need_force() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("out");
        let a = json!({"command": "synth", "settings": {"n": 1}});
        let b = json!({"command": "synth", "settings": {"n": 2}});
        let c = json!({"command": "sweep"});
        claim(&dir, &a, false).unwrap();
        std::fs::write(dir.join("W.npy"), "x").unwrap();
        // The same run again: rewritten without asking.
        claim(&dir, &a, false).unwrap();
        let e = claim(&dir, &b, false).unwrap_err().to_string();
        assert!(e.contains("other settings") && e.contains("--force"), "{e}");
        let e = claim(&dir, &c, false).unwrap_err().to_string();
        assert!(e.contains("another command (synth)"), "{e}");
        assert_eq!(e.lines().count(), 1);
        claim(&dir, &b, true).unwrap();
        claim(&dir, &b, false).unwrap();
        // A folder kcomp did not fill.
        let other = tmp.path().join("mine");
        std::fs::create_dir(&other).unwrap();
        std::fs::write(other.join("thesis.tex"), "x").unwrap();
        let e = claim(&other, &a, false).unwrap_err().to_string();
        assert!(e.contains("did not write") && e.contains("mine"), "{e}");
        // An empty folder is fine.
        let empty = tmp.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        claim(&empty, &a, false).unwrap();
    }
}
