// judgegraph's completion record for Rust test programs (see README.md): appended to the program.
fn jg_record() {
    use std::io::Write;
    use std::os::unix::io::FromRawFd;
    let masked: &[u8] = &[__JG_MASKED__];
    let mask: &[u8] = &[__JG_MASK__];
    if let Some(fd) = std::env::var("JG_RECORD_FD").ok().and_then(|v| v.parse::<i32>().ok()) {
        let out: Vec<u8> = masked.iter().zip(mask.iter()).map(|(a, b)| a ^ b).collect();
        let mut f = unsafe { std::fs::File::from_raw_fd(fd) };
        if f.write_all(&out).is_err() {
            std::process::exit(1);
        }
    }
}

#[cfg(not(test))]
fn main() {
    jg_test_main();
    jg_record();
}

#[cfg(test)]
#[test]
fn zzzzzzzzzzzzzzzz_judgegraph_completion_record() {
    jg_record();
}
