//! Search for the shortest mapping table: candidate key sets, per-output table errors, then a
//! local search over the assignment of outputs to key sets (see the module docs of
//! [`super`]).

use std::collections::HashMap;

use super::{MappingMdl, Prepared, Structure, build};
use crate::error::Result;

/// Most candidate key sets enumerated exhaustively.
const MAX_CANDIDATES: usize = 1024;
/// Beam width and depth when the positions are too many to enumerate.
const BEAM_WIDTH: usize = 4;
const BEAM_DEPTH: usize = 4;
/// Candidates kept per output for the local search when there are many.
const KEEP_PER_OUTPUT: usize = 48;
/// All-outputs-on-one-key-set starts tried.
const SHARED_STARTS: usize = 3;

fn binomial(n: usize, k: usize) -> usize {
    let mut r: u128 = 1;
    for j in 0..k as u128 {
        r = r * (n as u128 - j) / (j + 1);
        if r > u64::MAX as u128 {
            return usize::MAX;
        }
    }
    r as usize
}

fn positions(mask: u64) -> Vec<usize> {
    (0..64).filter(|&j| mask >> j & 1 == 1).collect()
}

/// Key ids and per-(key set, output) component errors, memoised.
struct Tables<'a> {
    p: &'a Prepared,
    keys: HashMap<u64, (Vec<u32>, usize)>,
    /// Scratch buffers of [`Tables::errors`].
    counts: Vec<u32>,
    best: Vec<(u32, u32)>,
}

impl<'a> Tables<'a> {
    fn key(&mut self, mask: u64) -> &(Vec<u32>, usize) {
        if !self.keys.contains_key(&mask) {
            let v = if mask == 0 {
                (vec![0u32; self.p.n], 1)
            } else {
                // refine the ids of the mask without its highest position
                let top = 63 - mask.leading_zeros() as usize;
                let parent = mask & !(1u64 << top);
                let (pids, _) = self.key(parent).clone();
                let alpha = self.p.w_alpha[top] as u64;
                let mut map: HashMap<u64, u32> = HashMap::new();
                let ids: Vec<u32> = (0..self.p.n)
                    .map(|i| {
                        let c = pids[i] as u64 * alpha + self.p.w_dense[i * self.p.m + top] as u64;
                        let len = map.len() as u32;
                        *map.entry(c).or_insert(len)
                    })
                    .collect();
                (ids, map.len())
            };
            self.keys.insert(mask, v);
        }
        &self.keys[&mask]
    }

    /// Distinct inputs whose output `a` the table keyed on `mask` gets wrong, with component
    /// modes (ties: the value that first reached the top count).
    fn errors(&mut self, mask: u64, a: usize) -> Vec<u32> {
        let p = self.p;
        self.key(mask);
        let (ids, count) = &self.keys[&mask];
        let col = &p.z_cols[a];
        let va = p.z_alpha[a].len();
        self.counts.clear();
        self.counts.resize(count * va, 0);
        self.best.clear();
        self.best.resize(*count, (0, 0));
        for (&k, &v) in ids.iter().zip(col) {
            let k = k as usize;
            let c = &mut self.counts[k * va + v as usize];
            *c += 1;
            if *c > self.best[k].0 {
                self.best[k] = (*c, v);
            }
        }
        let mut out = Vec::new();
        for (id, &r) in p.target_row.iter().enumerate() {
            if self.best[ids[r] as usize].1 != col[r] {
                out.push(id as u32);
            }
        }
        out
    }
}

/// The candidates and their errors.
struct Space {
    masks: Vec<u64>,
    n_keys: Vec<usize>,
    size: Vec<usize>,
    /// errs[c][a]: `None` when c is not a candidate for output a.
    errs: Vec<Vec<Option<Vec<u32>>>>,
    allowed: Vec<Vec<usize>>,
    /// (exact L(P), candidate) of one table holding every output, shortest first.
    shared: Vec<(usize, usize)>,
    exhaustive: bool,
    max_key_size: usize,
}

