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
    let got: Vec<String> = read_all(&mut f).into_iter().map(|(_, t)| t).collect();
    assert_eq!(got, ["one"]);
    let _ = std::fs::remove_dir_all(&d);
}
