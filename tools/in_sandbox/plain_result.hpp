/* judgegraph: which results a C++ test may compare (see README.md). Placed after the candidate's code, before the
   test, under a name of the build's (`__JG_KEY__`) the candidate cannot know. A result is plain when every type in
   it is the language's or the standard library's: arithmetic, pointers, strings and the standard containers, pairs,
   tuples and optionals of plain types. A type the candidate defines brings its own `==` (one that says equal to
   anything), its own conversions and its own `!`: a test comparing such a result would compare through the
   candidate's code, so the build refuses it. */
#include <cstddef>
#include <type_traits>

/* No library header is included here (one could declare a name the candidate's code also declares, `y1` in
   <cmath>): a standard template is plain only where its header was included before, which every result of that
   type needs. Each is named by libstdc++'s guard of the header that declares it. */
namespace __JG_KEY___plain {
template <class T, class = void> struct plain : std::false_type {};
template <class... T> constexpr bool all = (plain<std::remove_cv_t<T>>::value && ...);
template <class T>
struct plain<T, std::enable_if_t<std::is_arithmetic_v<T> || std::is_pointer_v<T> || std::is_null_pointer_v<T> ||
                                 std::is_void_v<T>>> : std::true_type {};
#define JG_PLAIN_TEMPLATE(name) \
    template <class... A>       \
    struct plain<std::name<A...>> : std::bool_constant<all<A...>> {};
#ifdef _STRINGFWD_H
JG_PLAIN_TEMPLATE(basic_string)
JG_PLAIN_TEMPLATE(char_traits)
#endif
#ifdef _GLIBCXX_STRING_VIEW
JG_PLAIN_TEMPLATE(basic_string_view)
#endif
#ifdef _MEMORYFWD_H
JG_PLAIN_TEMPLATE(allocator)
#endif
#ifdef _STL_FUNCTION_H
JG_PLAIN_TEMPLATE(less)
JG_PLAIN_TEMPLATE(greater)
JG_PLAIN_TEMPLATE(equal_to)
#endif
#ifdef _FUNCTIONAL_HASH_H
JG_PLAIN_TEMPLATE(hash)
#endif
#ifdef _STL_PAIR_H
JG_PLAIN_TEMPLATE(pair)
#endif
#ifdef _GLIBCXX_TUPLE
JG_PLAIN_TEMPLATE(tuple)
#endif
#ifdef _GLIBCXX_OPTIONAL
JG_PLAIN_TEMPLATE(optional)
#endif
#ifdef _GLIBCXX_COMPLEX
JG_PLAIN_TEMPLATE(complex)
#endif
#ifdef _STL_VECTOR_H
JG_PLAIN_TEMPLATE(vector)
#endif
#ifdef _STL_DEQUE_H
JG_PLAIN_TEMPLATE(deque)
#endif
#ifdef _STL_LIST_H
JG_PLAIN_TEMPLATE(list)
#endif
#ifdef _FORWARD_LIST_H
JG_PLAIN_TEMPLATE(forward_list)
#endif
#ifdef _STL_SET_H
JG_PLAIN_TEMPLATE(set)
#endif
#ifdef _STL_MULTISET_H
JG_PLAIN_TEMPLATE(multiset)
#endif
#ifdef _STL_MAP_H
JG_PLAIN_TEMPLATE(map)
#endif
#ifdef _STL_MULTIMAP_H
JG_PLAIN_TEMPLATE(multimap)
#endif
#ifdef _UNORDERED_SET_H
JG_PLAIN_TEMPLATE(unordered_set)
JG_PLAIN_TEMPLATE(unordered_multiset)
#endif
#ifdef _UNORDERED_MAP_H
JG_PLAIN_TEMPLATE(unordered_map)
JG_PLAIN_TEMPLATE(unordered_multimap)
#endif
#undef JG_PLAIN_TEMPLATE
#ifdef _GLIBCXX_ARRAY
template <class T, std::size_t N> struct plain<std::array<T, N>> : std::bool_constant<all<T>> {};
#endif
#ifdef _GLIBCXX_BITSET
template <std::size_t N> struct plain<std::bitset<N>> : std::true_type {};
#endif

template <class R> constexpr bool plain_result = plain<std::remove_cv_t<std::remove_reference_t<R>>>::value;

/* A function's, a function pointer's or a member function's result. */
template <class F> struct result_of_function;
template <class R, class... A> struct result_of_function<R (*)(A...)> { using type = R; };
template <class R, class... A> struct result_of_function<R (*)(A...) noexcept> { using type = R; };
template <class R, class C, class... A> struct result_of_function<R (C::*)(A...)> { using type = R; };
template <class R, class C, class... A> struct result_of_function<R (C::*)(A...) const> { using type = R; };
template <class R, class C, class... A> struct result_of_function<R (C::*)(A...) noexcept> { using type = R; };
template <class R, class C, class... A> struct result_of_function<R (C::*)(A...) const noexcept> { using type = R; };
template <class R, class C, class... A> struct result_of_function<R (C::*)(A...) &> { using type = R; };
template <class R, class C, class... A> struct result_of_function<R (C::*)(A...) const&> { using type = R; };
template <class R, class C, class... A> struct result_of_function<R (C::*)(A...) &&> { using type = R; };
template <class F> constexpr bool plain_function = plain_result<typename result_of_function<F>::type>;

/* What a name the test uses bare calls: a function, a pointer to one, or an object with one call operator (a
   lambda, a functor); anything else (a generic lambda) is not plain. */
template <class F, class = void> struct callable : std::false_type {};
template <class R, class... A> struct callable<R(A...)> : std::bool_constant<plain_result<R>> {};
template <class R, class... A> struct callable<R(A...) noexcept> : std::bool_constant<plain_result<R>> {};
template <class F> struct callable<F*> : callable<F> {};
template <class F>
struct callable<F, std::enable_if_t<std::is_class_v<F>, std::void_t<decltype(&F::operator())>>>
    : std::bool_constant<plain_function<decltype(&F::operator())>> {};
template <class F> constexpr bool plain_callable = callable<std::remove_cv_t<std::remove_reference_t<F>>>::value;

/* `(guard{}, f(args))` is `f(args)`, its result checked: a test's direct call is written so (a void result takes
   the built-in comma and needs no check). */
struct guard {};
template <class T> T operator,(guard, T&& value) {
    static_assert(plain_result<T>, "judgegraph: the answer returns a type of its own, whose comparisons the test "
                                   "would make through the answer's code");
    return static_cast<T&&>(value);
}

}  // namespace __JG_KEY___plain
