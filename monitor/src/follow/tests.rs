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

fn texts(f: &mut Follower) -> Vec<String> {
    read_all(f).into_iter().map(|(_, t)| t).collect()
}

fn append(p: &Path, text: &str) {
    use std::io::Write;
    let mut w = std::fs::OpenOptions::new().append(true).open(p).unwrap();
    w.write_all(text.as_bytes()).unwrap();
}

/// Renamed while its writer still writes it: the old file's later lines are read (before the
/// new file's), named by the followed name and numbered on; the checkpoint keeps its place
/// while it is read; it is left after [`DRAIN_QUIET`] without a byte.
#[test]
fn a_file_renamed_while_written_is_read_to_its_end() {
    let d = scratch("drain");
    let p = d.join("events.jsonl");
    std::fs::write(&p, "one\ntwo\n").unwrap();
    let mut f = Follower::new(std::slice::from_ref(&p), true, &[]);
    assert_eq!(texts(&mut f), ["one", "two"]);
    // The writer's handle stays on the renamed file.
    let mut w = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
    std::fs::rename(&p, d.join("events.jsonl.1")).unwrap();
    std::fs::write(&p, "new1\n").unwrap();
    settle();
    assert_eq!(texts(&mut f), ["new1"]);
    use std::io::Write;
    w.write_all(b"three\nfour").unwrap();
    settle();
    let got = read_all(&mut f);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].1, "three");
    let pos = f.positions();
    let old = pos[0].rotated.as_ref().expect("the rotated file's place");
    assert_eq!((old.line, pos[0].line), (3, 1));
    // Quiet for DRAIN_QUIET: left, its last line complete then.
    std::thread::sleep(DRAIN_QUIET + QUIET_MAX);
    assert_eq!(texts(&mut f), ["four"]);
    assert!(f.positions()[0].rotated.is_none());
    w.write_all(b"\nlost\n").unwrap();
    settle();
    assert!(texts(&mut f).is_empty());
    let _ = std::fs::remove_dir_all(&d);
}

/// Rotated while the monitor was down: renamed (`NAME.1`), copied then truncated
/// (copytruncate), or compressed (the old file gone): the old file's lines after the position
/// are read first, then the new file from its start; a file that cannot be found is said.
#[test]
fn a_file_rotated_while_not_read_is_read_on_from_where_it_went() {
    for how in ["rename", "copytruncate", "compressed"] {
        let d = scratch(&format!("down-{how}"));
        let p = d.join("events.jsonl");
        std::fs::write(&p, "one\ntwo\n").unwrap();
        let mut f = Follower::new(std::slice::from_ref(&p), false, &[]);
        assert_eq!(texts(&mut f), ["one", "two"]);
        let pos = f.positions();
        append(&p, "three\n");
        let old = d.join("events.jsonl.1");
        match how {
            "rename" => std::fs::rename(&p, &old).unwrap(),
            "copytruncate" => {
                std::fs::copy(&p, &old).unwrap();
            }
            _ => std::fs::remove_file(&p).unwrap(),
        }
        std::fs::write(&p, "new1\nnew2\n").unwrap();
        let mut f = Follower::new(std::slice::from_ref(&p), false, &pos);
        let mut out = Vec::new();
        f.poll(1 << 20, &mut out);
        let errors: Vec<&String> = out.iter().filter_map(|l| l.as_ref().err()).collect();
        let got: Vec<(u32, String)> = out
            .iter()
            .filter_map(|l| l.as_ref().ok())
            .flat_map(|b| b.iter().map(|(n, t)| (n, t.to_string())))
            .collect();
        let new = [(1, "new1".to_string()), (2, "new2".to_string())];
        if how == "compressed" {
            assert_eq!(got, new, "{how}");
            assert_eq!(errors.len(), 1, "{how}");
            assert!(errors[0].contains("to line 2 (byte 8)"), "{}", errors[0]);
        } else {
            let mut want = vec![(3, "three".to_string())];
            want.extend(new);
            assert_eq!(got, want, "{how}");
            assert!(errors.is_empty(), "{how}: {errors:?}");
        }
        let _ = std::fs::remove_dir_all(&d);
    }
}

/// A followed directory whose file is rotated in it (`a.jsonl` renamed `a.jsonl.1`, a new
/// `a.jsonl`): the renamed file is read on, not read again from its start under its new name,
/// nor when renamed again later.
#[test]
fn a_file_rotated_within_a_followed_directory_is_read_once() {
    let d = scratch("dir-rotate");
    let p = d.join("a.jsonl");
    std::fs::write(&p, "one\n").unwrap();
    let mut f = Follower::new(std::slice::from_ref(&d), true, &[]);
    assert_eq!(texts(&mut f), ["one"]);
    std::fs::rename(&p, d.join("a.jsonl.1")).unwrap();
    append(&d.join("a.jsonl.1"), "two\n");
    std::fs::write(&p, "new1\n").unwrap();
    settle();
    let mut got = texts(&mut f);
    settle();
    got.extend(texts(&mut f));
    assert_eq!(got, ["two", "new1"]);
    std::thread::sleep(DRAIN_QUIET + QUIET_MAX);
    assert!(texts(&mut f).is_empty());
    std::fs::rename(d.join("a.jsonl.1"), d.join("a.jsonl.2")).unwrap();
    settle();
    assert!(texts(&mut f).is_empty());
    let _ = std::fs::remove_dir_all(&d);
}
