// judgegraph: which results a Rust test may compare (see README.md). Appended after the candidate's code and the
// test, under a name of the build's (`__JG_KEY__`) the candidate cannot know, so it cannot implement the trait. A
// result is plain when every type in it is the language's or the standard library's (numbers, strings, vectors,
// options, maps, tuples), or a type of the candidate's whose comparisons are derived: a type with an `impl` of a
// trait of its own brings its own `==` (equal to anything), arithmetic and conversions, which a test comparing the
// result would run. Each tested function is passed as a function pointer whose result must be plain.
#[allow(dead_code)]
mod __JG_KEY___plain {
    pub trait Plain {}
    macro_rules! plain {
        ($($t:ty),*) => { $(impl Plain for $t {})* };
    }
    plain!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64, bool, char, (), String, str);
    plain!(std::cmp::Ordering);
    impl<T: Plain + ?Sized> Plain for &T {}
    impl<T: Plain + ?Sized> Plain for &mut T {}
    impl<T: Plain + ?Sized> Plain for Box<T> {}
    impl<T: Plain + ?Sized> Plain for std::rc::Rc<T> {}
    impl<T: Plain + ?Sized> Plain for std::sync::Arc<T> {}
    impl<T: Plain + ?Sized> Plain for std::cell::RefCell<T> {}
    impl<T: Plain> Plain for [T] {}
    impl<T: Plain, const N: usize> Plain for [T; N] {}
    impl<T: Plain> Plain for Vec<T> {}
    impl<T: Plain> Plain for std::collections::VecDeque<T> {}
    impl<T: Plain> Plain for std::collections::LinkedList<T> {}
    impl<T: Plain> Plain for Option<T> {}
    impl<T: Plain, E: Plain> Plain for Result<T, E> {}
    impl<K: Plain, V: Plain> Plain for std::collections::HashMap<K, V> {}
    impl<T: Plain> Plain for std::collections::HashSet<T> {}
    impl<K: Plain, V: Plain> Plain for std::collections::BTreeMap<K, V> {}
    impl<T: Plain> Plain for std::collections::BTreeSet<T> {}
    impl<A: Plain> Plain for (A,) {}
    impl<A: Plain, B: Plain> Plain for (A, B) {}
    impl<A: Plain, B: Plain, C: Plain> Plain for (A, B, C) {}
    impl<A: Plain, B: Plain, C: Plain, D: Plain> Plain for (A, B, C, D) {}
    impl<A: Plain, B: Plain, C: Plain, D: Plain, E: Plain> Plain for (A, B, C, D, E) {}
    pub fn returns0<R: Plain>(_: fn() -> R) {}
    pub fn returns1<A, R: Plain>(_: fn(A) -> R) {}
    pub fn returns2<A, B, R: Plain>(_: fn(A, B) -> R) {}
    pub fn returns3<A, B, C, R: Plain>(_: fn(A, B, C) -> R) {}
    pub fn returns4<A, B, C, D, R: Plain>(_: fn(A, B, C, D) -> R) {}
    pub fn returns5<A, B, C, D, E, R: Plain>(_: fn(A, B, C, D, E) -> R) {}
    pub fn returns6<A, B, C, D, E, F, R: Plain>(_: fn(A, B, C, D, E, F) -> R) {}
    pub fn returns7<A, B, C, D, E, F, G, R: Plain>(_: fn(A, B, C, D, E, F, G) -> R) {}
    pub fn returns8<A, B, C, D, E, F, G, H, R: Plain>(_: fn(A, B, C, D, E, F, G, H) -> R) {}
}
