//! Files: NumPy `.npy` for W and Z, user data (.npy, CSV, JSONL), CSV tables, resource limits.

pub mod limits;
pub mod npy;
pub mod out_dir;
pub mod table;
pub mod user_data;