fn build_space(p: &Prepared) -> Space {
    let m = p.m;
    let mut tables = Tables {
        p,
        keys: HashMap::new(),
        counts: Vec::new(),
        best: Vec::new(),
    };
    let all = m < 63 && (1usize << m) <= MAX_CANDIDATES;
    let mut bound = 0;
    if !all {
        let mut total = 0usize;
        for s in 0..=m {
            total = total.saturating_add(binomial(m, s));
            if total > MAX_CANDIDATES {
                break;
            }
            bound = s;
        }
    }
    let (exhaustive, max_key_size) = if all {
        (true, m)
    } else if bound >= 3 {
        (true, bound)
    } else {
        (false, BEAM_DEPTH.min(m))
    };
    let mut masks: Vec<u64> = Vec::new();
    let mut index: HashMap<u64, usize> = HashMap::new();
    let mut errs: Vec<Vec<Option<Vec<u32>>>> = Vec::new();
    type Errs = Vec<Vec<Option<Vec<u32>>>>;
    let a_n = p.a;
    let add =
        |mask: u64, masks: &mut Vec<u64>, errs: &mut Errs, index: &mut HashMap<u64, usize>| {
            *index.entry(mask).or_insert_with(|| {
                masks.push(mask);
                errs.push(vec![None; a_n]);
                masks.len() - 1
            })
        };
    if exhaustive {
        let mut list: Vec<u64> = if all {
            (0..1u64 << m).collect()
        } else {
            let mut v = vec![0u64];
            let mut frontier = vec![0u64];
            for _ in 0..bound {
                let mut next = Vec::new();
                for &f in &frontier {
                    let start = if f == 0 {
                        0
                    } else {
                        64 - f.leading_zeros() as usize
                    };
                    for j in start..m {
                        next.push(f | 1 << j);
                    }
                }
                v.extend(&next);
                frontier = next;
            }
            v
        };
        list.sort_by_key(|&x| (x.count_ones(), x));
        for mask in list {
            let c = add(mask, &mut masks, &mut errs, &mut index);
            let row = (0..p.a)
                .map(|a| {
                    // Without repeated inputs a finer key of an error-free table is error-free.
                    let exact_below = p.d == p.n
                        && positions(mask).into_iter().any(|j| {
                            index
                                .get(&(mask & !(1u64 << j)))
                                .is_some_and(|&b| errs[b][a].as_ref().is_some_and(Vec::is_empty))
                        });
                    Some(if exact_below {
                        Vec::new()
                    } else {
                        tables.errors(mask, a)
                    })
                })
                .collect();
            errs[c] = row;
        }
    } else {
        // Per-output beam search over growing key sets, scored alone.
        let penalty = p.m + p.a;
        let mut finals = Vec::new();
        for a in 0..p.a {
            let mut beam = vec![0u64];
            let c = add(0, &mut masks, &mut errs, &mut index);
            if errs[c][a].is_none() {
                errs[c][a] = Some(tables.errors(0, a));
            }
            let mut best = (usize::MAX, 0u64);
            for _ in 0..BEAM_DEPTH.min(m) {
                let mut scored: Vec<(usize, u64)> = Vec::new();
                for &b in &beam {
                    for j in 0..m {
                        let mask = b | 1 << j;
                        if mask == b || scored.iter().any(|s| s.1 == mask) {
                            continue;
                        }
                        let c = add(mask, &mut masks, &mut errs, &mut index);
                        if errs[c][a].is_none() {
                            errs[c][a] = Some(tables.errors(mask, a));
                        }
                        let n = tables.key(mask).1;
                        let e = errs[c][a].as_ref().map_or(0, Vec::len);
                        let cost = n * (mask.count_ones() as usize + 1) + penalty * e;
                        scored.push((cost, mask));
                    }
                }
                scored.sort();
                scored.truncate(BEAM_WIDTH);
                if let Some(&s) = scored.first()
                    && s.0 < best.0
                {
                    best = s;
                }
                beam = scored.into_iter().map(|s| s.1).collect();
            }
            finals.push(best.1);
        }
        // Every output may join the key sets the others found best (so tables can merge).
        finals.sort_unstable();
        finals.dedup();
        for mask in finals.into_iter().chain([0]) {
            let c = add(mask, &mut masks, &mut errs, &mut index);
            for (a, e) in errs[c].iter_mut().enumerate() {
                if e.is_none() {
                    *e = Some(tables.errors(mask, a));
                }
            }
        }
    }
    // L(P) of one table holding every output, with exact tuple modes (component modes
    // misjudge merged tables whose keys carry several different rows)
    let mut shared = Vec::new();
    for (c, &mask) in masks.iter().enumerate() {
        if (0..p.a).any(|a| errs[c][a].is_none()) {
            continue;
        }
        let (ids, count) = tables.key(mask);
        let mut counts: HashMap<(u32, u32), u32> = HashMap::new();
        let mut best = vec![(0u32, 0u32); *count];
        for (&k, &zid) in ids.iter().zip(&p.z_id) {
            let t = counts.entry((k, zid)).or_insert(0);
            *t += 1;
            if *t > best[k as usize].0 {
                best[k as usize] = (*t, zid);
            }
        }
        let wrong = p
            .target_row
            .iter()
            .filter(|&&r| best[ids[r] as usize].1 != p.z_id[r])
            .count();
        let size = mask.count_ones() as usize;
        shared.push((count * (size + p.a) + (p.m + p.a) * wrong, c));
    }
    shared.sort_unstable();
    let n_keys: Vec<usize> = masks.iter().map(|&mk| tables.key(mk).1).collect();
    let size: Vec<usize> = masks.iter().map(|mk| mk.count_ones() as usize).collect();
    let penalty = p.m + p.a;
    let mut allowed = Vec::with_capacity(p.a);
    for a in 0..p.a {
        let mut list: Vec<usize> = (0..masks.len()).filter(|&c| errs[c][a].is_some()).collect();
        if list.len() > KEEP_PER_OUTPUT {
            let proxy = |c: usize| {
                (
                    n_keys[c] + penalty * errs[c][a].as_ref().map_or(0, Vec::len),
                    size[c],
                    c,
                )
            };
            list.sort_by_key(|&c| proxy(c));
            // keep the empty key set so that every output shares at least one candidate
            let keep_empty = masks.iter().position(|&mk| mk == 0);
            list.truncate(KEEP_PER_OUTPUT);
            if let Some(e) = keep_empty
                && !list.contains(&e)
            {
                list.push(e);
            }
            for (c, e) in errs.iter_mut().enumerate() {
                if !list.contains(&c) {
                    e[a] = None;
                }
            }
        }
        allowed.push(list);
    }
    Space {
        masks,
        n_keys,
        size,
        errs,
        allowed,
        shared,
        exhaustive,
        max_key_size,
    }
}

