//! Interoperability: NumPy `.npy` files for W and Z, user data, and resource limits.

pub mod limits;
pub mod npy;
pub mod user_data;
