//! Requential coding (Finzi, Qiu, Jiang, Izmailov, Kolter, Wilson, "From Entropy to
//! Epiplexity: Rethinking Information for Computationally Bounded Intelligence", arXiv
//! 2601.03220, 2026): a description of a model by the synthetic data that taught it.
//!
//! A teacher learns the real rows in order; a student of the same class, started from the same
//! seeded state, learns only synthetic rows drawn from the teacher's predictive given each
//! row's W. The model's description length is the summed KL(teacher || student) over the
//! synthetic rows the student learns from (the paper's K_req); the real Z is then coded by
//! the final student.
//!
//! Why it is a code (docs/prequential.md, "Requential coding"): the decoder knows W, the row
//! order, the learner and its initial state, and shares a random seed with the encoder. The
//! synthetic rows are sent one message at a time; a message is one relative-entropy code of a
//! draw from the teacher's predictive (a product over its rows) against the student's
//! predictive frozen at the message start, which the decoder can compute because it trained
//! the student on every earlier synthetic row. The Poisson functional representation (Li and
//! El Gamal, IEEE Trans. Inf. Theory 64(11), 2018) sends an exact draw in at most
//! `KL + log2(KL + 1) + 4` bits on average; kcomp charges that bound per message (the KL
//! itself in closed form, [`crate::coding::predictive`]), the real Z under the final student,
//! and log2 of the number of learners for the choice of the shortest. The teacher is never
//! sent. Caveats, stated in the outputs too: the lengths are expected lengths (over the shared
//! randomness) of a code kcomp does not run, because a relative-entropy coder needs about
//! 2^KL draws per message; and the data are coded by the student, not by the teacher as in
//! the paper's estimate (reported beside it).
//!
//! - [`config`]: the settings;
//! - [`code`]: the teacher/student runs and the code length;
//! - [`estimator`]: the panel estimator `requential`, K(Z|W) and K(Z).

pub mod code;
pub mod config;
pub mod estimator;

pub use code::{RequentialCode, requential_code};
pub use config::{RequentialConfig, Teacher};
pub use estimator::RequentialEstimator;
