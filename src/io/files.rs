//! Every file kcomp reads or writes goes through here.
//!
//! - Reading: [`open_regular`] opens without blocking (a FIFO cannot hang the open) and checks
//!   the open file with fstat: only regular files are read (no FIFO, socket, device or
//!   `/dev/zero`), at most a stated number of bytes. [`check_within`] refuses a file of an
//!   answer tree that resolves (through a symbolic link) outside the tree.
//! - Writing: [`atomic_write`] writes a temporary file beside the target and renames it over
//!   the target, so a crash or a full disk never leaves a truncated file that `--resume`
//!   trusts, and a symbolic link planted at the target is replaced, never followed.
//!   [`create_dirs_under`] creates folders below a trusted root without following links.
//! - Output folders: [`lock_dir`] takes an exclusive `flock` on the folder itself, so a
//!   second run on the same folder stops with one line instead of racing the first. A
//!   folder a command writes into is registered as an output root ([`guard_out_root`]; the
//!   stamp and the lock do it): from then on every folder kcomp creates or writes into below
//!   it ([`create_dir_all`], [`write_file`], [`atomic_write`]) is checked level by level, and
//!   a symbolic link planted at any level is refused, with or without `--force`.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

use crate::error::{KcompError, Result};
use crate::io::limits::human_bytes;

/// Name of the lock file [`lock_dir`] takes in an output folder.
/// The lock file older versions left in each output folder (ignored where found; the lock is
/// now taken on the folder itself).
pub const LOCK_FILE: &str = ".kcomp.lock";

/// The output folders of this process ([`guard_out_root`]), absolute.
static OUT_ROOTS: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Registers `root` (given by the user, trusted, links above it and in it allowed) as an
/// output folder: every folder below it that kcomp creates or writes into is then checked
/// level by level and may not be a symbolic link.
pub fn guard_out_root(root: &Path) {
    let root = absolute(root);
    let mut roots = OUT_ROOTS.lock().unwrap_or_else(|e| e.into_inner());
    if !roots.contains(&root) {
        roots.push(root);
    }
}

/// The outermost registered output folder holding `dir`, and `dir` relative to it.
fn out_root_of(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    let abs = absolute(dir);
    let roots = OUT_ROOTS.lock().unwrap_or_else(|e| e.into_inner());
    roots
        .iter()
        .filter(|r| abs.starts_with(r))
        .min_by_key(|r| r.components().count())
        .and_then(|r| Some((r.clone(), abs.strip_prefix(r).ok()?.to_path_buf())))
}

/// Creates `dir` and its parents like `std::fs::create_dir_all`, except below a registered
/// output folder, where each level is created or checked without following a link.
pub fn create_dir_all(dir: &Path) -> Result<()> {
    match out_root_of(dir) {
        Some((root, rel)) => walk_dirs_under(&root, &rel, true).map(|_| ()),
        None => std::fs::create_dir_all(dir).map_err(|e| KcompError::io(dir, e)),
    }
}

/// Refuses a folder below a registered output folder that is, or lies below, a symbolic
/// link (before kcomp writes a file into it).
fn check_out_dir(dir: &Path) -> Result<()> {
    match out_root_of(dir) {
        Some((root, rel)) => walk_dirs_under(&root, &rel, false).map(|_| ()),
        None => Ok(()),
    }
}

/// Opens `path` for reading if it is a regular file; returns the file and its size. The open
/// does not block on a FIFO (O_NONBLOCK) and the type is checked on the open file (fstat), so
/// a file swapped between a check and the open cannot slip through.
pub fn open_regular(path: &Path) -> Result<(File, u64)> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => KcompError::file(path, "file not found"),
            _ => KcompError::io(path, e),
        })?;
    let meta = file.metadata().map_err(|e| KcompError::io(path, e))?;
    if meta.is_dir() {
        return Err(KcompError::file(path, "is a directory, expected a file"));
    }
    if !meta.is_file() {
        return Err(KcompError::file(
            path,
            "is not a regular file (a FIFO, socket or device cannot be read safely)",
        ));
    }
    Ok((file, meta.len()))
}

/// The size of a regular file (see [`open_regular`]).
pub fn regular_file_size(path: &Path) -> Result<u64> {
    open_regular(path).map(|(_, size)| size)
}

