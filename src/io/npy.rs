//! Writing generated datasets as NumPy `.npy` files.

use std::path::{Path, PathBuf};

use ndarray::Array2;
use serde_json::json;

use crate::error::{KcompError, Result};

/// Writes an array as `.npy` like every other output ([`crate::io::files::atomic_write`]):
/// whole or not at all, and a link planted at `path` is replaced, never written through.
pub fn write_npy<A: ndarray_npy::WritableElement, D: ndarray::Dimension>(
    path: &Path,
    array: &ndarray::ArrayRef<A, D>,
) -> Result<()> {
    use ndarray_npy::WriteNpyExt;
    let mut bytes = Vec::new();
    array
        .write_npy(&mut bytes)
        .map_err(|e| KcompError::file(path, e.to_string()))?;
    crate::io::files::atomic_write(path, &bytes)
}

/// Writes `W.npy` (int64 word ids, N x M), `Z.npy` (float64 values, N x D), `Z_grid.npy`
/// (int64 grid indices, value = index x precision) and `meta.json` into `dir`.
pub fn write_dataset(
    dir: &Path,
    w: &Array2<i64>,
    z_grid: &Array2<i64>,
    precision: f64,
    meta: serde_json::Value,
) -> Result<Vec<PathBuf>> {
    crate::io::files::create_dir_all(dir)?;
    let w_path = dir.join("W.npy");
    write_npy(&w_path, w)?;
    let zg_path = dir.join("Z_grid.npy");
    write_npy(&zg_path, z_grid)?;
    let z_path = dir.join("Z.npy");
    let z = z_grid.mapv(|k| k as f64 * precision);
    write_npy(&z_path, &z)?;
    let meta_path = dir.join("meta.json");
    let meta = json!({
        "W.npy": "int64 word ids, shape (N, M)",
        "Z.npy": "float64 representation values, shape (N, D)",
        "Z_grid.npy": "int64 grid indices, Z = Z_grid * precision",
        "precision": precision,
        "run": meta,
    });
    crate::io::files::write_atomic_io(
        &meta_path,
        serde_json::to_string_pretty(&meta).expect("serialisable"),
    )
    .map_err(|e| KcompError::io(&meta_path, e))?;
    Ok(vec![w_path, z_path, zg_path, meta_path])
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray_npy::read_npy;

    #[test]
    fn round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let w = Array2::from_shape_vec((2, 3), vec![0, 1, 2, 3, 4, 5]).unwrap();
        let z = Array2::from_shape_vec((2, 2), vec![-3, 0, 7, 100]).unwrap();
        write_dataset(dir.path(), &w, &z, 0.01, json!({})).unwrap();
        let w2: Array2<i64> = read_npy(dir.path().join("W.npy")).unwrap();
        let z2: Array2<f64> = read_npy(dir.path().join("Z.npy")).unwrap();
        assert_eq!(w2, w);
        assert!((z2[[1, 1]] - 1.0).abs() < 1e-12);
        assert!((z2[[0, 0]] + 0.03).abs() < 1e-12);
    }
}
