//! Fuzz target: `tether server` never panics and never stops on what a client
//! sends. An input whose first byte is even is the raw byte stream (framing
//! included); otherwise the rest is split at newlines into message bodies, framed,
//! after an `initialize` of a small chart in a temporary folder (`$R` in a body
//! stands for that folder's URI, so opened documents land in the chart), and
//! followed by `shutdown` and `exit`. A panic anywhere (the worker's last-resort
//! guard included) aborts under libFuzzer.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

fn frame(out: &mut Vec<u8>, body: &[u8]) {
    out.extend_from_slice(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
    out.extend_from_slice(body);
}

/// A chart with a template and values, made once.
fn root() -> &'static str {
    static ROOT: OnceLock<(tempfile::TempDir, String)> = OnceLock::new();
    &ROOT
        .get_or_init(|| {
            let dir = tempfile::tempdir().expect("a temporary folder");
            let chart = dir.path().join("app");
            std::fs::create_dir_all(chart.join("templates")).expect("the chart folder");
            std::fs::write(chart.join("Chart.yaml"), "apiVersion: v2\nname: app\nversion: 0.1.0\n")
                .expect("Chart.yaml");
            std::fs::write(chart.join("values.yaml"), "# Pods.\nreplicas: 1\n").expect("values");
            std::fs::write(
                chart.join("templates/x.yaml"),
                "spec:\n  replicas: {{ .Values.replicas }}\n",
            )
            .expect("a template");
            let uri = format!("file://{}", dir.path().display());
            (dir, uri)
        })
        .1
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let input = if mode % 2 == 0 {
        rest.to_vec()
    } else {
        let root = root();
        let mut input = Vec::new();
        let initialize = format!(
            r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"capabilities":{{}},"rootUri":"{root}"}}}}"#
        );
        frame(&mut input, initialize.as_bytes());
        frame(&mut input, br#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#);
        for body in rest.split(|&byte| byte == b'\n') {
            let text = String::from_utf8_lossy(body).replace("$R", root);
            frame(&mut input, text.as_bytes());
        }
        frame(&mut input, br#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#);
        frame(&mut input, br#"{"jsonrpc":"2.0","method":"exit"}"#);
        input
    };
    helm_tether::internals::serve_bytes(input).expect("serving from memory never fails");
});