/// Reads a regular file of at most `cap` bytes whole.
pub fn read_capped(path: &Path, cap: u64) -> Result<Vec<u8>> {
    let (file, size) = open_regular(path)?;
    if size > cap {
        return Err(KcompError::file(
            path,
            format!(
                "is {} long, above the {} this input may have",
                human_bytes(size as f64),
                human_bytes(cap as f64)
            ),
        ));
    }
    let mut buf = Vec::with_capacity(size as usize);
    // `take` guards against a file that grows while it is read.
    file.take(cap.saturating_add(1))
        .read_to_end(&mut buf)
        .map_err(|e| KcompError::io(path, e))?;
    if buf.len() as u64 > cap {
        return Err(KcompError::file(
            path,
            "grew beyond the size limit while read",
        ));
    }
    Ok(buf)
}

/// Refuses `path` when it resolves (through symbolic links) outside `root`: a file of an
/// answer tree that is a link to a secret is not read, scored or copied.
pub fn check_within(path: &Path, root: &Path) -> Result<()> {
    let real = std::fs::canonicalize(path).map_err(|e| KcompError::io(path, e))?;
    let root = std::fs::canonicalize(root).map_err(|e| KcompError::io(root, e))?;
    if real.starts_with(&root) {
        Ok(())
    } else {
        Err(KcompError::file(
            path,
            "is a symbolic link leading outside the folder being read; refused",
        ))
    }
}

/// Creates `root` (trusted: given by the user) and the folders `rel` below it, refusing any
/// component of `rel` that is a symbolic link, `..` or absolute. Returns `root/rel`.
pub fn create_dirs_under(root: &Path, rel: &Path) -> Result<PathBuf> {
    walk_dirs_under(root, rel, true)
}

/// [`create_dirs_under`], or with `create` false only the checks (a missing level is fine:
/// the write that follows fails on it).
fn walk_dirs_under(root: &Path, rel: &Path, create: bool) -> Result<PathBuf> {
    if create {
        std::fs::create_dir_all(root).map_err(|e| KcompError::io(root, e))?;
    }
    let mut dir = root.to_path_buf();
    for c in rel.components() {
        let Component::Normal(name) = c else {
            return Err(KcompError::file(
                root.join(rel),
                "is not a plain relative path below the output folder",
            ));
        };
        dir.push(name);
        match std::fs::symlink_metadata(&dir) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(KcompError::file(
                    &dir,
                    "is a symbolic link; kcomp does not write through links",
                ));
            }
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(KcompError::file(&dir, "exists and is not a folder")),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !create => break,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                match std::fs::create_dir(&dir) {
                    Ok(()) => {}
                    // Another thread made it: check it again.
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                        let m =
                            std::fs::symlink_metadata(&dir).map_err(|e| KcompError::io(&dir, e))?;
                        if !m.is_dir() {
                            return Err(KcompError::file(&dir, "exists and is not a folder"));
                        }
                    }
                    Err(e) => return Err(KcompError::io(&dir, e)),
                }
            }
            Err(e) => return Err(KcompError::io(&dir, e)),
        }
    }
    Ok(dir)
}

/// Writes `bytes` to `path` atomically: a temporary file in the same folder (created with
/// O_EXCL, so never through a link), then a rename over `path` (which replaces a link
/// there instead of following it). A failed write (full disk) removes the temporary file and
/// leaves any previous `path` untouched. The folder must exist.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<()> {
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
        return Err(KcompError::file(path, "is a directory, expected a file"));
    }
    if let Some(parent) = path.parent() {
        check_out_dir(parent)?;
    }
    write_atomic_io(path, bytes).map_err(|e| KcompError::io(path, e))
}

/// [`atomic_write`] with the `std::fs::write` signature, for callers that map the error.
pub fn write_atomic_io(path: &Path, contents: impl AsRef<[u8]>) -> std::io::Result<()> {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("no file name"))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{}.", name.to_string_lossy()))
        .suffix(".tmp")
        .tempfile_in(parent)?;
    tmp.write_all(contents.as_ref())?;
    tmp.flush()?;
    persist_synced(tmp, path, parent)
}