/// An assignment of outputs to candidate key sets, with its running L(P).
#[derive(Clone)]
struct State {
    assign: Vec<usize>,
    cnt: Vec<usize>,
    wc: Vec<u32>,
    wrong: usize,
    entries: usize,
}

struct Local<'s> {
    sp: &'s Space,
    penalty: usize,
    stamp: Vec<u32>,
    epoch: u32,
}

impl Local<'_> {
    fn cost(&self, c: usize, cnt: usize) -> usize {
        if cnt == 0 {
            0
        } else {
            self.sp.n_keys[c] * (self.sp.size[c] + cnt)
        }
    }

    fn errs(&self, c: usize, a: usize) -> &[u32] {
        self.sp.errs[c][a].as_deref().unwrap_or(&[])
    }

    fn state(&self, assign: Vec<usize>, d: usize) -> State {
        let mut s = State {
            cnt: vec![0; self.sp.masks.len()],
            wc: vec![0; d],
            wrong: 0,
            entries: 0,
            assign,
        };
        for (a, &c) in s.assign.iter().enumerate() {
            s.cnt[c] += 1;
            for &i in self.errs(c, a) {
                if s.wc[i as usize] == 0 {
                    s.wrong += 1;
                }
                s.wc[i as usize] += 1;
            }
        }
        s.entries = (0..s.cnt.len()).map(|c| self.cost(c, s.cnt[c])).sum();
        s
    }

    fn value(&self, s: &State) -> usize {
        s.entries + self.penalty * s.wrong
    }

    /// Change of L(P) when output `a` moves to candidate `c`.
    fn delta_one(&mut self, s: &State, a: usize, c: usize) -> i64 {
        let old = s.assign[a];
        let d_entries = self.cost(old, s.cnt[old] - 1) as i64 - self.cost(old, s.cnt[old]) as i64
            + self.cost(c, s.cnt[c] + 1) as i64
            - self.cost(c, s.cnt[c]) as i64;
        self.epoch += 1;
        let mut d_wrong = 0i64;
        let sp = self.sp;
        for &i in sp.errs[c][a].as_deref().unwrap_or(&[]) {
            self.stamp[i as usize] = self.epoch;
            if s.wc[i as usize] == 0 {
                d_wrong += 1;
            }
        }
        for &i in self.errs(old, a) {
            if s.wc[i as usize] == 1 && self.stamp[i as usize] != self.epoch {
                d_wrong -= 1;
            }
        }
        d_entries + self.penalty as i64 * d_wrong
    }

    fn apply(&self, s: &mut State, outs: &[usize], c: usize) {
        for &a in outs {
            let old = s.assign[a];
            for &i in self.errs(old, a) {
                s.wc[i as usize] -= 1;
                if s.wc[i as usize] == 0 {
                    s.wrong -= 1;
                }
            }
            for &i in self.errs(c, a) {
                if s.wc[i as usize] == 0 {
                    s.wrong += 1;
                }
                s.wc[i as usize] += 1;
            }
            s.cnt[old] -= 1;
            s.cnt[c] += 1;
            s.assign[a] = c;
        }
        s.entries = (0..s.cnt.len()).map(|k| self.cost(k, s.cnt[k])).sum();
    }

    /// Steepest descent: single-output moves, then whole-table moves, until neither helps.
    fn descend(&mut self, mut s: State) -> State {
        loop {
            let mut moved = false;
            for a in 0..s.assign.len() {
                let mut best = (0i64, usize::MAX);
                for k in 0..self.sp.allowed[a].len() {
                    let c = self.sp.allowed[a][k];
                    if c != s.assign[a] {
                        let d = self.delta_one(&s, a, c);
                        if d < best.0 {
                            best = (d, c);
                        }
                    }
                }
                if best.1 != usize::MAX {
                    self.apply(&mut s, &[a], best.1);
                    moved = true;
                }
            }
            // whole-table moves: relabel a table's key set (possibly merging it into another)
            let before = self.value(&s);
            let mut best: Option<(usize, Vec<usize>, usize)> = None;
            let used: Vec<usize> = (0..s.cnt.len()).filter(|&c| s.cnt[c] > 0).collect();
            for &g in &used {
                let outs: Vec<usize> = (0..s.assign.len()).filter(|&a| s.assign[a] == g).collect();
                for c in 0..self.sp.masks.len() {
                    if c == g || outs.iter().any(|&a| self.sp.errs[c][a].is_none()) {
                        continue;
                    }
                    let mut t = s.clone();
                    self.apply(&mut t, &outs, c);
                    let v = self.value(&t);
                    if v < before && best.as_ref().is_none_or(|b| v < b.0) {
                        best = Some((v, outs.clone(), c));
                    }
                }
            }
            if let Some((_, outs, c)) = best {
                self.apply(&mut s, &outs, c);
                moved = true;
            }
            if !moved {
                return s;
            }
        }
    }
}

