//! The single-run code length of a prequential run (Finzi, Qiu, Jiang, Izmailov, Kolter,
//! Wilson, "From Entropy to Epiplexity", arXiv 2601.03220, 2026): the model's description
//! length read off one training run, K_auc = the area of the loss curve above the final loss.
//!
//! kcomp's loss curve is the prequential one: each chunk's bits were charged before the model
//! learned the chunk. With `final` the last chunk's bits per row,
//! `K_auc = sum over chunks (bits - rows x final) = K(Data) - N x final`.
//!
//! When it is a code and when an estimate:
//! - `K(Data)`, the prequential code, is always a code;
//! - `K_auc + N x final` equals it (the model part K_auc and the data part coded at the final
//!   loss are then two halves of that one code), so read this way K_auc is the model's share
//!   of a real code;
//! - `K_auc + K(Data|f)` (`single_run_bits`: the model by its area, the data by the final
//!   model on rows it learned) is the paper's two-part estimate and **not** a code: no decoder
//!   gets the final model from K_auc bits, and K(Data|f) scores the final model on rows it
//!   trained on (below N x final when it fits them better than new rows).

use serde::{Deserialize, Serialize};

use super::code::Chunk;

/// The single-run numbers of one prequential run (bits).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SingleRun {
    /// Bits per row of the last chunk: the loss at the end of the run.
    pub final_loss_bits_per_row: f64,
    /// The area of the loss curve above the final loss.
    pub k_auc_bits: f64,
    /// K_auc + K(Data|f): the paper's two-part estimate (not a code).
    pub single_run_bits: f64,
}

/// The single-run numbers of a run with these chunks, K(Data) and K(Data|f); `None` without
/// a chunk of at least one row.
pub fn single_run(chunks: &[Chunk], k_data: f64, k_data_given_f: f64) -> Option<SingleRun> {
    let last = chunks.iter().rev().find(|c| c.end > c.start)?;
    let final_loss = last.bits / (last.end - last.start) as f64;
    let rows: usize = chunks.iter().map(|c| c.end - c.start).sum();
    let k_auc = k_data - rows as f64 * final_loss;
    Some(SingleRun {
        final_loss_bits_per_row: final_loss,
        k_auc_bits: k_auc,
        single_run_bits: k_auc + k_data_given_f,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(start: usize, end: usize, bits: f64) -> Chunk {
        Chunk {
            start,
            end,
            model_bits: Some(bits),
            naive_bits: bits,
            bits,
            bits_per_sample: bits / (end - start) as f64,
            used_model: true,
            epochs: 0,
        }
    }

    #[test]
    fn area_above_the_final_loss() {
        // Losses 10, 6, 2 bits per row over 2, 4, 4 rows; final loss 2.
        let chunks = [chunk(0, 2, 20.0), chunk(2, 6, 24.0), chunk(6, 10, 8.0)];
        let k_data = 52.0;
        let s = single_run(&chunks, k_data, 15.0).unwrap();
        assert_eq!(s.final_loss_bits_per_row, 2.0);
        // (10 - 2) 2 + (6 - 2) 4 + 0 = 32 = K(Data) - 10 x 2.
        assert_eq!(s.k_auc_bits, 32.0);
        assert_eq!(s.single_run_bits, 47.0);
        // K_auc + N x final is the prequential code itself.
        assert_eq!(s.k_auc_bits + 10.0 * s.final_loss_bits_per_row, k_data);
        assert!(single_run(&[], 0.0, 0.0).is_none());
    }
}