/// Makes a finished temporary file the target: readable by others (as with the default
/// umask), its data on disk (fsync) before the rename, and the rename itself on disk (fsync
/// of the folder), so neither a crash nor a power loss leaves a truncated file under the
/// target's name.
fn persist_synced(tmp: tempfile::NamedTempFile, path: &Path, parent: &Path) -> std::io::Result<()> {
    tmp.as_file()
        .set_permissions(std::fs::Permissions::from_mode(0o644))?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    // A folder cannot always be opened for syncing (e.g. no read permission): the rename has
    // happened either way, so only durability, not atomicity, depends on it.
    if let Ok(dir) = File::open(parent) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// Like [`atomic_write`] for writers that take a path (the plotting backends): `write` fills
/// a temporary file beside `path` whose name ends like `path`'s (the backends choose the
/// format by extension), which is then synced and renamed over `path`. A failed `write`
/// removes the temporary file and leaves any previous `path` untouched.
pub fn atomic_write_with(path: &Path, write: impl FnOnce(&Path) -> Result<()>) -> Result<()> {
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
        return Err(KcompError::file(path, "is a directory, expected a file"));
    }
    if let Some(parent) = path.parent() {
        check_out_dir(parent)?;
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| KcompError::file(path, "no file name"))?;
    let suffix = path
        .extension()
        .map(|e| format!(".tmp.{}", e.to_string_lossy()))
        .unwrap_or_else(|| ".tmp".into());
    let tmp = tempfile::Builder::new()
        .prefix(&format!(".{}.", name.to_string_lossy()))
        .suffix(&suffix)
        .tempfile_in(parent)
        .map_err(|e| KcompError::io(path, e))?;
    write(tmp.path())?;
    persist_synced(tmp, path, parent).map_err(|e| KcompError::io(path, e))
}

/// [`atomic_write`] after creating the file's folder ([`create_dir_all`]: no link followed
/// below a registered output folder).
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(parent) = path.parent()
        && !parent.as_os_str().is_empty()
    {
        create_dir_all(parent)?;
    }
    atomic_write(path, bytes)
}

/// [`write_file`] that refuses to replace a file holding something else unless `force` (the
/// same bytes again pass: rerunning a command is not an overwrite).
pub fn write_new_file(path: &Path, bytes: &[u8], force: bool) -> Result<()> {
    if !force && path.exists() {
        let same = std::fs::metadata(path).is_ok_and(|m| m.len() == bytes.len() as u64)
            && read_capped(path, bytes.len() as u64).is_ok_and(|old| old == bytes);
        if !same {
            return Err(KcompError::file(
                path,
                "exists with other contents; choose another file name, or add --force to \
                 replace it",
            ));
        }
    }
    write_file(path, bytes)
}

/// An exclusive lock on an output folder, held until dropped.
#[derive(Debug)]
pub struct DirLock {
    _file: File,
}