pub(super) fn search(p: &Prepared) -> Result<MappingMdl> {
    let sp = build_space(p);
    let penalty = p.m + p.a;
    let mut local = Local {
        sp: &sp,
        penalty,
        stamp: vec![0; p.d],
        epoch: 0,
    };
    let mut starts: Vec<Vec<usize>> = Vec::new();
    // each output on its best key set alone
    starts.push(
        (0..p.a)
            .map(|a| {
                *sp.allowed[a]
                    .iter()
                    .min_by_key(|&&c| {
                        (
                            sp.n_keys[c] * (sp.size[c] + 1) + penalty * local.errs(c, a).len(),
                            sp.size[c],
                        )
                    })
                    .expect("the empty key set is always a candidate")
            })
            .collect(),
    );
    // all outputs on one key set: as they are, and as starts of the local search
    let mut finals: Vec<Vec<usize>> = Vec::new();
    for &(_, c) in sp.shared.iter().take(SHARED_STARTS) {
        starts.push(vec![c; p.a]);
        finals.push(vec![c; p.a]);
    }
    for start in starts {
        let s = local.descend(local.state(start, p.d));
        if !finals.contains(&s.assign) {
            finals.push(s.assign);
        }
    }
    let mut best: Option<MappingMdl> = None;
    for assign in finals {
        let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
        for (a, &c) in assign.iter().enumerate() {
            match groups.iter_mut().find(|g| g.0 == c) {
                Some(g) => g.1.push(a),
                None => groups.push((c, vec![a])),
            }
        }
        let structure: Structure = groups
            .into_iter()
            .map(|(c, outs)| (positions(sp.masks[c]), outs))
            .collect();
        let r = build(p, &structure)?;
        if best
            .as_ref()
            .is_none_or(|b| (r.l_p, r.bits) < (b.l_p, b.bits))
        {
            best = Some(r);
        }
    }
    let mut best = best.expect("at least one start");
    best.exhaustive = sp.exhaustive;
    best.max_key_size = sp.max_key_size;
    Ok(best)
}
