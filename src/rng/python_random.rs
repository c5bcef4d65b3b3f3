//! CPython 3.11's `random.Random` on top of [`Mt19937`]: the integer draws (`getrandbits`,
//! `_randbelow`, `shuffle`, `choice`, `sample`) needed to reproduce datasets written with
//! `random.seed(int)`. Floats are `random()` = genrand_res53.

use super::mt19937::Mt19937;

/// Python's `random.Random` integer API, bit for bit.
#[derive(Debug, Clone)]
pub struct PythonRandom {
    mt: Mt19937,
}

impl PythonRandom {
    /// `random.seed(seed)` for an int: `init_by_array` of the 32-bit little-endian chunks of
    /// |seed| (a zero seed is the one-word key `[0]`).
    pub fn seed(seed: i64) -> Self {
        let mut a = seed.unsigned_abs();
        let mut key = Vec::new();
        while a > 0 {
            key.push((a & 0xffff_ffff) as u32);
            a >>= 32;
        }
        if key.is_empty() {
            key.push(0);
        }
        PythonRandom {
            mt: Mt19937::from_key(&key),
        }
    }

    /// `random.random()`: a 53-bit float in [0, 1).
    pub fn random(&mut self) -> f64 {
        self.mt.next_f64()
    }

    /// `getrandbits(k)` for 0 <= k <= 64: words are consumed little end first, the last one
    /// truncated from the top like CPython does.
    pub fn getrandbits(&mut self, k: u32) -> u64 {
        assert!(k <= 64, "getrandbits supports at most 64 bits");
        if k == 0 {
            return 0;
        }
        if k <= 32 {
            return u64::from(self.mt.next_u32() >> (32 - k));
        }
        let low = u64::from(self.mt.next_u32());
        let high = u64::from(self.mt.next_u32() >> (64 - k));
        low | (high << 32)
    }

    /// `_randbelow(n)`: rejection sampling on `n.bit_length()` bits; `n == 0` gives 0.
    pub fn randbelow(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let k = 64 - n.leading_zeros();
        loop {
            let r = self.getrandbits(k);
            if r < n {
                return r;
            }
        }
    }

    /// `shuffle(x)`: reversed Fisher-Yates with `_randbelow(i + 1)`.
    pub fn shuffle<T>(&mut self, x: &mut [T]) {
        for i in (1..x.len()).rev() {
            let j = self.randbelow(i as u64 + 1) as usize;
            x.swap(i, j);
        }
    }

    /// `choice(seq)`; `None` on an empty sequence (Python raises IndexError).
    pub fn choice<'a, T>(&mut self, seq: &'a [T]) -> Option<&'a T> {
        if seq.is_empty() {
            return None;
        }
        let i = self.randbelow(seq.len() as u64) as usize;
        Some(&seq[i])
    }

    /// `sample(population, k)` with both of CPython's branches (list pool when the population
    /// is small relative to k, set of selected indices otherwise); `None` if k > len.
    pub fn sample<T: Clone>(&mut self, population: &[T], k: usize) -> Option<Vec<T>> {
        let n = population.len();
        if k > n {
            return None;
        }
        let mut setsize = 21usize;
        if k > 5 {
            // 4 ** ceil(log(3k, 4)), computed as CPython does, in floating point.
            let e = ((k as f64 * 3.0).ln() / 4f64.ln()).ceil();
            setsize += 4usize.pow(e as u32);
        }
        let mut result = Vec::with_capacity(k);
        if n <= setsize {
            let mut pool: Vec<T> = population.to_vec();
            for i in 0..k {
                let j = self.randbelow((n - i) as u64) as usize;
                result.push(pool[j].clone());
                pool[j] = pool[n - i - 1].clone();
            }
        } else {
            let mut selected = std::collections::HashSet::new();
            for _ in 0..k {
                let mut j = self.randbelow(n as u64) as usize;
                while selected.contains(&j) {
                    j = self.randbelow(n as u64) as usize;
                }
                selected.insert(j);
                result.push(population[j].clone());
            }
        }
        Some(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Values printed by CPython 3.11.7.
    #[test]
    fn seed0_matches_cpython() {
        let mut r = PythonRandom::seed(0);
        // random.seed(0); [random.getrandbits(32) for _ in range(3)]
        assert_eq!(r.getrandbits(32), 3_626_764_237);
        assert_eq!(r.getrandbits(32), 1_654_615_998);
        assert_eq!(r.getrandbits(32), 3_255_389_356);
        let mut r = PythonRandom::seed(0);
        // random.seed(0); random.random()
        assert_eq!(r.random(), 0.844_421_851_525_048_1);
    }

    #[test]
    fn shuffle_sample_choice_match_cpython() {
        let mut r = PythonRandom::seed(42);
        let mut v: Vec<u32> = (0..10).collect();
        r.shuffle(&mut v);
        assert_eq!(v, SHUFFLE_42);
        let s = r.sample(&(0..100).collect::<Vec<u32>>(), 5).unwrap();
        assert_eq!(s, SAMPLE_42);
        let c = *r.choice(&[10, 20, 30, 40, 50, 60, 70]).unwrap();
        assert_eq!(c, CHOICE_42);
        // set branch: population much larger than k
        let big: Vec<u32> = (0..1000).collect();
        assert_eq!(r.sample(&big, 6).unwrap(), SAMPLE_SET_42);
        let mut r = PythonRandom::seed(-(1i64 << 40) - 7);
        assert_eq!(r.getrandbits(40), BIG_SEED_BITS40);
    }

    const SHUFFLE_42: [u32; 10] = [7, 3, 2, 8, 5, 6, 9, 4, 0, 1];
    const SAMPLE_42: [u32; 5] = [75, 54, 4, 3, 11];
    const CHOICE_42: u32 = 20;
    const SAMPLE_SET_42: [u32; 6] = [238, 517, 616, 27, 574, 203];
    const BIG_SEED_BITS40: u64 = 822_974_591_194;
}
