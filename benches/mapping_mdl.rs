//! `mapping_mdl` on a 4,096-row string-to-grid dataset (6 positions x 4 letters, 6 x 6 grid).

use criterion::{Criterion, criterion_group, criterion_main};
use kcomp::datasets::string_grid::dataset::GridSource;
use kcomp::datasets::string_grid::{GridSpec, Holistic, Setting};
use kcomp::estimators::mapping_mdl::fit;
use std::hint::black_box;
use std::time::Instant;

/// CPU seconds of this process (the machine is shared: wall time overstates).
fn cpu_seconds() -> f64 {
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes into the struct we own.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 * 1e-6;
    t(u.ru_utime) + t(u.ru_stime)
}

fn bench(c: &mut Criterion) {
    let spec = GridSpec {
        positions: 6,
        letters: 4,
        side: 6,
        samples: 4096,
        complementary: false,
    };
    for (setting, holistic) in [
        (Setting::Random, 0.0),
        (Setting::Random, 0.1),
        (Setting::Holistic, 1.0),
    ] {
        let hol = Holistic {
            fraction: holistic,
            seed: 1,
        };
        let g = spec
            .generate_programs(setting, 1, 0, hol)
            .expect("valid shape")
            .swap_remove(0);
        let src = GridSource {
            setting,
            seed: 0,
            record: 0,
            holistic: hol,
        };
        let d = g.to_dataset(&spec, &src).expect("dataset");
        let (wall, cpu) = (Instant::now(), cpu_seconds());
        let r = fit(&d.w, &d.z).expect("fit");
        let (wall, cpu) = (wall.elapsed().as_secs_f64(), cpu_seconds() - cpu);
        println!(
            "{} h={holistic}: L(P+) {} E {} L(P) {} bits {:.1} tables {} exhaustive {} \
             (one fit: {wall:.3} s wall, {cpu:.3} s CPU)",
            setting.name(),
            r.l_p_plus,
            r.errors,
            r.l_p,
            r.bits,
            r.tables.len(),
            r.exhaustive
        );
        c.bench_function(
            &format!("mapping_mdl/fit_4096_6x4_{}_h{holistic}", setting.name()),
            |b| b.iter(|| black_box(fit(black_box(&d.w), black_box(&d.z)).expect("fit"))),
        );
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
