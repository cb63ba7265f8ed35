//! Fuzz target: modelling arbitrary bytes, as a template and as a values file, never
//! panics ("parsing never fails", ARCHITECTURE.md).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = helm_tether::FileModel::from_bytes("templates/x.yaml", data.to_vec());
    let _ = helm_tether::FileModel::from_bytes("values.yaml", data.to_vec());
});
