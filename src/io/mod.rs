//! Interoperability: NumPy `.npy` files for W and Z.

pub mod npy;
