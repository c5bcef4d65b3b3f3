//! Files: safe reads and atomic writes (`files`), names as data (`names`), NumPy `.npy` for W and Z, user data (.npy, CSV, JSONL), CSV tables, resource limits, the plain-data subset of Python pickles (`pickle`: pybdm's CTM tables).

pub mod files;
pub mod limits;
pub mod names;
pub mod npy;
pub mod out_dir;
pub mod pickle;
pub mod table;
pub mod text;
pub mod user_data;
pub mod w_input;
