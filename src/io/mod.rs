//! Interoperability: NumPy `.npy` files for W and Z.

pub mod npy;
pub mod user_data;
