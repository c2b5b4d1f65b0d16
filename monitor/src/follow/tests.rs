use super::*;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("multitrace-follow-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn read_all(f: &mut Follower) -> Vec<(String, String)> {
    let mut out = Vec::new();
    f.poll(1 << 20, &mut out);
    out.iter()
        .filter_map(|b| b.as_ref().ok())
        .flat_map(|b| {
            b.iter()
                .map(move |(_, t)| (b.source().to_string(), t.to_string()))
        })
        .collect()
}

/// Waits for every quiet source's next look ([`QUIET_MAX`]).
fn settle() {
    std::thread::sleep(QUIET_MAX + std::time::Duration::from_millis(5));
}

/// Following, a file that stays quiet is looked at after waits that double, up to
/// [`QUIET_MAX`] and never beyond, and at once again after it gave something.
#[test]
fn a_quiet_file_waits_longer_between_looks_up_to_the_bound() {
    use std::time::{Duration, Instant};
    let mut x = Followed::new(Position::default());
    let now = Instant::now();
    assert!(x.due(now));
    let mut waits = Vec::new();
    for _ in 0..10 {
        x.looked(false, now);
        waits.push(x.next_look_after(now));
    }
    let ms: Vec<u128> = waits.iter().map(Duration::as_millis).collect();
    assert_eq!(ms, [1, 2, 4, 8, 16, 32, 64, 100, 100, 100]);
    assert!(!x.due(now + Duration::from_millis(99)) && x.due(now + QUIET_MAX));
    x.looked(true, now);
    assert!(x.due(now));
}

/// A line written to a followed file after a long quiet is handed out by a poll at most
/// [`QUIET_MAX`] after it was written; the next one, while the file is busy, at once.
#[test]
fn a_line_after_a_quiet_comes_within_the_bound() {
    use std::io::Write;
    use std::time::{Duration, Instant};
    let d = scratch("quiet");
    let p = d.join("events.jsonl");
    std::fs::write(&p, "").unwrap();
    let mut f = Follower::new(std::slice::from_ref(&p), true, &[]);
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(300) {
        assert!(read_all(&mut f).is_empty());
    }
    let mut w = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
    w.write_all(b"one\n").unwrap();
    let written = Instant::now();
    let got = loop {
        let got = read_all(&mut f);
        if !got.is_empty() {
            break got;
        }
        assert!(written.elapsed() < QUIET_MAX + Duration::from_millis(50));
    };
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].1, "one");
    w.write_all(b"two\n").unwrap();
    let got = read_all(&mut f);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].1, "two");
    let _ = std::fs::remove_dir_all(&d);
}

/// A followed directory: hidden and temporary names are not read (an atomic write's
/// file counts once, under its final name), nor are the paths excluded (the monitor's
/// output and state in it).
#[test]
fn a_directory_leaves_out_temporary_names_and_the_monitors_own_files() {
    let d = scratch("dir");
    for name in ["a.jsonl", "b.jsonl.tmp", ".b.jsonl", "c~", "out.jsonl"] {
        std::fs::write(d.join(name), format!("{name}\n")).unwrap();
    }
    std::fs::create_dir_all(d.join("state")).unwrap();
    std::fs::write(d.join("state").join("checkpoint"), "x\n").unwrap();
    let out = d.join("out.jsonl");
    let state = d.join("state");
    let mut f = Follower::new(std::slice::from_ref(&d), true, &[])
        .excluding(&[out.as_path(), state.as_path()]);
    let got: Vec<String> = read_all(&mut f).into_iter().map(|(_, t)| t).collect();
    assert_eq!(got, ["a.jsonl"]);
    // The temporary file renamed to its final name: read once, then.
    std::fs::rename(d.join("b.jsonl.tmp"), d.join("b.jsonl")).unwrap();
    settle();
    let got: Vec<String> = read_all(&mut f).into_iter().map(|(_, t)| t).collect();
    assert_eq!(got, ["b.jsonl.tmp"]);
    let _ = std::fs::remove_dir_all(&d);
}

/// A restart whose file was replaced by another one, of other first bytes, at least as
/// long (so neither a new inode nor a shorter length need tell): read from its start;
/// the same file named another way goes on from its position.
#[test]
fn a_file_replaced_under_its_name_is_read_from_its_start() {
    let d = scratch("head");
    let p = d.join("events.jsonl");
    std::fs::write(&p, "one\ntwo\n").unwrap();
    let mut f = Follower::new(std::slice::from_ref(&p), false, &[]);
    assert_eq!(read_all(&mut f).len(), 2);
    let mut pos = f.positions();
    // Written again in place (as a copy-truncate then growth may leave it).
    std::fs::write(&p, "ONE\nTWO\nthree\n").unwrap();
    pos[0].id = 0;
    let mut f = Follower::new(std::slice::from_ref(&p), false, &pos);
    let got: Vec<String> = read_all(&mut f).into_iter().map(|(_, t)| t).collect();
    assert_eq!(got, ["ONE", "TWO", "three"]);
    // Named another way (through `..`): the same source, from its position.
    let pos = f.positions();
    std::fs::write(&p, "ONE\nTWO\nthree\nfour\n").unwrap();
    let other = d
        .join("..")
        .join(d.file_name().unwrap())
        .join("events.jsonl");
    let mut f = Follower::new(&[other], false, &pos);
    let got: Vec<String> = read_all(&mut f).into_iter().map(|(_, t)| t).collect();
    assert_eq!(got, ["four"]);
    let _ = std::fs::remove_dir_all(&d);
}

/// A followed path that is a FIFO: never opened (its open() would block), said once,
/// and read when it is a regular file again.
#[cfg(unix)]
#[test]
fn a_fifo_is_reported_once_and_not_opened() {
    let d = scratch("fifo");
    let p = d.join("events.jsonl");
    let spawning = crate::tests::SPAWNING.lock();
    let made = std::process::Command::new("mkfifo").arg(&p).status();
    drop(spawning);
    if !made.is_ok_and(|s| s.success()) {
        return;
    }
    let mut f = Follower::new(std::slice::from_ref(&p), true, &[]);
    let mut out = Vec::new();
    f.poll(1 << 20, &mut out);
    assert_eq!(out.len(), 1);
    assert!(out[0]
        .as_ref()
        .is_err_and(|e| e.contains("not a regular file")));
    out.clear();
    f.poll(1 << 20, &mut out);
    assert!(out.is_empty());
    std::fs::remove_file(&p).unwrap();
    std::fs::write(&p, "one\n").unwrap();
    settle();
    let got: Vec<String> = read_all(&mut f).into_iter().map(|(_, t)| t).collect();
    assert_eq!(got, ["one"]);
    let _ = std::fs::remove_dir_all(&d);
}
