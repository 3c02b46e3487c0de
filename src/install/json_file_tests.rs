//! Unit tests of `json_file`: strict parsing, comment refusal, style
//! detection and atomic writes.

use super::*;

#[test]
fn malformed_json_names_line_and_column() {
    let err = parse(Path::new("s.json"), "{\n  \"a\": 1,\n}\n").unwrap_err();
    match err {
        FileError::Malformed { line, .. } => assert_eq!(line, 3),
        other => panic!("{other}"),
    }
    assert!(matches!(
        parse(Path::new("s.json"), "[1]"),
        Err(FileError::NotAnObject { .. })
    ));
    assert!(parse(Path::new("s.json"), "  \n").unwrap().is_empty());
    let dup = parse(Path::new("s.json"), "{\"a\": {\"b\": 1,\n \"b\": 2}}")
        .unwrap_err()
        .to_string();
    assert!(
        dup.contains("s.json:2:") && dup.contains("\"b\" appears twice"),
        "{dup}"
    );
}

#[test]
fn comments_are_refused_but_slashes_in_strings_are_not() {
    let err = parse(Path::new("s.json"), "{\n  \"a\": 1 // why\n}").unwrap_err();
    assert!(
        matches!(
            err,
            FileError::Malformed {
                line: 2,
                column: 10,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(parse(
        Path::new("s.json"),
        "{\"url\": \"http://x/*y\", \"q\": \"\\\"//\"}"
    )
    .is_ok());
}

#[test]
fn style_is_detected_and_kept() {
    for text in [
        "{\n    \"a\": [\n        1\n    ]\n}\n",
        "{\n\t\"a\": 1\n}",
        "{\"a\":1}",
    ] {
        let map = parse(Path::new("x"), text).unwrap();
        assert_eq!(render(&map, &detect_style(text)), text);
    }
}

#[test]
fn atomic_write_keeps_permissions_and_follows_symlinks() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.json");
    fs::write(&real, "{}").unwrap();
    fs::set_permissions(&real, fs::Permissions::from_mode(0o600)).unwrap();
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink("real.json", &link).unwrap();
    let target = resolve(&link);
    write_atomic(&target, "{\"a\": 1}", None).unwrap();
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(fs::read_to_string(&real).unwrap(), "{\"a\": 1}");
    assert_eq!(
        fs::metadata(&real).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let leftovers: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains("guard-tmp"))
        .collect();
    assert!(leftovers.is_empty());
}
