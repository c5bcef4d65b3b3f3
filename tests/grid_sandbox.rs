//! Hostile programs: each is contained and gets a per-answer status. Timeouts are short
//! (1.5 s) to keep CI fast; one test checks the default 5 s configuration on a benign run.

use kcomp::programs::sandbox::{RunStatus, SandboxConfig, check_program, run_python};
use std::time::Duration;

fn cfg() -> SandboxConfig {
    SandboxConfig {
        timeout: Duration::from_millis(1500),
        ..SandboxConfig::default()
    }
}

fn run(code: &str) -> kcomp::programs::sandbox::RunOutput {
    run_python(code, "A C E G", &cfg()).expect("sandbox starts")
}

#[test]
fn default_config_runs_a_benign_program() {
    let c = SandboxConfig::default();
    assert_eq!(c.timeout, Duration::from_secs(5));
    let out = run_python("s = input()\nprint(s.lower())", "A C E G", &c).unwrap();
    assert_eq!(out.status, RunStatus::Exited);
    assert_eq!(out.stdout, "a c e g\n");
    assert_eq!(out.exit_code, Some(0));
}

#[test]
fn infinite_loop_times_out() {
    let out = run("while True:\n    pass\n");
    assert_eq!(out.status, RunStatus::Timeout);
    assert!(out.elapsed < Duration::from_secs(4), "{:?}", out.elapsed);
}

#[test]
fn sleep_times_out_and_is_killed() {
    let out = run("import time\nprint('start', flush=True)\ntime.sleep(100)\nprint('ESCAPED')");
    assert_eq!(out.status, RunStatus::Timeout);
    assert_eq!(out.stdout, "start\n");
}

#[test]
fn ten_gigabyte_allocation_fails_fast() {
    let out = run("x = bytearray(10 * 1024 ** 3)\nprint('ESCAPED')");
    assert_eq!(out.status, RunStatus::Exited);
    assert!(!out.stdout.contains("ESCAPED"));
    assert!(out.stderr.contains("MemoryError"), "{}", out.stderr);
}

#[test]
fn fork_loop_is_denied() {
    let out = run("import os\nwhile True:\n    os.fork()\n");
    assert_eq!(out.status, RunStatus::Exited);
    assert!(out.stderr.contains("PermissionError"), "{}", out.stderr);
    let out = run("import subprocess\nsubprocess.run(['sh', '-c', 'echo ESCAPED'])");
    assert!(!out.stdout.contains("ESCAPED"));
    let out = run("import os\nos.system('echo ESCAPED')");
    assert!(!out.stdout.contains("ESCAPED"));
    // Killing its parent (kcomp) is denied too.
    let out = run("import os\nos.kill(os.getppid(), 9)\nprint('ESCAPED')");
    assert!(out.stderr.contains("PermissionError"), "{}", out.stderr);
}

#[test]
fn hundred_megabytes_of_output_are_capped() {
    let out = run("import sys\nfor _ in range(100):\n    sys.stdout.write('*' * 1_000_000)\n");
    assert_eq!(out.status, RunStatus::OutputLimit);
    assert!(out.stdout.len() <= 1 << 20);
    assert!(out.elapsed < Duration::from_secs(4));
}

#[test]
fn invalid_utf8_output_is_decoded_lossily() {
    let out = run("import sys\nsys.stdout.buffer.write(b'\\xff\\xfe*.')\n");
    assert_eq!(out.status, RunStatus::Exited);
    assert_eq!(out.stdout, "\u{fffd}\u{fffd}*.");
}

#[test]
fn files_outside_the_directory_cannot_be_read() {
    let out = run(
        // Host files are not even in its view (FileNotFoundError); the view's root is not
        // listable (PermissionError).
        "try:\n    print(open('/etc/passwd').read()[:20], 'ESCAPED')\nexcept OSError:\n    print('denied')\n\
         import os\ntry:\n    print(os.listdir('/'), 'ESCAPED')\nexcept OSError:\n    print('denied')",
    );
    assert_eq!(out.stdout, "denied\ndenied\n", "{}", out.stderr);
    // Its own directory is fine.
    let out = run("open('x.txt', 'w').write('ok')\nprint(open('x.txt').read())");
    assert_eq!(out.stdout, "ok\n");
}

#[test]
fn files_outside_cannot_be_deleted_or_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim.txt");
    std::fs::write(&victim, "keep").unwrap();
    let p = victim.display();
    let code = format!(
        "import os, shutil\n\
         for f in (lambda: os.remove('{p}'), lambda: open('{p}', 'w').write('x'),\n\
                   lambda: shutil.rmtree('{d}'), lambda: os.rename('{p}', 'y')):\n\
         \x20   try:\n        f()\n        print('ESCAPED')\n    except OSError:\n        print('denied')\n",
        d = dir.path().display()
    );
    let out = run(&code);
    assert_eq!(
        out.stdout, "denied\ndenied\ndenied\ndenied\n",
        "{}",
        out.stderr
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
}

#[test]
fn network_access_is_denied() {
    let out = run(
        "import socket\ntry:\n    socket.create_connection(('1.1.1.1', 80), timeout=1)\n    print('ESCAPED')\n\
         except OSError:\n    print('denied')\n\
         try:\n    socket.getaddrinfo('example.com', 80)\n    print('ESCAPED')\nexcept OSError:\n    print('denied')",
    );
    assert_eq!(out.stdout, "denied\ndenied\n", "{}", out.stderr);
}

#[test]
fn batch_goes_on_with_per_sample_status() {
    // Loops forever on one input only; the other samples are judged normally.
    let code = "s = input()\nif s == 'B D F H':\n    while True: pass\nprint(s)";
    let inputs: Vec<String> = ["A C E G", "B D F H", "A D E G"].map(String::from).to_vec();
    let golds = vec!["A C E G".to_string(), "B D F H".into(), "wrong".into()];
    let res = check_program(code, &inputs, &golds, &cfg()).unwrap();
    assert_eq!(
        res.iter()
            .map(|r| (r.correct, r.status))
            .collect::<Vec<_>>(),
        vec![
            (true, RunStatus::Exited),
            (false, RunStatus::Timeout),
            (false, RunStatus::Exited)
        ]
    );
}
