//! MT19937 (Matsumoto & Nishimura 1998), 32-bit output, with both reference seeding routines.
//!
//! CPython's `random.seed(int)` and NumPy's `RandomState(array)` use `init_by_array`;
//! NumPy's `RandomState(int)` uses `init_genrand`.

const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7fff_ffff;

/// The 32-bit Mersenne Twister generator.
#[derive(Clone)]
pub struct Mt19937 {
    state: [u32; N],
    /// The tempered outputs of the current state, filled at each twist: tempering a whole
    /// block at once vectorises, one word at a time it does not.
    tempered: [u32; N],
    index: usize,
}

impl std::fmt::Debug for Mt19937 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mt19937")
            .field("index", &self.index)
            .finish()
    }
}

impl Mt19937 {
    /// Seeds with a single 32-bit integer (`init_genrand`).
    pub fn from_u32(seed: u32) -> Self {
        let mut state = [0u32; N];
        state[0] = seed;
        for i in 1..N {
            let prev = state[i - 1];
            state[i] = 1_812_433_253u32
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(i as u32);
        }
        Mt19937 {
            state,
            tempered: [0; N],
            index: N,
        }
    }

    /// Seeds with an array of 32-bit words (`init_by_array`).
    pub fn from_key(key: &[u32]) -> Self {
        let mut mt = Mt19937::from_u32(19_650_218);
        let key_len = key.len().max(1);
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..N.max(key_len) {
            let prev = mt.state[i - 1];
            let k = if key.is_empty() { 0 } else { key[j] };
            mt.state[i] = (mt.state[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_664_525))
                .wrapping_add(k)
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                mt.state[0] = mt.state[N - 1];
                i = 1;
            }
            if j >= key_len {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            let prev = mt.state[i - 1];
            mt.state[i] = (mt.state[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_566_083_941))
                .wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                mt.state[0] = mt.state[N - 1];
                i = 1;
            }
        }
        mt.state[0] = 0x8000_0000;
        mt.index = N;
        mt
    }

    fn twist(&mut self) {
        // The reference's three loops: no index wraps inside them, so they vectorise.
        let mix = |current: u32, following: u32, far: u32| {
            let y = (current & UPPER_MASK) | (following & LOWER_MASK);
            far ^ (y >> 1) ^ (0u32.wrapping_sub(y & 1) & MATRIX_A)
        };
        let s = &mut self.state;
        for k in 0..N - M {
            s[k] = mix(s[k], s[k + 1], s[k + M]);
        }
        for k in N - M..N - 1 {
            s[k] = mix(s[k], s[k + 1], s[k + M - N]);
        }
        s[N - 1] = mix(s[N - 1], s[0], s[M - 1]);
        for (out, &word) in self.tempered.iter_mut().zip(s.iter()) {
            let mut y = word;
            y ^= y >> 11;
            y ^= (y << 7) & 0x9d2c_5680;
            y ^= (y << 15) & 0xefc6_0000;
            *out = y ^ (y >> 18);
        }
        self.index = 0;
    }

    /// Next tempered 32-bit output (`genrand_int32`).
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        if self.index >= N {
            self.twist();
        }
        let y = self.tempered[self.index];
        self.index += 1;
        y
    }

    /// Uniform double in [0, 1) with 53 random bits (`genrand_res53`), as CPython's
    /// `random.random()` and NumPy's legacy `random_sample()`.
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        let a = (self.next_u32() >> 5) as f64;
        let b = (self.next_u32() >> 6) as f64;
        (a * 67_108_864.0 + b) * (1.0 / 9_007_199_254_740_992.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_outputs_of_init_by_array() {
        // First outputs of the reference mt19937ar.c test program, key {0x123,0x234,0x345,0x456}.
        let mut mt = Mt19937::from_key(&[0x123, 0x234, 0x345, 0x456]);
        let first: Vec<u32> = (0..5).map(|_| mt.next_u32()).collect();
        assert_eq!(
            first,
            [1067595299, 955945823, 477289528, 4107218783, 4228976476]
        );
    }

    #[test]
    fn reference_output_of_init_genrand() {
        // std::mt19937 default seed 5489: the 10000th output is 4123659995 (C++ standard).
        let mut mt = Mt19937::from_u32(5489);
        let mut last = 0;
        for _ in 0..10_000 {
            last = mt.next_u32();
        }
        assert_eq!(last, 4_123_659_995);
    }
}
