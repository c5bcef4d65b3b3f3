//! The reference parser scores multi-megabyte answers in linear time (it used to take 60 s
//! for 2 MB: a backwards scan per line for the parent, a regex per stored name per line, and
//! a linear search per dict key).

use std::time::Instant;

use kcomp::programs::mapping_table::reference::calculate_estimate;

fn big_answer(target_bytes: usize) -> String {
    let mut code = String::from("import sys\ns = sys.stdin.read().split()\ngrid = {\n");
    let mut i = 0;
    while code.len() < target_bytes / 3 {
        code += &format!("    'A{i}': '*..*',\n");
        i += 1;
    }
    code += "}\n";
    let mut j = 0;
    while code.len() < 2 * target_bytes / 3 {
        code += &format!("v{j} = 'C' if s[0] == 'A' else 'D'\n");
        j += 1;
    }
    let mut k = 0;
    while code.len() < target_bytes {
        code += &format!(
            "if s[1] == 'C{k}':\n    print('*.*.' + v{})\nelse:\n    print('....')\n",
            k % j.max(1)
        );
        k += 1;
    }
    code
}

#[test]
fn a_4mb_answer_is_scored_in_seconds() {
    // 200 kB is parsed as Python (dicts and assignments count); above the parser's 256 KiB
    // cap only the line-based block part runs, which is where the quadratic scans were.
    for size in [200_000, 4_000_000] {
        let code = big_answer(size);
        let t = Instant::now();
        let counts = calculate_estimate(&code);
        let secs = t.elapsed().as_secs_f64();
        eprintln!("{} bytes: {counts:?} in {secs:.2} s", code.len());
        assert!(counts.m_block > 0 && counts.n_block > 0);
        if size < kcomp::programs::mapping_table::MAX_CODE_BYTES {
            assert!(counts.n_dict > 0 && counts.m_dict > 0, "{counts:?}");
        }
        assert!(secs < 10.0, "{} bytes took {secs:.1} s", code.len());
    }
}
