//! Message entropy H(W) and mutual information I(W; Z) in bits, with the definitions of EGG's
//! `egg/core/language_analysis.py` (`entropy`, `mutual_info`): whole messages and whole objects
//! are the symbols, entropies are plug-in estimates from empirical frequencies, and
//! I(W; Z) = H(W) + H(Z) - H(W, Z).

use crate::dataset::{Dataset, Targets};
use crate::error::{KcompError, Result};
use crate::estimators::disentanglement::entropy_bits;
use crate::estimators::interface::{Estimate, Estimator, Progress};

/// W's rows as token vectors.
pub(crate) fn message_rows(data: &Dataset) -> Vec<Vec<u32>> {
    (0..data.n()).map(|i| data.w.row(i).to_vec()).collect()
}

/// Z's rows as attribute vectors (discrete Z only).
pub(crate) fn object_rows(data: &Dataset) -> Result<Vec<Vec<u32>>> {
    let Targets::Discrete { n_attr, values, .. } = &data.z else {
        return Err(KcompError::param("z", "needs discrete Z (attributes)"));
    };
    Ok(values.chunks(*n_attr).map(<[u32]>::to_vec).collect())
}

pub(crate) fn discrete_only(data: &Dataset) -> std::result::Result<(), String> {
    if data.is_discrete() {
        Ok(())
    } else {
        Err("needs discrete Z (attributes)".into())
    }
}

/// Plug-in mutual information between whole messages and whole objects, in bits.
pub fn message_object_mi_bits(messages: &[Vec<u32>], objects: &[Vec<u32>]) -> f64 {
    entropy_bits(messages.iter()) + entropy_bits(objects.iter())
        - entropy_bits(messages.iter().zip(objects))
}

/// H(W): entropy of whole messages, in bits.
#[derive(Debug, Clone, Default)]
pub struct EntropyEstimator;

impl Estimator for EntropyEstimator {
    fn name(&self) -> &str {
        "entropy"
    }

    fn estimate(&self, data: &Dataset, _progress: &Progress) -> Result<Estimate> {
        Ok(Estimate::score(entropy_bits(message_rows(data).iter())))
    }
}

/// I(W; Z) between whole messages and whole objects, in bits; native field `h_z_bits`.
#[derive(Debug, Clone, Default)]
pub struct MutualInformationEstimator;

impl Estimator for MutualInformationEstimator {
    fn name(&self) -> &str {
        "mutual_information"
    }

    fn applies_to(&self, data: &Dataset) -> std::result::Result<(), String> {
        discrete_only(data)
    }

    fn estimate(&self, data: &Dataset, _progress: &Progress) -> Result<Estimate> {
        let objects = object_rows(data)?;
        let mi = message_object_mi_bits(&message_rows(data), &objects);
        Ok(Estimate::score(mi).with("h_z_bits", entropy_bits(objects.iter())))
    }
}

/// Every (colour, shape) object of a `c` x `s` grid, row by row (a test fixture shared by the
/// metric tests).
#[cfg(test)]
pub(crate) fn object_grid(c: u32, s: u32) -> Vec<Vec<u32>> {
    (0..c)
        .flat_map(|i| (0..s).map(move |j| vec![i, j]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{KzMethod, KzReference, Provenance, TokenData};

    fn dataset(msgs: &[&[u32]], objs: &[&[u32]]) -> Dataset {
        let w = TokenData::new(
            msgs.len(),
            msgs[0].len(),
            10,
            msgs.iter().flat_map(|m| m.to_vec()).collect(),
        )
        .unwrap();
        let z = Targets::discrete(
            objs[0].len(),
            10,
            objs.iter().flat_map(|o| o.to_vec()).collect(),
        )
        .unwrap();
        let kz = KzReference {
            bits: 1.0,
            method: KzMethod::Uniform,
        };
        Dataset::new(w, z, Provenance::default(), kz, None).unwrap()
    }

    fn scores(d: &Dataset) -> (f64, f64) {
        let p = Progress::hidden();
        let h = EntropyEstimator.estimate(d, &p).unwrap().measure;
        let i = MutualInformationEstimator.estimate(d, &p).unwrap().measure;
        match (h, i) {
            (
                crate::estimators::interface::Measure::Score { score: h },
                crate::estimators::interface::Measure::Score { score: i },
            ) => (h, i),
            _ => unreachable!(),
        }
    }

    #[test]
    fn bijective_constant_and_permuted_languages() {
        let objs: [&[u32]; 4] = [&[0, 0], &[0, 1], &[1, 0], &[1, 1]];
        // Bijective: H(W) = I(W; Z) = log2 4 = 2 bits.
        let d = dataset(&[&[0, 2], &[0, 3], &[1, 2], &[1, 3]], &objs);
        assert_eq!(scores(&d), (2.0, 2.0));
        // Constant: nothing said.
        let c: [&[u32]; 4] = [&[5, 5]; 4];
        let d = dataset(&c, &objs);
        assert_eq!(scores(&d), (0.0, 0.0));
        // A permuted (holistic) bijection carries the same information.
        let d = dataset(&[&[1, 3], &[0, 2], &[1, 2], &[0, 3]], &objs);
        assert_eq!(scores(&d), (2.0, 2.0));
        // Two messages for four objects: H(W) = 1 bit, I = 1 bit.
        let d = dataset(&[&[0], &[0], &[1], &[1]], &objs);
        assert_eq!(scores(&d), (1.0, 1.0));
    }

    #[test]
    fn egg_doctest_entropy() {
        // EGG's calc_entropy doctest: messages [[1, 2], [3, 4]] have entropy 1.0.
        let d = dataset(&[&[1, 2], &[3, 4]], &[&[0], &[1]]);
        assert_eq!(scores(&d), (1.0, 1.0));
    }
}
