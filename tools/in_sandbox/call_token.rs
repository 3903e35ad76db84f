fn __JG_KEY___token() -> String {
    let masked: &[u8] = &[__JG_MASKED__];
    let mask: &[u8] = &[__JG_MASK__];
    masked.iter().zip(mask).map(|(m, k)| (m ^ k) as char).collect()
}