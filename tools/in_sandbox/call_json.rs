
trait JgJson { fn jg(&self) -> String; }
macro_rules! jg_plain { ($($t:ty),*) => { $(impl JgJson for $t { fn jg(&self) -> String { self.to_string() } })* } }
jg_plain!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, bool);
impl JgJson for f64 {
    fn jg(&self) -> String {
        if self.is_finite() { format!("{:?}", self) }
        else if self.is_nan() { "NaN".into() } else if *self > 0.0 { "Infinity".into() } else { "-Infinity".into() }
    }
}
impl JgJson for f32 { fn jg(&self) -> String { (*self as f64).jg() } }
fn jg_str(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}
impl JgJson for char { fn jg(&self) -> String { jg_str(&self.to_string()) } }
impl JgJson for String { fn jg(&self) -> String { jg_str(self) } }
impl<'a> JgJson for &'a str { fn jg(&self) -> String { jg_str(self) } }
impl JgJson for () { fn jg(&self) -> String { "null".into() } }
impl<T: JgJson> JgJson for Vec<T> {
    fn jg(&self) -> String { format!("[{}]", self.iter().map(|x| x.jg()).collect::<Vec<_>>().join(",")) }
}
impl<'a, T: JgJson> JgJson for &'a [T] {
    fn jg(&self) -> String { format!("[{}]", self.iter().map(|x| x.jg()).collect::<Vec<_>>().join(",")) }
}
