
template <class T> static void jg_json(std::ostream& o, const T& v);
static void jg_string(std::ostream& o, const std::string& s) {
    o << '"';
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') o << '\\' << c;
        else if (c < 0x20) { char b[8]; std::snprintf(b, sizeof b, "\\u%04x", c); o << b; }
        else o << c;
    }
    o << '"';
}
template <class T> static void jg_json(std::ostream& o, const T& v) {
    if constexpr (std::is_same_v<T, bool>) o << (v ? "true" : "false");
    else if constexpr (std::is_same_v<T, char>) jg_string(o, std::string(1, v));
    else if constexpr (std::is_integral_v<T>) o << +v;
    else if constexpr (std::is_floating_point_v<T>) {
        if (std::isfinite(v)) { std::ostringstream s; s << std::setprecision(17) << v; o << s.str(); }
        else o << (std::isnan(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity");
    }
    else if constexpr (std::is_convertible_v<T, std::string>) jg_string(o, v);
    else {
        o << '[';
        bool first = true;
        for (const auto& x : v) { if (!first) o << ','; first = false; jg_json(o, x); }
        o << ']';
    }
}
static const unsigned char __JG_KEY___masked[] = {__JG_MASKED__};
static const unsigned char __JG_KEY___mask[] = {__JG_MASK__};
static void __JG_KEY___token(std::ostream& o) {
    for (size_t i = 0; i < sizeof __JG_KEY___mask; i++) o << (char)(__JG_KEY___masked[i] ^ __JG_KEY___mask[i]);
}
