//! Embeds every `detectors/*.yaml` and `adapters/*.yaml` file in the binary,
//! so that adding a built-in detector or a Claude-like agent is adding a file.

use std::env;
use std::fs;
use std::path::Path;

fn main() {
    let out = env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let mut code = String::new();
    for dir in ["detectors", "adapters"] {
        println!("cargo:rerun-if-changed={dir}");
        let mut files: Vec<_> = fs::read_dir(dir)
            .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
            .unwrap_or_default();
        files.retain(|p| p.extension().is_some_and(|e| e == "yaml"));
        files.sort();
        code.push_str(&format!(
            "/// Built-in `{dir}/*.yaml` files: (file stem, contents).\n"
        ));
        code.push_str(&format!(
            "pub const {}: &[(&str, &str)] = &[\n",
            dir.to_uppercase()
        ));
        for path in files {
            println!("cargo:rerun-if-changed={}", path.display());
            let stem = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default();
            let abs = Path::new(&env::var("CARGO_MANIFEST_DIR").unwrap_or_default()).join(&path);
            code.push_str(&format!(
                "    ({stem:?}, include_str!({:?})),\n",
                abs.display().to_string()
            ));
        }
        code.push_str("];\n");
    }
    println!("cargo:rerun-if-changed=config.yaml");
    fs::write(Path::new(&out).join("builtin.rs"), code).expect("write builtin.rs");
}