/// Creates `dir` and takes an exclusive lock on the folder itself (flock on its descriptor,
/// released when the process ends, even by kill -9): nothing is left in the folder. A second
/// run on the same folder gets a one-line error.
pub fn lock_dir(dir: &Path) -> Result<DirLock> {
    create_dir_all(dir)?;
    guard_out_root(dir);
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(dir)
        .map_err(|e| KcompError::io(dir, e))?;
    match file.try_lock() {
        Ok(()) => Ok(DirLock { _file: file }),
        Err(std::fs::TryLockError::WouldBlock) => Err(KcompError::file(
            dir,
            "another kcomp run is writing to this folder (it holds a lock on it); wait for it \
             to end or choose another output folder",
        )),
        Err(std::fs::TryLockError::Error(e)) => Err(KcompError::io(dir, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that fails half-way (a full disk, a crashed encoder) leaves neither a
    /// truncated target nor its temporary file; the previous target stays whole.
    #[test]
    fn a_failed_path_writer_leaves_no_truncated_file() {
        let dir = tempfile::tempdir().unwrap();
        let fig = dir.path().join("fig.png");
        let half = |tmp: &Path| -> Result<()> {
            std::fs::write(tmp, b"\x89PNG half").map_err(|e| KcompError::io(tmp, e))?;
            Err(KcompError::Other("encoder failed".into()))
        };
        assert!(atomic_write_with(&fig, half).is_err());
        let names = |d: &Path| -> Vec<String> {
            std::fs::read_dir(d)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        };
        assert!(names(dir.path()).is_empty(), "{:?}", names(dir.path()));
        // The temporary name keeps the extension (plotters picks the format by it).
        atomic_write_with(&fig, |tmp| {
            assert_eq!(tmp.extension().unwrap(), "png");
            assert_eq!(tmp.parent().unwrap(), dir.path());
            std::fs::write(tmp, b"whole").map_err(|e| KcompError::io(tmp, e))
        })
        .unwrap();
        assert!(atomic_write_with(&fig, half).is_err());
        assert_eq!(std::fs::read(&fig).unwrap(), b"whole");
        assert_eq!(names(dir.path()), vec!["fig.png".to_string()]);
        // A real figure goes the same way: written whole, no temporary file left.
        let stem = dir.path().join("heat");
        let cell = |value| crate::plot::HeatCell {
            value,
            n: 5,
            interval: None,
        };
        let paths = crate::plot::heatmap(
            &stem,
            "t",
            &["a".into(), "b".into()],
            &[
                vec![cell(Some(1.0)), cell(None)],
                vec![cell(Some(-0.5)), cell(Some(0.0))],
            ],
            "c",
        )
        .unwrap();
        let png = std::fs::read(&paths[0]).unwrap();
        assert!(png.starts_with(b"\x89PNG") && png.ends_with(b"IEND\xaeB`\x82"));
        assert!(
            std::fs::read_to_string(&paths[1])
                .unwrap()
                .trim_end()
                .ends_with("</svg>")
        );
        let mut left = names(dir.path());
        left.sort();
        assert_eq!(left, ["fig.png", "heat.png", "heat.svg"]);
    }

    #[test]
    fn only_regular_files_are_opened() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read_capped(&fifo, 10).unwrap_err().to_string();
        assert!(e.contains("regular file"), "{e}");
        let e = read_capped(Path::new("/dev/zero"), 10)
            .unwrap_err()
            .to_string();
        assert!(e.contains("regular file"), "{e}");
        assert!(
            read_capped(dir.path(), 10)
                .unwrap_err()
                .to_string()
                .contains("directory")
        );
    }

    #[test]
    fn links_out_of_the_tree_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let tree = dir.path().join("tree");
        std::fs::create_dir(&tree).unwrap();
        std::fs::write(dir.path().join("secret"), "s").unwrap();
        std::fs::write(tree.join("a.txt"), "a").unwrap();
        std::os::unix::fs::symlink(dir.path().join("secret"), tree.join("b.txt")).unwrap();
        std::os::unix::fs::symlink(tree.join("a.txt"), tree.join("c.txt")).unwrap();
        assert!(check_within(&tree.join("a.txt"), &tree).is_ok());
        assert!(check_within(&tree.join("c.txt"), &tree).is_ok());
        let e = check_within(&tree.join("b.txt"), &tree)
            .unwrap_err()
            .to_string();
        assert!(e.contains("b.txt") && e.contains("symbolic link"), "{e}");
    }

    #[test]
    fn writes_replace_links_instead_of_following_them() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let out = dir.path().join("out");
        std::fs::create_dir(&out).unwrap();
        std::os::unix::fs::symlink(&victim, out.join("f.txt")).unwrap();
        atomic_write(&out.join("f.txt"), b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        assert_eq!(std::fs::read_to_string(out.join("f.txt")).unwrap(), "new");
        assert!(
            !std::fs::symlink_metadata(out.join("f.txt"))
                .unwrap()
                .is_symlink()
        );
        // A planted folder link is refused.
        std::os::unix::fs::symlink(dir.path(), out.join("m")).unwrap();
        let e = create_dirs_under(&out, Path::new("m/x"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("symbolic link"), "{e}");
        assert!(create_dirs_under(&out, Path::new("../x")).is_err());
        assert!(create_dirs_under(&out, Path::new("/x")).is_err());
        let made = create_dirs_under(&out, Path::new("a/b")).unwrap();
        assert!(made.is_dir());
        // No temporary file stays behind.
        let names: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 3, "{names:?}");
    }

    #[test]
    fn a_second_lock_on_a_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let held = lock_dir(dir.path()).unwrap();
        let e = lock_dir(dir.path()).unwrap_err().to_string();
        assert!(e.contains("another kcomp run"), "{e}");
        drop(held);
        assert!(lock_dir(dir.path()).is_ok());
    }
}
